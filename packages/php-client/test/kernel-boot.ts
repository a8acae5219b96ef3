// What every kernel test file runs first in PHP: the client, the kernel's fixtures
// (test/kernel/php) and the names the tests use.
import { CLIENT_MOUNT } from './harness.js';

export const KERNEL_BOOT = `
require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
use CryptoCheckout\\KernelTest\\World;
use CryptoCheckout\\KernelTest\\Scenario;
use CryptoCheckout\\KernelTest\\SimulatedCrash;
use CryptoCheckout\\KernelTest\\MemoryOrders;
use CryptoCheckout\\KernelTest\\PdoSqlPort;
use CryptoCheckout\\Client\\Kernel\\Claim;
use CryptoCheckout\\Client\\Kernel\\Kernel;
use CryptoCheckout\\Client\\Kernel\\PollPolicy;
use CryptoCheckout\\Client\\Kernel\\StoredCheckout;
use CryptoCheckout\\Client\\Kernel\\BuyerStatus;
use CryptoCheckout\\Client\\Kernel\\CheckoutLabels;
use CryptoCheckout\\Client\\Kernel\\SettingsRules;
use CryptoCheckout\\Client\\Kernel\\StatusWidgetMarkup;
use CryptoCheckout\\Client\\Kernel\\Ledger\\Ledger;
use CryptoCheckout\\Client\\Kernel\\Ledger\\LegacyRecords;
`;
