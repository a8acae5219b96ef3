// The module's storage scenarios, written once and run on both databases the tests have: the
// harness's SQLite (php-wasm, module.test.ts) and a real MariaDB (Debian's PHP, mariadb.test.ts).
// Each is PHP that expects the harness and the module's classes loaded, and prints JSON; the
// matching check says what must come out. The kernel's ledger goes through the module's SQL port
// (PrestaShopSqlPort over PrestaShop's Db, parameters inlined with pSQL()), and the released
// versions' tables are created exactly as those versions created them.

import { phpString } from '@cryptocheckout/php-testkit';
import { expect } from 'vitest';
import { WALLET } from './harness/harness.js';

/** PHP: $ledger, the kernel's ledger over the module's SQL port, installed (twice: it must not mind). */
export const LEDGER_PHP = `
$sql = new CryptoCheckout\\PrestaShop\\PrestaShopSqlPort();
$ledger = new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\Ledger\\Ledger($sql);
$ledger->install();
$ledger->install();
`;

/** 80 checkouts of every kind over 9 orders; prints the SQL selection and the kernel's, per batch size. */
export const DUE_CHECKOUTS_PHP = `${LEDGER_PHP}
$now = 1800000000;
mt_srand(7);
$pick = function (array $choices) { return $choices[mt_rand(0, count($choices) - 1)]; };
for ($i = 1; $i <= 80; $i++) {
    $checkout = new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\StoredCheckout();
    $checkout->transactionCode = sprintf('cccccccc-0000-4000-8000-%012d', $i);
    $checkout->checkoutUrl = 'https://pay.example.com/pay/' . $checkout->transactionCode;
    $checkout->serviceUrl = 'https://pay.example.com';
    $checkout->fiatAmount = '10.00';
    $checkout->fiatCurrency = 'EUR';
    $checkout->walletAddress = ${phpString(WALLET)};
    $checkout->walletCurrency = 'USDC';
    $checkout->walletNetwork = 'POLYGON';
    $checkout->createdAt = $now - 5 * 86400 + $i * 3700;
    // Open, in its late window, long over, or never told by the service.
    $checkout->expiresAt = $pick([$now + 600, $now - 3600, $now - 3 * 86400, null]);
    $checkout->watchUntil = $checkout->expiresAt === null ? $now + 1800 : $checkout->expiresAt + 25 * 3600;
    $checkout->checkedAt = $pick([null, $now - 30, $now - 60, $now - 90, $now - 599, $now - 600, $now - 7200]);
    $checkout->resolution = $pick([null, null, null, 'booked', 'flagged']);
    $checkout->confirmedAt = $pick([null, $now - 100]);
    $ledger->add((string) (1 + $i % 9), $checkout);
}
$entries = [];
for ($order = 1; $order <= 9; $order++) {
    foreach ($ledger->checkouts((string) $order) as $checkout) {
        $entries[] = [(string) $order, $checkout];
    }
}
$compared = [];
foreach ([1, 3, 10, 50, 200] as $batch) {
    $policy = new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\PollPolicy($batch);
    $compared[] = ['batch' => $batch, 'sql' => $ledger->due($policy, $now), 'kernel' => $policy->select($entries, $now)];
}
echo json_encode($compared);`;

/** The SQL selects exactly what the kernel's PollPolicy selects, for every batch size. */
export function expectDueMatchesKernel(result: unknown): void {
  const compared = result as Array<{ batch: number; sql: string[][]; kernel: string[][] }>;
  for (const { batch, sql, kernel } of compared) {
    expect(sql, `batch ${batch}`).toEqual(kernel);
    expect(sql.length, `batch ${batch}`).toBe(Math.min(batch, compared.at(-1)!.kernel.length));
  }
  // Enough of them are due, and enough are not, for the comparison to mean something.
  expect(compared.at(-1)!.kernel.length).toBeGreaterThan(15);
  expect(compared.at(-1)!.kernel.length).toBeLessThan(60);
}

/** Two requests claim the same order; prints what each claim, release and read saw. */
export const CLAIM_SWAPS_PHP = `${LEDGER_PHP}
$now = 1800000000;
$first = $ledger->claim('7', 'mark_paid', 'x', $now);
$second = $ledger->claim('7', 'open_checkout', 'x', $now);
$stranger = new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\Claim('7', 'not-the-holder', 'b', 'x', $now + 60);
$ledger->release($stranger);
$held = $ledger->isClaimed('7', $now);
$ledger->release($first);
$free = !$ledger->isClaimed('7', $now);
$again = $ledger->claim('7', 'run', 'y', $now);
$takenOver = $ledger->claim('7', 'run', 'z', $now + 61);
echo json_encode([
    'first' => $first !== null,
    'second' => $second !== null,
    'held' => $held,
    'free' => $free,
    'again' => $again !== null,
    'takenOver' => $takenOver === null ? null : $takenOver->tookOver,
    'other' => $ledger->isClaimed('8', $now),
]);`;

/** Exactly one of two claims of the same order wins; a release by another run changes nothing. */
export const CLAIM_SWAPS_EXPECTED = {
  first: true,
  second: false,
  held: true,
  free: true,
  again: true,
  takenOver: 'run y',
  other: false,
};

/**
 * Values the SQL port must carry unchanged through PrestaShop's quoting: quotes, backslashes, a
 * question mark (the placeholder), tags (which pSQL() strips unless told not to), a NUL-free
 * multibyte text. Prints the values read back and what a refused statement throws.
 */
export const QUOTING_PHP = `${LEDGER_PHP}
$odd = "https://pay.example/pay/x?a=1&b='2'\\\\\\\\3\\"<b>bold</b> ? naïve — 東京";
$ledger->putValue("key with 'quote' and ?", $odd);
$refused = null;
try { $sql->select('SELECT * FROM ' . $sql->table('no_such_table') . ' WHERE a = ?', ['x']); } catch (RuntimeException $e) { $refused = get_class($e); }
$mismatch = null;
try { $sql->execute('UPDATE ' . $sql->table('cryptocheckout_state') . ' SET counter = ? WHERE state_key = ?', [1]); } catch (InvalidArgumentException $e) { $mismatch = $e->getMessage(); }
echo json_encode([
    'odd' => $odd,
    'back' => $ledger->value("key with 'quote' and ?", 0),
    'null' => $sql->select('SELECT ? AS n, ? AS i', [null, 42])[0],
    'refused' => $refused,
    'mismatch' => $mismatch,
]);`;

export function expectQuotingRoundTrips(result: unknown): void {
  const { odd, back, null: row, refused, mismatch } = result as Record<string, unknown>;
  expect(back).toBe(odd);
  expect(String(odd)).toContain('<b>bold</b>');
  expect(row).toMatchObject({ n: null });
  expect(Number((row as { i: unknown }).i)).toBe(42);
  // A database error is the RuntimeException the ledger expects.
  expect(refused).toBe('RuntimeException');
  expect(mismatch).toBe('The statement has 2 placeholders for 1 parameters.');
}

/* ------------------------------------------------------------------ released storage layouts */

/**
 * 1.0.x (commit f82e298, TransactionRepository::install()): one row per order, the order's state
 * in `state`, dates written with date() in the shop's time zone, no service URL.
 */
export const LAYOUT_1_0_PHP = `
Db::getInstance()->execute(
            'CREATE TABLE IF NOT EXISTS \`' . _DB_PREFIX_ . 'cryptocheckout_transaction\` (
                \`id_order\` INT(10) UNSIGNED NOT NULL,
                \`id_cart\` INT(10) UNSIGNED NOT NULL,
                \`transaction_code\` VARCHAR(64) NULL,
                \`checkout_url\` VARCHAR(2048) NULL,
                \`fiat_amount\` VARCHAR(32) NOT NULL,
                \`fiat_currency\` VARCHAR(3) NOT NULL,
                \`wallet_address\` VARCHAR(128) NOT NULL,
                \`wallet_currency\` VARCHAR(16) NOT NULL,
                \`wallet_network\` VARCHAR(16) NOT NULL,
                \`state\` VARCHAR(32) NOT NULL DEFAULT \\'awaiting_payment\\',
                \`last_status\` VARCHAR(32) NULL,
                \`last_checked\` DATETIME NULL,
                \`date_add\` DATETIME NOT NULL,
                \`date_upd\` DATETIME NOT NULL,
                PRIMARY KEY (\`id_order\`),
                UNIQUE KEY \`cryptocheckout_code\` (\`transaction_code\`),
                KEY \`cryptocheckout_state\` (\`state\`)
            ) ENGINE=' . _MYSQL_ENGINE_ . ' DEFAULT CHARSET=utf8mb4'
);
`;

/**
 * 1.1.0 to 1.2.0 (commits 8c52370 to 16f94d5, CheckoutRepository::install()): every checkout of an
 * order, times in Unix seconds, and the orders' claim markers.
 */
export const LAYOUT_1_2_PHP = `
Db::getInstance()->execute(
            'CREATE TABLE IF NOT EXISTS \`' . _DB_PREFIX_ . 'cryptocheckout_checkout\` (
                \`id_checkout\` INT(10) UNSIGNED NOT NULL AUTO_INCREMENT,
                \`transaction_code\` VARCHAR(64) NOT NULL,
                \`id_order\` INT(10) UNSIGNED NOT NULL,
                \`checkout_url\` VARCHAR(2048) NOT NULL,
                \`service_url\` VARCHAR(2048) NOT NULL,
                \`fiat_amount\` VARCHAR(32) NOT NULL,
                \`fiat_currency\` VARCHAR(3) NOT NULL,
                \`wallet_address\` VARCHAR(128) NOT NULL,
                \`wallet_currency\` VARCHAR(16) NOT NULL,
                \`wallet_network\` VARCHAR(16) NOT NULL,
                \`created_at\` INT(10) UNSIGNED NOT NULL,
                \`expires_at\` INT(10) UNSIGNED NULL,
                \`watch_until\` INT(10) UNSIGNED NOT NULL,
                \`checked_at\` INT(10) UNSIGNED NULL,
                \`last_status\` VARCHAR(32) NULL,
                \`received_usd\` VARCHAR(32) NULL,
                \`applied_action\` VARCHAR(32) NULL,
                \`resolution\` VARCHAR(16) NULL,
                PRIMARY KEY (\`id_checkout\`),
                UNIQUE KEY \`cryptocheckout_checkout_code\` (\`transaction_code\`),
                KEY \`cryptocheckout_checkout_order\` (\`id_order\`),
                KEY \`cryptocheckout_checkout_due\` (\`resolution\`, \`watch_until\`)
            ) ENGINE=' . _MYSQL_ENGINE_ . ' DEFAULT CHARSET=utf8mb4'
) && Db::getInstance()->execute(
            'CREATE TABLE IF NOT EXISTS \`' . _DB_PREFIX_ . 'cryptocheckout_claim\` (
                \`id_order\` INT(10) UNSIGNED NOT NULL,
                \`claim\` VARCHAR(128) NULL,
                PRIMARY KEY (\`id_order\`)
            ) ENGINE=' . _MYSQL_ENGINE_ . ' DEFAULT CHARSET=utf8mb4'
);
`;

/**
 * PHP: $rows10, rows of every state 1.0.x wrote ([id_order, code, state, last status, last check,
 * added]), inserted as its TransactionRepository did; $now and $recent are Unix seconds.
 */
export const ROWS_1_0_PHP = `
$now = time();
$recent = $now - 600;
$old = $now - 3 * 86400;
$rows10 = [
    [1, 'AAAAAAAA-0000-4000-8000-000000000001', 'awaiting_payment', 'pending', $recent, $recent],
    [2, 'aaaaaaaa-0000-4000-8000-000000000002', 'paid', 'settled', $recent, $recent],
    [3, 'aaaaaaaa-0000-4000-8000-000000000003', 'late_payment_review', 'settled', $old, $old],
    [4, 'aaaaaaaa-0000-4000-8000-000000000004', 'cancelled', 'expired', $old, $old],
    [5, 'aaaaaaaa-0000-4000-8000-000000000005', 'underpaid', 'underpaid', $recent, $recent],
    [6, null, 'awaiting_payment', null, null, $recent],
];
foreach ($rows10 as [$id, $code, $state, $status, $checked, $added]) {
    Db::getInstance()->insert('cryptocheckout_transaction', [
        'id_order' => $id, 'id_cart' => 10 + $id, 'transaction_code' => $code, 'checkout_url' => $code ? 'https://pay.example.com/pay/' . strtolower($code) : null,
        'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'wallet_address' => ${phpString(WALLET)}, 'wallet_currency' => 'USDC',
        'wallet_network' => 'POLYGON', 'state' => $state, 'last_status' => $status, 'last_checked' => $checked === null ? null : date('Y-m-d H:i:s', $checked),
        'date_add' => date('Y-m-d H:i:s', $added), 'date_upd' => date('Y-m-d H:i:s', $added),
    ], true);
}
`;

/**
 * PHP: rows of 1.1.0–1.2.0 inserted as its CheckoutRepository did (every StoredCheckout field of
 * that version, null as NULL): order 1 has a replaced checkout and its newer one, both open; 2 is
 * paid; 3 held a late payment; 4 was cancelled at expiry and is still in its late window; 5 is
 * underpaid; and order 7 holds a claim marker.
 */
export const ROWS_1_2_PHP = `
$now = time();
$checkout12 = function (int $idOrder, string $code, int $created, array $progress) use ($now) {
    $row = array_merge([
        'id_order' => $idOrder, 'transaction_code' => $code, 'checkout_url' => 'https://pay.example.com/pay/' . $code,
        'service_url' => 'https://pay.example.com', 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR',
        'wallet_address' => ${phpString(WALLET)}, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON',
        'created_at' => $created, 'expires_at' => $created + 3600, 'watch_until' => $created + 3600 + 25 * 3600,
        'checked_at' => null, 'last_status' => 'pending', 'received_usd' => null, 'applied_action' => null, 'resolution' => null,
    ], $progress);
    foreach ($row as $key => $value) {
        $row[$key] = $value === null ? ['type' => 'sql', 'value' => 'NULL'] : pSQL((string) $value);
    }
    Db::getInstance()->insert('cryptocheckout_checkout', $row, false, false, Db::INSERT);
};
$checkout12(1, 'bbbbbbbb-0000-4000-8000-000000000011', $now - 1200, ['checked_at' => $now - 1100]);
$checkout12(1, 'bbbbbbbb-0000-4000-8000-000000000012', $now - 600, []);
$checkout12(2, 'bbbbbbbb-0000-4000-8000-000000000002', $now - 7200, ['checked_at' => $now - 5000, 'last_status' => 'settled', 'received_usd' => '27.1', 'applied_action' => 'mark_paid', 'resolution' => 'booked']);
$checkout12(3, 'bbbbbbbb-0000-4000-8000-000000000003', $now - 9 * 3600, ['checked_at' => $now - 3600, 'last_status' => 'settled', 'received_usd' => '27.1', 'applied_action' => 'hold_late_payment', 'resolution' => 'flagged']);
$checkout12(4, 'bbbbbbbb-0000-4000-8000-000000000004', $now - 3 * 3600, ['checked_at' => $now - 2 * 3600, 'last_status' => 'expired', 'received_usd' => '0', 'applied_action' => 'cancel_expired']);
$checkout12(5, 'bbbbbbbb-0000-4000-8000-000000000005', $now - 1800, ['checked_at' => $now - 900, 'last_status' => 'underpaid', 'received_usd' => '13.5', 'applied_action' => 'hold_underpaid']);
Db::getInstance()->insert('cryptocheckout_claim', ['id_order' => 7, 'claim' => 'mark_paid|bbbbbbbb-0000-4000-8000-000000000011|' . ($now - 10) . '|abc']);
`;

/**
 * PHP: the shop as the released 1.4.0 left it, once $module is installed and configured with these
 * files (the ledger's tables are 1.4.0's): order 1 has an open checkout, order 2 a paid one (its
 * state recorded) and a refund waiting for the buyer's address; the module is on 1.4.0's hooks
 * (no displayAdminAfterHeader: 1.4.0 had no banner), ps_module says 1.4.0, the log is empty.
 * `marker` is the record of a completed upgrade: the released 1.4.0 kept none; these files
 * built as 1.4.0, before the bump, recorded '1.4.0'.
 */
export function shopAt140(marker: '1.4.0' | null): string {
  return `
$ledger = $module->kernel()->ledger();
$now = time();
foreach ([['1', 'dddddddd-0000-4000-8000-000000000001'], ['2', 'dddddddd-0000-4000-8000-000000000002']] as [$idOrder, $code]) {
    $ledger->add($idOrder, CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\StoredCheckout::fromArray([
        'transaction_code' => $code, 'checkout_url' => 'https://pay.example.com/pay/' . $code,
        'service_url' => 'https://pay.example.com', 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'wallet_address' => ${phpString(WALLET)},
        'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $now - 3600, 'expires_at' => $now,
    ]));
}
$ledger->recordState('2', 'paid');
$ledger->refunds()->add(CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\RefundRecord::fromArray([
    'refund_id' => 'eeeeeeee-0000-4000-8000-000000000001', 'order_id' => '2', 'transaction_code' => 'dddddddd-0000-4000-8000-000000000002',
    'platform_refund_id' => '1', 'service_url' => 'https://pay.example.com', 'amount' => '5.40', 'asset' => 'USDC', 'network' => 'POLYGON',
    'fiat_amount' => '5.00', 'fiat_currency' => 'EUR', 'status' => 'awaiting_address', 'created_at' => $now - 60,
]));
$module->unregisterHook('displayAdminAfterHeader');
${marker === null ? "Configuration::deleteByName('CRYPTOCHECKOUT_SCHEMA_VERSION');" : `Configuration::updateGlobalValue('CRYPTOCHECKOUT_SCHEMA_VERSION', ${phpString(marker)});`}
Db::getInstance()->update('module', ['version' => '1.4.0'], "name = 'cryptocheckout'");
Db::getInstance()->execute('DELETE FROM ' . _DB_PREFIX_ . 'log');
`;
}

/** PHP: $ledgerRows(), every row of the ledger's checkouts, orders and refunds (not its throttle counters). */
export const LEDGER_ROWS_PHP = `
$ledgerRows = function () {
    $rows = [];
    foreach (['cryptocheckout_checkouts', 'cryptocheckout_orders', 'cryptocheckout_refunds'] as $table) {
        $rows[$table] = Db::getInstance()->executeS('SELECT * FROM ' . _DB_PREFIX_ . $table . ' ORDER BY 1');
    }
    return $rows;
};
`;

/**
 * PHP: the shop as release $release left it (its module row, settings, tables and rows, no ledger),
 * then PrestaShop's upgrade run; prints the ledger, the poll's due list, what is left of the old
 * tables, the upgrade step run a second time, and its ledger again.
 */
export function upgradeFromRelease(release: '1.0.1' | '1.2.0', extra = ''): string {
  const layout = release === '1.0.1' ? LAYOUT_1_0_PHP + ROWS_1_0_PHP : LAYOUT_1_2_PHP + ROWS_1_2_PHP;
  return `
Db::getInstance()->insert('module', ['name' => 'cryptocheckout', 'active' => 1, 'version' => ${phpString(release)}]);
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', 'https://pay.example.com');
Configuration::updateValue('CRYPTOCHECKOUT_DISPLAY_MODE', 'embedded');
Configuration::updateValue('CRYPTOCHECKOUT_LAST_WEBHOOK', '2026-11-20 10:00:00');
${layout}
$legacyRows = function () {
    $counts = [];
    foreach (['cryptocheckout_transaction', 'cryptocheckout_checkout', 'cryptocheckout_claim'] as $table) {
        if (Db::getInstance()->executeS("SHOW TABLES LIKE '" . _DB_PREFIX_ . $table . "'")) {
            $counts[$table] = (int) Db::getInstance()->getValue('SELECT COUNT(*) FROM ' . _DB_PREFIX_ . $table);
        }
    }
    return (object) $counts;
};
$module = Module::getInstanceByName('cryptocheckout');
$dump = function () use ($module) {
    $ledger = $module->kernel()->ledger();
    $orders = [];
    for ($id = 1; $id <= 7; $id++) {
        $orders[$id] = [
            'recorded' => $ledger->recordedState((string) $id),
            'checkouts' => array_map(function ($c) { return $c->toArray(); }, $ledger->checkouts((string) $id)),
        ];
    }
    return ['orders' => $orders, 'due' => $ledger->due(new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\PollPolicy(), time())];
};
$before = $legacyRows();
${extra}
$upgrade = $module->runUpgrades();
// After a refused upgrade the merchant turns the module on again (PrestaShop turned it off).
$enabled = isset($refused) ? $module->enable() : null;
$first = $dump();
$again = upgrade_module_1_3_0(Module::getInstanceByName('cryptocheckout'));
echo json_encode([
    'now' => $now,
    'before' => $before,
    'upgrade' => $upgrade,
    'errors' => $module->getErrors(),
    'version' => Db::getInstance()->getValue("SELECT version FROM " . _DB_PREFIX_ . "module WHERE name = 'cryptocheckout'"),
    'active' => (int) Db::getInstance()->getValue("SELECT active FROM " . _DB_PREFIX_ . "module WHERE name = 'cryptocheckout'"),
    'left' => $legacyRows(),
    'first' => $first,
    'again' => $again,
    'second' => $dump(),
    'display' => Configuration::get('CRYPTOCHECKOUT_DISPLAY_MODE'),
    'lastWebhookKey' => Configuration::hasKey('CRYPTOCHECKOUT_LAST_WEBHOOK'),
    'refused' => $refused ?? null,
    'enabled' => $enabled,
]);`;
}

type Row = Record<string, string | number | null>;
interface Dump {
  orders: Record<string, { recorded: string | null; checkouts: Row[] }>;
  due: string[][];
}
export interface UpgradeResult {
  now: number;
  before: Record<string, number>;
  upgrade: { success: boolean; upgraded_to: string | null; version_fail: string | null; ran: string[] };
  errors: string[];
  version: string;
  active: number;
  left: Record<string, number>;
  first: Dump;
  again: boolean;
  second: Dump;
  display: string;
  lastWebhookKey: boolean;
  enabled: boolean | null;
  refused: {
    upgrade: UpgradeResult['upgrade'];
    version: string;
    active: number;
    left: Record<string, number>;
    errors: string[];
    logged: Record<string, string>;
    enabledWhileRefused: boolean;
    activeWhileRefused: number;
  } | null;
}

/** What a completed upgrade must show, whichever release it started from. */
function expectCompleted(result: UpgradeResult, ran: string[]): void {
  expect(result.upgrade).toEqual({
    success: true,
    upgraded_to: ran.length === 0 ? null : '1.4.1',
    version_fail: null,
    ran,
  });
  expect(result.version).toBe('1.4.1');
  expect(result.active).toBe(1);
  expect(result.errors).toEqual([]);
  // The old tables are gone once every checkout arrived.
  expect(result.left).toEqual({});
  // A second run of the upgrade step changes nothing.
  expect(result.again).toBe(true);
  expect(result.second).toEqual(result.first);
  expect(result.display).toBe('modal');
  expect(result.lastWebhookKey).toBe(false);
}

const checkoutsOf = (dump: Dump, id: number) => dump.orders[String(id)]!.checkouts;
const dueOrders = (dump: Dump) => [...new Set(dump.due.map(([id]) => id))].sort();

export function expectUpgradeFrom10(result: UpgradeResult): void {
  expectCompleted(result, ['1.1.0', '1.3.0', '1.4.0', '1.4.1']);
  expect(result.before).toEqual({ cryptocheckout_transaction: 6 });
  const { first, now } = result;
  const recent = now - 600;
  // The awaiting order's checkout, every field from the row (dates read in the shop's time zone).
  expect(checkoutsOf(first, 1)).toEqual([
    {
      transaction_code: 'aaaaaaaa-0000-4000-8000-000000000001',
      checkout_url: 'https://pay.example.com/pay/aaaaaaaa-0000-4000-8000-000000000001',
      service_url: 'https://pay.example.com',
      fiat_amount: '25.00',
      fiat_currency: 'EUR',
      wallet_address: WALLET,
      wallet_currency: 'USDC',
      wallet_network: 'POLYGON',
      order_amount: null,
      order_currency: null,
      created_at: recent,
      ordinal: 1,
      expires_at: null,
      watch_until: expect.any(Number),
      checked_at: recent,
      last_status: 'pending',
      received_usd: null,
      applied_action: null,
      resolution: null,
      notified: null,
      confirmed_at: null,
    },
  ]);
  // No expiry was kept: the poll gets at least one look, which brings the real one.
  expect(checkoutsOf(first, 1)[0]!.watch_until).toBeGreaterThanOrEqual(now + 3600);
  const outcome = (id: number) => [
    first.orders[String(id)]!.recorded,
    checkoutsOf(first, id)[0]?.applied_action,
    checkoutsOf(first, id)[0]?.resolution,
  ];
  expect(outcome(1)).toEqual([null, null, null]);
  expect(outcome(2)).toEqual(['paid', 'mark_paid', 'booked']);
  expect(outcome(3)).toEqual(['late_payment_review', 'hold_late_payment', 'flagged']);
  expect(outcome(4)).toEqual(['cancelled', 'cancel_expired', null]);
  expect(outcome(5)).toEqual(['underpaid', 'hold_underpaid', null]);
  // A row without a code never reached the service: nothing to keep.
  expect(checkoutsOf(first, 6)).toEqual([]);
  // Paid stays paid, and is looked at once more by the first poll (an order an earlier version left
  // unpaid with its payment booked is repaired then); what was open is watched.
  expect(checkoutsOf(first, 2)[0]!.confirmed_at).toBeNull();
  expect(dueOrders(first)).toEqual(['1', '2', '4', '5']);
}

export function expectUpgradeFrom12(result: UpgradeResult, ran = ['1.3.0', '1.4.0', '1.4.1']): void {
  expectCompleted(result, ran);
  expect(result.before).toEqual({ cryptocheckout_checkout: 6, cryptocheckout_claim: 1 });
  const { first, now } = result;
  // Both checkouts of order 1, oldest first in the ledger's order (newest first when read), with
  // every field the release kept.
  expect(checkoutsOf(first, 1).map((c) => [c.transaction_code, c.ordinal, c.checked_at])).toEqual([
    ['bbbbbbbb-0000-4000-8000-000000000012', 2, null],
    ['bbbbbbbb-0000-4000-8000-000000000011', 1, now - 1100],
  ]);
  expect(checkoutsOf(first, 1)[0]).toMatchObject({
    created_at: now - 600,
    expires_at: now - 600 + 3600,
    watch_until: now - 600 + 3600 + 25 * 3600,
    last_status: 'pending',
    service_url: 'https://pay.example.com',
  });
  expect(checkoutsOf(first, 5)[0]).toMatchObject({
    received_usd: '13.5',
    applied_action: 'hold_underpaid',
    resolution: null,
  });
  const recorded = Object.fromEntries(
    Object.entries(first.orders).map(([id, order]) => [id, order.recorded]),
  );
  expect(recorded).toEqual({
    1: null,
    2: 'paid',
    3: 'late_payment_review',
    4: 'cancelled',
    5: 'underpaid',
    6: null,
    7: null,
  });
  expect(checkoutsOf(first, 2)[0]).toMatchObject({ resolution: 'booked', confirmed_at: null });
  // Open ones (order 1's two checkouts, order 5) and the cancelled one in its late window are
  // watched, the paid one is looked at once more; the flagged one is not.
  expect(first.due.map(([, code]) => code).sort()).toEqual([
    'bbbbbbbb-0000-4000-8000-000000000002',
    'bbbbbbbb-0000-4000-8000-000000000004',
    'bbbbbbbb-0000-4000-8000-000000000005',
    'bbbbbbbb-0000-4000-8000-000000000011',
    'bbbbbbbb-0000-4000-8000-000000000012',
  ]);
}

/**
 * PHP for upgradeFromRelease()'s `extra`: the ledger exists, and the database refuses to record
 * the state of order 3 (a trigger, in the database's own dialect).
 */
export function refuseOrder3(trigger: string): string {
  return `
$module->kernel()->ledger()->install();
Db::getInstance()->execute(${phpString(trigger)});
$refused = [
    'upgrade' => $module->runUpgrades(),
    'version' => Db::getInstance()->getValue("SELECT version FROM " . _DB_PREFIX_ . "module WHERE name = 'cryptocheckout'"),
    'active' => (int) Db::getInstance()->getValue("SELECT active FROM " . _DB_PREFIX_ . "module WHERE name = 'cryptocheckout'"),
    'left' => $legacyRows(),
    'errors' => $module->getErrors(),
    'logged' => array_column(Db::getInstance()->executeS('SELECT severity, message FROM ' . _DB_PREFIX_ . "log WHERE message LIKE 'Crypto Checkout:%' ORDER BY id_log"), 'message', 'severity'),
];
// Turning the module on while the database still refuses keeps it off.
$refused['enabledWhileRefused'] = Module::getInstanceByName('cryptocheckout')->enable();
$refused['activeWhileRefused'] = (int) Db::getInstance()->getValue("SELECT active FROM " . _DB_PREFIX_ . "module WHERE name = 'cryptocheckout'");
// The merchant removes the cause.
Db::getInstance()->execute('DROP TRIGGER cryptocheckout_refuse');
$module = Module::getInstanceByName('cryptocheckout');
`;
}

export const REFUSE_TRIGGER_SQLITE =
  "CREATE TRIGGER cryptocheckout_refuse BEFORE UPDATE ON ps_cryptocheckout_orders WHEN NEW.order_id = '3' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END";
export const REFUSE_TRIGGER_MARIADB =
  "CREATE TRIGGER cryptocheckout_refuse BEFORE UPDATE ON ps_cryptocheckout_orders FOR EACH ROW BEGIN IF NEW.order_id = '3' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END";

/** The refused upgrade left the old tables whole and said why; the next run completed it. */
export function expectRefusedThenCompleted(result: UpgradeResult): void {
  const refused = result.refused!;
  expect(refused.upgrade).toEqual({
    success: false,
    upgraded_to: null,
    version_fail: '1.3.0',
    ran: ['1.3.0'],
  });
  // The release's tables are all there, with every row; PrestaShop turned the module off (and,
  // as 8.1 does, recorded the new version anyway, so no upload runs the script again).
  expect(refused).toMatchObject({
    version: '1.4.1',
    active: 0,
    left: { cryptocheckout_checkout: 6, cryptocheckout_claim: 1 },
  });
  expect(refused.errors.join(' ')).toContain('refused by the test');
  expect(refused.errors.join(' ')).toContain('the old tables are kept. Turn the module on again to retry.');
  expect(refused.logged['3']).toContain(
    "Crypto Checkout: The module's tables could not be brought up to date for version 1.4.1: Moving the checkouts to the new tables failed:",
  );
  expect(refused.logged['3']).toContain('refused by the test');
  expect(refused).toMatchObject({ enabledWhileRefused: false, activeWhileRefused: 0 });
  // Turning it on again moved the rest: nothing left to upgrade, everything in the ledger.
  expect(result.enabled).toBe(true);
  expectUpgradeFrom12(result, []);
}
