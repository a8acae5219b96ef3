// The WordPress suite (./wordpress.suite.ts) on PHP 8.3; its own file, so the two versions run side by side.
import { wordpressSuite } from './wordpress.suite.js';

wordpressSuite('8.3');
