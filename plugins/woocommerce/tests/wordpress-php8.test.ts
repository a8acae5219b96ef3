// The WordPress suite (./wordpress.suite.ts) on PHP 8 (Debian's PHP where installed, else php-wasm 8.3; support/wordpress.ts); its own file, so the two versions run side by side.
import { wordpressSuite } from './wordpress.suite.js';

wordpressSuite('8');
