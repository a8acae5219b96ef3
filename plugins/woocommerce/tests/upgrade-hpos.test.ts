// The upgrade suite (./upgrade.suite.ts) with the orders in hpos storage; its own file, so both storages run side by side.
import { upgradeSuite } from './upgrade.suite.js';

upgradeSuite('hpos');
