import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  findDebianPhp,
  type MariaDb,
  mariaDbUnavailable,
  phpCliJson,
  phpString,
  runPhpCli,
  runPhpCliSync,
  startMariaDb,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_DIR, type ModuleCopy, prepareModule } from './harness/harness.js';
import {
  CLAIM_SWAPS_EXPECTED,
  CLAIM_SWAPS_PHP,
  DUE_CHECKOUTS_PHP,
  expectDueMatchesKernel,
  expectQuotingRoundTrips,
  expectRefusedThenCompleted,
  expectUpgradeFrom10,
  expectUpgradeFrom12,
  LAYOUT_1_2_PHP,
  LEDGER_PHP,
  QUOTING_PHP,
  REFUSE_TRIGGER_MARIADB,
  ROWS_1_2_PHP,
  refuseOrder3,
  type UpgradeResult,
  upgradeFromRelease,
} from './storage-scenarios.js';

// The module's SQL as written, on a real MariaDB from Debian (PrestaShop runs on MySQL/MariaDB; the
// other tests use the harness's SQLite, which translates MySQL spellings). php-wasm has no MySQL
// driver, so these scripts run in Debian's PHP CLI with pdo_mysql, through the harness's Db in its
// MySQL mode (PrestaShop's escaping): the kernel's ledger through the module's SQL port, the
// module's own queries, and the upgrade from each released version's tables, unchanged.

// Skipped on a machine without MariaDB; on CI this throws rather than skip.
const unavailable = mariaDbUnavailable();

let copy: ModuleCopy;
let mariadb: MariaDb;
let php: string;
let databases = 0;

beforeAll(async () => {
  if (unavailable !== null) return;
  php = findDebianPhp();
  copy = await prepareModule();
  mariadb = await startMariaDb();
});

afterAll(async () => {
  await mariadb?.stop();
  copy?.remove();
});

/**
 * Runs `code` in Debian's PHP on a fresh database of the MariaDB server, after the harness and
 * the module's classes are loaded; returns the JSON it prints.
 */
function run(code: string): unknown {
  return phpCliJson(runPhpCliSync(php, script(`module_${++databases}`, true, code)));
}

/**
 * The PHP script of run(): on database `database` of the server, created with PrestaShop's
 * tables when `create`, else as an earlier script left it (several processes may share it).
 */
function script(database: string, create: boolean, code: string): string {
  const prelude = `<?php
error_reporting(E_ALL);
set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $severity, $file, $line);
});
${
  create
    ? `$admin = new PDO(${phpString(mariadb.dsn)}, ${phpString(mariadb.user)}, ${phpString(mariadb.password)});
$admin->exec('CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4');`
    : ''
}
$GLOBALS['HARNESS'] = [
    'db' => ${phpString(mariadb.dsn.replace(`dbname=${mariadb.database}`, `dbname=${database}`))},
    'db_user' => ${phpString(mariadb.user)},
    'db_password' => ${phpString(mariadb.password)},
    'shop_url' => 'http://shop.test',
    'modules_dir' => ${phpString(copy.modulesDir)},
];
require_once ${phpString(join(HARNESS_DIR, 'prestashop.php'))};
require_once ${phpString(join(copy.modulesDir, 'cryptocheckout/cryptocheckout.php'))};
// The PrestaShop tables the module's queries read, with PrestaShop 8.1.2's column types.
foreach ([
    'CREATE TABLE ps_configuration (id_configuration INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, name VARCHAR(254) NOT NULL, value TEXT, date_add DATETIME NOT NULL, date_upd DATETIME NOT NULL, PRIMARY KEY (id_configuration), KEY name (name)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_orders (id_order INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, reference VARCHAR(9), id_customer INT(10) UNSIGNED NOT NULL, current_state INT(10) UNSIGNED NOT NULL, module VARCHAR(255), date_add DATETIME NOT NULL, PRIMARY KEY (id_order), KEY reference (reference)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_order_payment (id_order_payment INT NOT NULL AUTO_INCREMENT, order_reference VARCHAR(9), amount DECIMAL(20,6) NOT NULL, transaction_id VARCHAR(254), date_add DATETIME NOT NULL, PRIMARY KEY (id_order_payment), KEY order_reference (order_reference)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_order_state (id_order_state INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, paid TINYINT(1) UNSIGNED NOT NULL DEFAULT 0, PRIMARY KEY (id_order_state)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_customer_thread (id_customer_thread INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, id_order INT(10) UNSIGNED, PRIMARY KEY (id_customer_thread)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_customer_message (id_customer_message INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, id_customer_thread INT(11), id_employee INT(10) UNSIGNED, message MEDIUMTEXT NOT NULL, date_add DATETIME NOT NULL, private TINYINT NOT NULL DEFAULT 0, PRIMARY KEY (id_customer_message)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_message (id_message INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, id_order INT(10) UNSIGNED NOT NULL, message TEXT NOT NULL, private TINYINT(1) UNSIGNED NOT NULL DEFAULT 1, date_add DATETIME NOT NULL, PRIMARY KEY (id_message)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_module (id_module INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, name VARCHAR(64) NOT NULL, active TINYINT(1) UNSIGNED NOT NULL DEFAULT 0, version VARCHAR(8) NOT NULL, PRIMARY KEY (id_module), UNIQUE KEY name (name)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_hook (id_hook INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, name VARCHAR(191) NOT NULL, title VARCHAR(255) NOT NULL, description TEXT, active TINYINT(1) UNSIGNED NOT NULL DEFAULT 1, position TINYINT(1) NOT NULL DEFAULT 1, PRIMARY KEY (id_hook), UNIQUE KEY hook_name (name)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_hook_module (id_module INT(10) UNSIGNED NOT NULL, id_shop INT(11) UNSIGNED NOT NULL DEFAULT 1, id_hook INT(10) UNSIGNED NOT NULL, position TINYINT(2) UNSIGNED NOT NULL, PRIMARY KEY (id_module, id_hook, id_shop), KEY id_hook (id_hook), KEY id_module (id_module), KEY position (id_shop, position)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
    'CREATE TABLE ps_log (id_log INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, severity TINYINT(1) NOT NULL, error_code INT(11), message TEXT NOT NULL, object_type VARCHAR(32), object_id INT(10) UNSIGNED, date_add DATETIME NOT NULL, PRIMARY KEY (id_log)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4',
] as $table) {
    ${create ? 'Db::getInstance()->execute($table);' : ''}
}
`;
  return prelude + code;
}

const install = LEDGER_PHP;

describe.skipIf(unavailable !== null)('the module SQL on MariaDB', () => {
  it('creates the ledger (twice without harm) with the keys it relies on, and drops it on request', () => {
    const result = run(`${install}
$db = Db::getInstance();
$columns = array_column($db->executeS('SHOW COLUMNS FROM ps_cryptocheckout_checkouts'), 'Type', 'Field');
$keys = [];
foreach ($db->executeS('SHOW INDEX FROM ps_cryptocheckout_checkouts') as $row) {
    $keys[$row['Key_name']][] = $row['Column_name'];
}
$orderKeys = array_column($db->executeS('SHOW INDEX FROM ps_cryptocheckout_orders'), 'Column_name', 'Key_name');
$engine = $db->getValue("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ps_cryptocheckout_checkouts'");
$installed = $ledger->isInstalled();
$ledger->uninstall();
$left = $db->executeS("SHOW TABLES LIKE 'ps_cryptocheckout%'");
echo json_encode(['columns' => $columns, 'keys' => $keys, 'orderKeys' => $orderKeys, 'engine' => $engine, 'installed' => $installed, 'uninstalled' => !$ledger->isInstalled(), 'left' => $left]);`);
    expect(result).toMatchObject({
      columns: {
        transaction_code: 'varchar(64)',
        order_id: 'varchar(64)',
        expires_at: 'bigint(20)',
        received_usd: 'varchar(40)',
      },
      keys: {
        PRIMARY: ['transaction_code'],
        ps_cryptocheckout_checkouts_order: ['order_id', 'ordinal'],
        ps_cryptocheckout_checkouts_due: ['resolution', 'watch_until'],
      },
      orderKeys: { PRIMARY: 'order_id' },
      engine: 'InnoDB',
      installed: true,
      uninstalled: true,
      left: [],
    });
  });

  it('stores checkouts and finds them by code whatever its case, newest first, with every field back', () => {
    const result = run(`${install}
$make = function (string $code, int $created) {
    return CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\StoredCheckout::fromArray([
        'transaction_code' => $code, 'checkout_url' => 'https://pay.example/pay/' . $code, 'service_url' => 'https://pay.example',
        'fiat_amount' => '1500', 'fiat_currency' => 'JPY', 'wallet_address' => '0xabc', 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON',
        'created_at' => $created,
    ]);
};
$ledger->add('5', $make('aaaaaaaa-0000-4000-8000-000000000001', 1800000000));
$ledger->add('5', $make('aaaaaaaa-0000-4000-8000-000000000002', 1800000100));
$duplicate = null;
try { $ledger->add('6', $make('aaaaaaaa-0000-4000-8000-000000000001', 1800000200)); } catch (Throwable $e) { $duplicate = get_class($e); }
$checkouts = $ledger->checkouts('5');
$checkouts[0]->recordLookup(['status' => 'underpaid', 'received_usd' => 4.5, 'expires_at' => '2027-01-15T08:00:00Z'], 1800000300);
$checkouts[0]->appliedAction = 'hold_underpaid';
$ledger->record('5', $checkouts[0]);
echo json_encode([
    'found' => $ledger->orderOf(' AAAAAAAA-0000-4000-8000-000000000002 '),
    'missing' => $ledger->orderOf('bbbbbbbb-0000-4000-8000-000000000000'),
    'duplicate' => $duplicate,
    'codes' => array_map(function ($c) { return $c->transactionCode; }, $ledger->checkouts('5')),
    'newest' => $ledger->checkouts('5')[0]->toArray(),
]);`) as { newest: Record<string, unknown> } & Record<string, unknown>;
    expect(result.found).toBe('5');
    expect(result.missing).toBeNull();
    // The primary key refuses a second row for the same code (no duplicate checkout ever), as the
    // RuntimeException the ledger's port promises.
    expect(result.duplicate).toBe('RuntimeException');
    expect(result.codes).toEqual([
      'aaaaaaaa-0000-4000-8000-000000000002',
      'aaaaaaaa-0000-4000-8000-000000000001',
    ]);
    expect(result.newest).toMatchObject({
      fiat_amount: '1500',
      fiat_currency: 'JPY',
      ordinal: 2,
      last_status: 'underpaid',
      received_usd: '4.5',
      checked_at: 1800000300,
      expires_at: Date.UTC(2027, 0, 15, 8) / 1000,
      applied_action: 'hold_underpaid',
      resolution: null,
    });
  });

  it('selects the due checkouts in one query exactly as the kernel PollPolicy does', () => {
    expectDueMatchesKernel(run(`${install}${DUE_CHECKOUTS_PHP}`));
  });

  it('lets exactly one of two claims of the same order win (changed-row counts, as MySQL reports them)', () => {
    expect(run(`${install}${CLAIM_SWAPS_PHP}`)).toEqual(CLAIM_SWAPS_EXPECTED);
  });

  it('carries any text through PrestaShop quoting (backslashes included) and turns a refused statement into an exception', () => {
    expectQuotingRoundTrips(run(QUOTING_PHP));
  });

  it('upgrades in place from the 1.0.1 table: every checkout into the ledger, open orders watched, paid ones paid', () => {
    expectUpgradeFrom10(run(upgradeFromRelease('1.0.1')) as UpgradeResult);
  });

  it('upgrades in place from the 1.2.0 tables, and a second run changes nothing', () => {
    expectUpgradeFrom12(run(upgradeFromRelease('1.2.0')) as UpgradeResult);
  });

  it('keeps the 1.2.0 tables and says why when the database refuses a write, then completes when the module is turned on again', () => {
    expectRefusedThenCompleted(
      run(upgradeFromRelease('1.2.0', refuseOrder3(REFUSE_TRIGGER_MARIADB))) as UpgradeResult,
    );
  });

  it('brings 1.2.0 tables up once when several first requests come at the same moment (new files, ps_module still 1.2.0)', async () => {
    const database = `module_${++databases}`;
    const barrier = mkdtempSync(join(tmpdir(), 'cc-prestashop-barrier-'));
    const requests = 6;
    try {
      // The shop as 1.2.0 left it, and this version's files: no upgrade script ran (PrestaShop
      // 8.1.2's upload read the old class's version; see SchemaUpgrade).
      phpCliJson(
        runPhpCliSync(
          php,
          script(
            database,
            true,
            `
Db::getInstance()->insert('module', ['name' => 'cryptocheckout', 'active' => 1, 'version' => '1.2.0']);
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', 'https://pay.example.com');
Configuration::updateValue('CRYPTOCHECKOUT_DISPLAY_MODE', 'embedded');
${LAYOUT_1_2_PHP}${ROWS_1_2_PHP}
echo json_encode(true);`,
          ),
        ),
      );
      // Each process is a first request to the webhook controller, all let go at once; creating a
      // table takes 0.2 s, so without the lock every one of them would upgrade. A GET is answered
      // 405 once the tables are up (nothing is looked up), 503 while they are not.
      const request = (i: number) =>
        script(
          database,
          false,
          `
$GLOBALS['HARNESS']['slow_ddl'] = 200000;
touch(${phpString(barrier)} . '/ready-${i}');
for ($wait = 0; $wait < 1000 && count(glob(${phpString(barrier)} . '/ready-*')) < ${requests}; $wait++) {
    usleep(10000);
}
require_once ${phpString(join(copy.modulesDir, 'cryptocheckout/controllers/front/webhook.php'))};
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_GET = ['fc' => 'module', 'module' => 'cryptocheckout', 'controller' => 'webhook'];
ob_start();
try {
    (new CryptocheckoutWebhookModuleFrontController())->run();
} catch (HarnessExit $exit) {
}
$body = ob_get_clean();
echo json_encode(['status' => http_response_code(), 'error' => json_decode($body, true)['error']['code'] ?? $body]);`,
        );
      const answers = (
        await Promise.all(Array.from({ length: requests }, (_, i) => runPhpCli(php, request(i))))
      ).map((answer) => phpCliJson(answer));
      expect(answers).toEqual(
        Array.from({ length: requests }, () => ({ status: 405, error: 'method_not_allowed' })),
      );
      const state = phpCliJson(
        runPhpCliSync(
          php,
          script(
            database,
            false,
            `
$db = Db::getInstance();
echo json_encode([
    'version' => $db->getValue("SELECT version FROM ps_module WHERE name = 'cryptocheckout'"),
    'schema' => Configuration::get('CRYPTOCHECKOUT_SCHEMA_VERSION'),
    'checkouts' => (int) $db->getValue('SELECT COUNT(*) FROM ps_cryptocheckout_checkouts'),
    'legacyTables' => count($db->executeS("SHOW TABLES LIKE 'ps_cryptocheckout_c%'")),
    'hooks' => (int) $db->getValue('SELECT COUNT(*) FROM ps_hook_module'),
    'upgrades' => (int) $db->getValue("SELECT COUNT(*) FROM ps_log WHERE message LIKE 'Crypto Checkout: The module''s tables and hooks are up to date for version 1.4.1%'"),
    'errors' => array_column($db->executeS('SELECT message FROM ps_log WHERE severity = 3'), 'message'),
]);`,
          ),
        ),
      );
      expect(state).toEqual({
        version: '1.4.1',
        schema: '1.4.1',
        checkouts: 6,
        // ps_cryptocheckout_checkouts only: 1.2.0's checkout and claim tables are gone.
        legacyTables: 1,
        hooks: 7,
        upgrades: 1,
        errors: [],
      });
    } finally {
      rmSync(barrier, { recursive: true, force: true });
    }
  });

  it('reads orders, payments, states and notes with the queries the module sends', () => {
    const result = run(`${install}
$db = Db::getInstance();
foreach (['PS_OS_PAYMENT' => 2, 'PS_OS_CANCELED' => 6, 'PS_OS_ERROR' => 8, 'CRYPTOCHECKOUT_OS_AWAITING' => 14, 'CRYPTOCHECKOUT_OS_UNDERPAID' => 15, 'CRYPTOCHECKOUT_OS_REVIEW' => 16] as $key => $id) {
    Configuration::updateValue($key, $id);
}
foreach ([2 => 1, 3 => 1, 6 => 0, 8 => 0, 14 => 0, 15 => 0, 16 => 0] as $id => $paid) {
    $db->execute("INSERT INTO ps_order_state (id_order_state, paid) VALUES ($id, $paid)");
}
$old = date('Y-m-d H:i:s', time() - 90000);
$new = date('Y-m-d H:i:s', time() - 60);
$db->execute("INSERT INTO ps_orders (id_order, reference, id_customer, current_state, module, date_add) VALUES
    (1, 'AAAAAAAAA', 1, 14, 'cryptocheckout', '$old'), (2, 'BBBBBBBBB', 1, 14, 'cryptocheckout', '$old'),
    (3, 'CCCCCCCCC', 1, 14, 'cryptocheckout', '$new'), (4, 'DDDDDDDDD', 1, 14, 'ps_wirepayment', '$old'),
    (5, 'EEEEEEEEE', 1, 6, 'cryptocheckout', '$old')");
$ledger->add('2', CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\StoredCheckout::fromArray([
    'transaction_code' => 'cccccccc-0000-4000-8000-000000000002', 'checkout_url' => 'https://pay.example/pay/x', 'service_url' => 'https://pay.example',
    'fiat_amount' => '10.00', 'fiat_currency' => 'EUR', 'wallet_address' => '0xabc', 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => time(),
]));
$db->execute("INSERT INTO ps_customer_thread (id_customer_thread, id_order) VALUES (1, 1)");
$db->execute("INSERT INTO ps_customer_message (id_customer_thread, id_employee, message, date_add, private) VALUES
    (1, 0, 'Crypto Checkout: second', '2026-11-20 10:00:05', 1), (1, 0, 'Where is my parcel?', '2026-11-20 10:00:06', 0),
    (1, 3, 'Crypto Checkout: typed by an employee', '2026-11-20 10:00:07', 1)");
$db->execute("INSERT INTO ps_message (id_order, message, private, date_add) VALUES (1, 'Crypto Checkout: first, written by 1.1', 1, '2026-11-20 10:00:01')");
$states = [];
foreach ([2, 3, 6, 8, 14, 15, 16] as $id) {
    $states[$id] = CryptoCheckout\\PrestaShop\\OrderStates::toKernel($id);
}
$module = new class extends PaymentModule { public function __construct() {} };
$kernel = new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\Kernel(new CryptoCheckout\\PrestaShop\\PrestaShopOrderPort($module), $sql);
echo json_encode([
    'states' => $states,
    'abandoned' => (new CryptoCheckout\\PrestaShop\\AbandonedOrders('cryptocheckout', $kernel))->due(time()),
    'notes' => CryptoCheckout\\PrestaShop\\PrestaShopOrderPort::notes(1),
    'noNotes' => CryptoCheckout\\PrestaShop\\PrestaShopOrderPort::notes(2),
]);`) as Record<string, unknown>;
    expect(result.states).toEqual({
      2: 'paid',
      3: 'paid',
      6: 'cancelled',
      8: 'cancelled',
      14: 'awaiting_payment',
      15: 'underpaid',
      16: 'late_payment_review',
    });
    // Old enough, awaiting, no checkout in the ledger, this module's: order 1 only.
    expect(result.abandoned).toEqual([1]);
    expect(result.notes).toEqual([
      { date: '2026-11-20 10:00:01', text: 'Crypto Checkout: first, written by 1.1' },
      { date: '2026-11-20 10:00:05', text: 'Crypto Checkout: second' },
    ]);
    expect(result.noNotes).toEqual([]);
  });

  it('finds a payment booked under the transaction code whatever its case (PrestaShopOrderPort::isPaymentBooked)', () => {
    const result = run(`${install}
$db = Db::getInstance();
$db->execute("INSERT INTO ps_orders (id_order, reference, id_customer, current_state, module, date_add) VALUES (1, 'AAAAAAAAA', 1, 2, 'cryptocheckout', NOW()), (2, 'BBBBBBBBB', 1, 2, 'cryptocheckout', NOW())");
$db->execute("INSERT INTO ps_order_payment (order_reference, amount, transaction_id, date_add) VALUES ('AAAAAAAAA', 10, 'CCCCCCCC-0000-4000-8000-000000000009', NOW())");
$module = new class extends PaymentModule { public function __construct() {} };
$port = new CryptoCheckout\\PrestaShop\\PrestaShopOrderPort($module);
echo json_encode([
    $port->isPaymentBooked('1', 'cccccccc-0000-4000-8000-000000000009'),
    $port->isPaymentBooked('2', 'cccccccc-0000-4000-8000-000000000009'),
    $port->isPaymentBooked('1', 'cccccccc-0000-4000-8000-000000000001'),
]);`);
    expect(result).toEqual([true, false, false]);
  });

  it('finds a paid refund by its note only on its order, and the newest credit slip (PrestaShopRefundPort, the slip hook)', () => {
    const result = run(`${install}
$db = Db::getInstance();
$db->execute("CREATE TABLE ps_order_slip (id_order_slip INT(10) UNSIGNED NOT NULL AUTO_INCREMENT, conversion_rate DECIMAL(13,6) NOT NULL DEFAULT 1, id_customer INT(10) UNSIGNED NOT NULL, id_order INT(10) UNSIGNED NOT NULL, total_products_tax_excl DECIMAL(20,6) NULL, total_products_tax_incl DECIMAL(20,6) NULL, total_shipping_tax_excl DECIMAL(20,6) NULL, total_shipping_tax_incl DECIMAL(20,6) NULL, shipping_cost TINYINT(3) UNSIGNED NOT NULL DEFAULT 0, amount DECIMAL(20,6) NOT NULL DEFAULT 0, shipping_cost_amount DECIMAL(20,6) NOT NULL DEFAULT 0, partial TINYINT(1) NOT NULL, order_slip_type TINYINT(1) UNSIGNED NOT NULL DEFAULT 0, date_add DATETIME NOT NULL, date_upd DATETIME NOT NULL, PRIMARY KEY (id_order_slip), KEY id_order (id_order)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
$db->execute("INSERT INTO ps_order_slip (id_customer, id_order, total_products_tax_incl, total_shipping_tax_incl, partial, date_add, date_upd) VALUES (1, 1, 10, 2.5, 0, NOW(), NOW()), (1, 1, 4.1, 0, 0, NOW(), NOW()), (1, 2, 9, 0, 0, NOW(), NOW())");
$db->execute("INSERT INTO ps_customer_thread (id_customer_thread, id_order) VALUES (1, 1), (2, 2)");
$db->execute("INSERT INTO ps_customer_message (id_customer_thread, id_employee, message, date_add, private) VALUES
    (1, 0, 'Crypto Checkout: Refund of 12.5 USDC for credit slip #1 paid: 0xabc (refund aaaaaaaa-0000-4000-8000-000000000001)', NOW(), 1),
    (1, 3, 'typed by an employee: (refund aaaaaaaa-0000-4000-8000-000000000002)', NOW(), 1),
    (2, 0, 'We are refunding 9.00 EUR (refund aaaaaaaa-0000-4000-8000-000000000003)', NOW(), 0)");
$module = new class extends PaymentModule { public function __construct() {} };
$port = new CryptoCheckout\\PrestaShop\\PrestaShopRefundPort($module, static function ($text) { return $text; });
$newest = new ReflectionMethod('Cryptocheckout', 'newestCreditSlip');
$newest->setAccessible(true);
echo json_encode([
    'recorded' => [
        $port->isRefundRecorded('1', 'AAAAAAAA-0000-4000-8000-000000000001'),
        $port->isRefundRecorded('2', 'aaaaaaaa-0000-4000-8000-000000000001'),
        $port->isRefundRecorded('1', 'aaaaaaaa-0000-4000-8000-000000000002'),
        $port->isRefundRecorded('2', 'aaaaaaaa-0000-4000-8000-000000000003'),
    ],
    'slip' => $newest->invoke(null, 1),
    'none' => $newest->invoke(null, 3),
]);`) as Record<string, unknown>;
    // Only the module's private note on that order counts: not another order's, not an employee's, not the buyer's message.
    expect(result.recorded).toEqual([true, false, false, false]);
    expect(result.slip).toEqual({
      id_order_slip: '2',
      total_products_tax_incl: '4.100000',
      total_shipping_tax_incl: '0.000000',
    });
    expect(result.none).toBeNull();
  });
});
