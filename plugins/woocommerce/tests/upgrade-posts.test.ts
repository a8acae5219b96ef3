// The upgrade suite (./upgrade.suite.ts) with the orders in posts storage; its own file, so both storages run side by side.
import { upgradeSuite } from './upgrade.suite.js';

upgradeSuite('posts');
