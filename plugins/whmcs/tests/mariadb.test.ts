import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';
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
import { MODULE_ROOT, VENDOR_DIR, VENDOR_NAMESPACE, WHMCS_GUARD } from './harness/harness.js';
import { DUE_SCENARIO_PHP } from './storage-scenarios.js';

// The module's schema and queries as written, on a real MariaDB from Debian (WHMCS runs on
// MySQL/MariaDB; gateway.test.ts uses the harness's SQLite in php-wasm, which has no MySQL driver).
// These scripts run in Debian's PHP CLI with pdo_mysql, through the harness's Capsule in its MySQL
// mode (Capsule::bootMysql: what Laravel 8/9's MySQL grammar and connector do), each test on a
// fresh database. Several PHP processes at once stand for WHMCS serving several requests at once.

// Skipped on a machine without MariaDB; on CI this throws rather than skip.
const unavailable = mariaDbUnavailable();

const HARNESS_DIR = fileURLToPath(new URL('./harness/whmcs/harness/', import.meta.url));
const TABLE = 'mod_cryptocheckout_transactions';
const SETTINGS_TABLE = 'mod_cryptocheckout_settings';

let root: string;
let php: string;
let mariadb: MariaDb;
let databases = 0;

beforeAll(async () => {
  if (unavailable !== null) return;
  php = findDebianPhp();
  root = mkdtempSync(join(tmpdir(), 'whmcs-mariadb-'));
  cpSync(MODULE_ROOT, join(root, 'module'), {
    recursive: true,
    filter: (source) => !source.includes(join('cryptocheckout', 'lib', 'Vendor')),
  });
  await copyPhpClient({
    dest: join(root, 'module', VENDOR_DIR),
    namespace: VENDOR_NAMESPACE,
    guard: WHMCS_GUARD,
  });
  mariadb = await startMariaDb();
}, 120_000);

afterAll(async () => {
  await mariadb?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * A fresh database holding the WHMCS table the module's queries read here (tblaccounts, in WHMCS
 * 8's MySQL spelling), and none of the module's.
 */
function freshDatabase(): string {
  const database = `whmcs_${++databases}`;
  const answer = runPhpCliSync(
    php,
    `<?php
$admin = new PDO(${phpString(mariadb.dsn)}, ${phpString(mariadb.user)}, ${phpString(mariadb.password)}, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
$admin->exec('CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
$admin->exec('USE \`${database}\`');
$admin->exec("CREATE TABLE tblaccounts (
    id INT(10) NOT NULL AUTO_INCREMENT, userid INT(10) NOT NULL, currency INT(10) NOT NULL, gateway TEXT NOT NULL,
    date DATETIME DEFAULT NULL, description TEXT NOT NULL, amountin DECIMAL(16,2) NOT NULL DEFAULT '0.00',
    fees DECIMAL(16,2) NOT NULL DEFAULT '0.00', amountout DECIMAL(16,2) NOT NULL DEFAULT '0.00',
    rate DECIMAL(16,5) NOT NULL DEFAULT '1.00000', transid TEXT NOT NULL, invoiceid INT(10) NOT NULL DEFAULT '0',
    refundid INT(10) NOT NULL DEFAULT '0',
    PRIMARY KEY (id), KEY invoiceid (invoiceid), KEY userid (userid), KEY date (date), KEY transid (transid(32))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci");
echo json_encode(true);`,
  );
  phpCliJson(answer);
  return database;
}

/** The harness in MySQL mode on `database`, the module's autoloader, then `code`. */
function script(database: string, code: string, startAt?: number): string {
  const dsn = mariadb.dsn.replace(`dbname=${mariadb.database}`, `dbname=${database}`);
  const classes = [
    'Capsule',
    'Connection',
    'QueryBuilder',
    'Collection',
    'SchemaBuilder',
    'Blueprint',
    'ColumnDefinition',
  ];
  return `<?php
error_reporting(E_ALL);
set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $severity, $file, $line);
});
define('WHMCS', true);
foreach (json_decode(${phpString(JSON.stringify(classes))}) as $class) {
    require_once ${phpString(HARNESS_DIR)} . $class . '.php';
}
require_once ${phpString(join(HARNESS_DIR, 'functions.php'))};
WHMCS\\Database\\Capsule::bootMysql(${phpString(dsn)}, ${phpString(mariadb.user)}, ${phpString(mariadb.password)});
require_once ${phpString(join(root, 'module/modules/gateways/cryptocheckout/autoload.php'))};
function harness_reset_store(): void
{
    $ready = new ReflectionProperty(CryptoCheckout\\Whmcs\\TransactionStore::class, 'ready');
    if (PHP_VERSION_ID < 80100) {
        $ready->setAccessible(true);
    }
    $ready->setValue(null, false);
}
/** What MariaDB holds of the module's tables. */
function harness_describe(): array
{
    $pdo = WHMCS\\Database\\Capsule::connection()->getPdo();
    $described = [];
    foreach ([${phpString(TABLE)}, ${phpString(SETTINGS_TABLE)}] as $table) {
        $columns = [];
        foreach ($pdo->query('SHOW COLUMNS FROM ' . $table)->fetchAll(PDO::FETCH_ASSOC) as $column) {
            $columns[$column['Field']] = $column['Type'] . ($column['Null'] === 'YES' ? ' null' : ' not null') . ($column['Extra'] === '' ? '' : ' ' . $column['Extra']);
        }
        $keys = [];
        foreach ($pdo->query('SHOW INDEX FROM ' . $table)->fetchAll(PDO::FETCH_ASSOC) as $key) {
            $keys[$key['Key_name']][] = ((int) $key['Non_unique'] === 0 ? 'unique ' : '') . $key['Column_name'];
        }
        $status = $pdo->query("SELECT ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" . $table . "'")->fetch(PDO::FETCH_ASSOC);
        $described[$table] = ['columns' => $columns, 'keys' => $keys, 'engine' => $status['ENGINE'], 'collation' => $status['TABLE_COLLATION']];
    }
    $described['settings'] = $pdo->query('SELECT setting, COUNT(*) AS n FROM ${SETTINGS_TABLE} GROUP BY setting ORDER BY setting')->fetchAll(PDO::FETCH_KEY_PAIR);
    return $described;
}
${
  startAt === undefined
    ? ''
    : `$late = microtime(true) - ${startAt / 1000};
if ($late < 0) {
    time_sleep_until(${startAt / 1000});
}
`
}${code}`;
}

/** Runs `code` in one PHP process on `database`; returns the JSON it prints. */
async function run(database: string, code: string): Promise<unknown> {
  return phpCliJson(await runPhpCli(php, script(database, code)));
}

/**
 * Runs `code` in `count` PHP processes on `database`, all started first and then let go at the
 * same moment (each has connected and loaded everything, and sleeps until then); returns what
 * each printed, in the order of the processes. `$late` in `code` is how late the process was at
 * the start (negative: it waited).
 */
async function runTogether(database: string, count: number, code: string): Promise<unknown[]> {
  const startAt = Date.now() + 1500;
  const answers = await Promise.all(
    Array.from({ length: count }, () => runPhpCli(php, script(database, code, startAt))),
  );
  return answers.map(phpCliJson);
}

const STORE = 'CryptoCheckout\\Whmcs\\TransactionStore';

/** The columns and keys the module creates, as MariaDB reports them. */
const CREATED_TRANSACTIONS = {
  columns: {
    id: 'int(10) unsigned not null auto_increment',
    invoice_id: 'int(11) not null',
    transaction_code: 'varchar(64) not null',
    checkout_url: 'varchar(2048) not null',
    fiat_amount: 'varchar(32) not null',
    fiat_currency: 'varchar(3) not null',
    invoice_amount: 'varchar(32) not null',
    invoice_currency: 'varchar(3) not null',
    wallet_address: 'varchar(128) not null',
    wallet_currency: 'varchar(16) not null',
    wallet_network: 'varchar(16) not null',
    state: 'varchar(32) not null',
    note: 'text null',
    expires_at: 'varchar(32) null',
    checked_at: 'varchar(32) null',
    created_at: 'varchar(32) not null',
    updated_at: 'varchar(32) not null',
    service_url: 'varchar(2048) null',
    watch_until: 'varchar(32) null',
    last_status: 'varchar(32) null',
    received_usd: 'varchar(40) null',
    applied_action: 'varchar(32) null',
    resolution: 'varchar(16) null',
    notified_action: 'varchar(32) null',
  },
  keys: {
    PRIMARY: ['unique id'],
    mod_cryptocheckout_transactions_transaction_code_unique: ['unique transaction_code'],
    mod_cryptocheckout_transactions_invoice_id_index: ['invoice_id'],
    mod_cryptocheckout_transactions_state_index: ['state'],
    mod_cryptocheckout_transactions_watch_until_index: ['watch_until'],
  },
  engine: 'InnoDB',
  collation: 'utf8mb4_unicode_ci',
};

const CREATED_SETTINGS = {
  columns: { setting: 'varchar(64) not null', value: 'text not null' },
  keys: { mod_cryptocheckout_settings_setting_unique: ['unique setting'] },
  engine: 'InnoDB',
  collation: 'utf8mb4_unicode_ci',
};

/** A row for TransactionStore::insert(). */
const ROW_PHP = `function harness_row(int $invoiceId, string $code, array $fields = []): array
{
    return $fields + [
        'invoice_id' => $invoiceId, 'transaction_code' => $code, 'checkout_url' => 'https://pay.example/pay/' . $code,
        'service_url' => 'https://pay.example', 'fiat_amount' => '10.00', 'fiat_currency' => 'EUR', 'invoice_amount' => '10.00',
        'invoice_currency' => 'EUR', 'wallet_address' => '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'wallet_currency' => 'USDC',
        'wallet_network' => 'POLYGON', 'state' => 'awaiting_payment',
    ];
}
`;

/** The module's ports over the store, as Gateway builds them (InvoicePort reads through the store). */
const PORT_PHP = `$settings = CryptoCheckout\\Whmcs\\Settings::fromParams(['walletAddress' => '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'serviceUrl' => 'https://pay.example']);
$ledger = new CryptoCheckout\\Whmcs\\InvoiceLedger($settings);
$port = new CryptoCheckout\\Whmcs\\InvoicePort($store, $ledger, $settings);
`;

/** A fresh database with the module's tables as 0.1 had Laravel create them on MySQL, and 4 rows. */
async function legacyDatabase(): Promise<string> {
  const database = freshDatabase();
  await run(
    database,
    `$pdo = WHMCS\\Database\\Capsule::connection()->getPdo();
$pdo->exec("CREATE TABLE \`${TABLE}\` (\`id\` int unsigned not null auto_increment primary key, \`invoice_id\` int not null,
  \`transaction_code\` varchar(64) not null, \`checkout_url\` varchar(2048) not null, \`fiat_amount\` varchar(32) not null,
  \`fiat_currency\` varchar(3) not null, \`invoice_amount\` varchar(32) not null, \`invoice_currency\` varchar(3) not null,
  \`wallet_address\` varchar(128) not null, \`wallet_currency\` varchar(16) not null, \`wallet_network\` varchar(16) not null,
  \`state\` varchar(32) not null, \`note\` text null, \`expires_at\` varchar(32) null, \`checked_at\` varchar(32) null,
  \`created_at\` varchar(32) not null, \`updated_at\` varchar(32) not null)
  default character set utf8mb4 collate 'utf8mb4_unicode_ci'");
$pdo->exec('alter table \`${TABLE}\` add index \`${TABLE}_invoice_id_index\`(\`invoice_id\`)');
$pdo->exec('alter table \`${TABLE}\` add unique \`${TABLE}_transaction_code_unique\`(\`transaction_code\`)');
$pdo->exec('alter table \`${TABLE}\` add index \`${TABLE}_state_index\`(\`state\`)');
$pdo->exec("create table \`${SETTINGS_TABLE}\` (\`setting\` varchar(64) not null, \`value\` text not null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'");
$pdo->exec('alter table \`${SETTINGS_TABLE}\` add unique \`${SETTINGS_TABLE}_setting_unique\`(\`setting\`)');
$pdo->exec("INSERT INTO ${SETTINGS_TABLE} (setting, value) VALUES ('signing_key', 'abc')");
$legacy = function (int $invoiceId, string $code, string $state, ?string $expiresAt): array {
  return ['invoice_id' => $invoiceId, 'transaction_code' => $code, 'checkout_url' => 'https://pay.example/pay/' . $code,
      'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'invoice_amount' => '25.00', 'invoice_currency' => 'EUR',
      'wallet_address' => '0xabc', 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'state' => $state,
      'note' => null, 'expires_at' => $expiresAt, 'checked_at' => null, 'created_at' => '2026-01-01 10:00:00', 'updated_at' => '2026-01-01 10:00:00'];
};
foreach ([
  $legacy(9001, '11111111-1111-4111-8111-111111111111', 'paid', '2026-01-01T11:00:00.000Z'),
  $legacy(9002, '22222222-2222-4222-8222-222222222222', 'late_payment_review', '2026-01-01T11:00:00.000Z'),
  $legacy(9003, '33333333-3333-4333-8333-333333333333', 'cancelled', '2026-01-01T10:30:00Z'),
  $legacy(9004, '44444444-4444-4444-8444-444444444444', 'awaiting_payment', null),
] as $row) {
  WHMCS\\Database\\Capsule::table(${phpString(TABLE)})->insert($row);
}
echo json_encode(true);`,
  );
  return database;
}

/** The 4 legacy rows once upgraded: [expires_at, watch_until, resolution, applied_action, notified_action]. */
const UPGRADED_ROWS = [
  ['2026-01-01 11:00:00', '2026-01-02 12:00:00', 'booked', 'mark_paid', null],
  ['2026-01-01 11:00:00', '2026-01-02 12:00:00', 'flagged', 'hold_late_payment', 'hold_late_payment'],
  ['2026-01-01 10:30:00', '2026-01-02 11:30:00', null, null, null],
  ['2026-01-01 11:00:00', '2026-01-02 12:00:00', null, null, null],
];
const ROWS_PHP = `WHMCS\\Database\\Capsule::table(${phpString(TABLE)})->orderBy('id')->get()->all()`;
const upgradedFields = (rows: Array<Record<string, unknown>>) =>
  rows.map((row) => [
    row.expires_at,
    row.watch_until,
    row.resolution,
    row.applied_action,
    row.notified_action,
  ]);

/** Both tables as the module creates them, keys included, one version row and one signing key. */
async function expectCreatedOnceWithOneSigningKey(database: string): Promise<void> {
  expect(await run(database, 'echo json_encode(harness_describe());')).toEqual({
    [TABLE]: CREATED_TRANSACTIONS,
    [SETTINGS_TABLE]: CREATED_SETTINGS,
    settings: { schema_version: 1, signing_key: 1 },
  });
}

describe.skipIf(unavailable !== null)('the module SQL on MariaDB', () => {
  it('creates both tables with the columns and keys it relies on; a second construction changes nothing', async () => {
    const database = freshDatabase();
    const first = (await run(
      database,
      `$store = new ${STORE}();
$once = harness_describe();
harness_reset_store();
new ${STORE}();
echo json_encode(['described' => $once, 'again' => harness_describe(), 'version' => $store->setting('schema_version')]);`,
    )) as { described: Record<string, unknown>; again: unknown; version: string };
    expect(first.described).toEqual({
      [TABLE]: CREATED_TRANSACTIONS,
      [SETTINGS_TABLE]: CREATED_SETTINGS,
      settings: { schema_version: 1 },
    });
    expect(first.again).toEqual(first.described);
    expect(first.version).toBe('2');

    // Another request, later: the tables are there and up to date.
    const second = await run(database, `new ${STORE}(); echo json_encode(harness_describe());`);
    expect(second).toEqual(first.described);
  });

  it('lets 8 requests create the tables at the same moment on a fresh install', async () => {
    // Repeated on fresh databases: the window between creating a table and adding its keys is short.
    for (let round = 0; round < 3; round++) {
      const database = freshDatabase();
      const answers = (await runTogether(
        database,
        8,
        `$store = new ${STORE}();
$key = $store->settingOnce('signing_key', bin2hex(random_bytes(32)));
echo json_encode(['late' => $late, 'version' => $store->setting('schema_version'), 'key' => $key]);`,
      )) as Array<{ late: number; version: string; key: string }>;
      // Every process was ready before the start, so they really went at once.
      expect(answers.every((answer) => answer.late < 0)).toBe(true);
      expect(answers.map((answer) => answer.version)).toEqual(Array(8).fill('2'));
      // One signing key for everyone: the unique key on "setting" held from the first insert.
      expect(new Set(answers.map((answer) => answer.key)).size).toBe(1);
      await expectCreatedOnceWithOneSigningKey(database);
    }
  }, 60_000);

  // Laravel adds a table's keys with statements of their own after "create table": a request that
  // found the settings table created but not yet keyed would insert its schema_version (or signing
  // key) beside another's, the creator's "add unique" would fail on the duplicates, and the claims
  // would lose the key that makes them atomic. A database that takes 50 ms per DDL statement showed
  // it nearly every round; the module now creates that table with its key in one statement.
  it('keeps the unique key on the settings when the database is slow to write DDL', async () => {
    for (let round = 0; round < 5; round++) {
      const database = freshDatabase();
      await runTogether(
        database,
        8,
        `WHMCS\\Database\\SchemaBuilder::$pauseAfterStatement = 50000;
$store = new ${STORE}();
$store->settingOnce('signing_key', bin2hex(random_bytes(32)));
echo json_encode(true);`,
      );
      await expectCreatedOnceWithOneSigningKey(database);
    }
  }, 30_000);

  it('upgrades a 0.1 install: adds the missing columns once and completes its rows', async () => {
    const database = await legacyDatabase();

    const upgraded = (await run(
      database,
      `// Another request adds the first missing column at the same moment.
harness_before_schema_change(function () {
    WHMCS\\Database\\Capsule::connection()->getPdo()->exec('ALTER TABLE ${TABLE} ADD COLUMN service_url VARCHAR(2048) NULL');
});
$store = new ${STORE}();
echo json_encode(['described' => harness_describe(), 'rows' => ${ROWS_PHP}]);`,
    )) as { described: unknown; rows: Array<Record<string, unknown>> };
    expect(upgraded.described).toEqual({
      [TABLE]: CREATED_TRANSACTIONS,
      [SETTINGS_TABLE]: CREATED_SETTINGS,
      settings: { schema_version: 1, signing_key: 1 },
    });
    expect(upgradedFields(upgraded.rows)).toEqual(UPGRADED_ROWS);
    // Integer columns come back as PHP ints on MySQL with Laravel's connection options.
    expect(upgraded.rows[0]).toMatchObject({ id: 1, invoice_id: 9001, state: 'paid' });

    // The next request (and one that starts over) finds nothing to do.
    const again = await run(
      database,
      `new ${STORE}();
harness_reset_store();
$store = new ${STORE}();
echo json_encode(['described' => harness_describe(), 'rows' => ${ROWS_PHP}, 'version' => $store->setting('schema_version')]);`,
    );
    expect(again).toEqual({ ...upgraded, version: '2' });
  });

  it('lets 8 requests upgrade a 0.1 install at the same moment', async () => {
    const database = await legacyDatabase();
    const answers = (await runTogether(
      database,
      8,
      `$store = new ${STORE}();
echo json_encode(['late' => $late, 'version' => $store->setting('schema_version')]);`,
    )) as Array<{ late: number; version: string }>;
    expect(answers.every((answer) => answer.late < 0)).toBe(true);
    expect(answers.map((answer) => answer.version)).toEqual(Array(8).fill('2'));
    const after = (await run(
      database,
      `echo json_encode(['described' => harness_describe(), 'rows' => ${ROWS_PHP}]);`,
    )) as {
      described: unknown;
      rows: Array<Record<string, unknown>>;
    };
    expect(after.described).toEqual({
      [TABLE]: CREATED_TRANSACTIONS,
      [SETTINGS_TABLE]: CREATED_SETTINGS,
      settings: { schema_version: 1, signing_key: 1 },
    });
    expect(upgradedFields(after.rows)).toEqual(UPGRADED_ROWS);
  }, 30_000);

  it('swaps a setting atomically: exactly one of several identical swaps wins', async () => {
    const database = freshDatabase();
    await run(database, `new ${STORE}(); echo json_encode(true);`);
    const sequence = await run(
      database,
      `$store = new ${STORE}();
echo json_encode([
    'first' => $store->swapSetting('claim:7', null, 'a|x|1|one'),
    'second' => $store->swapSetting('claim:7', null, 'b|x|1|two'),
    'held' => $store->setting('claim:7'),
    'wrongSwap' => $store->swapSetting('claim:7', 'b|x|1|two', 'c|x|2|three'),
    'swap' => $store->swapSetting('claim:7', 'a|x|1|one', 'c|x|2|three'),
    'swapAgain' => $store->swapSetting('claim:7', 'a|x|1|one', 'c|x|2|three'),
    'swapped' => $store->setting('claim:7'),
    'wrongRelease' => $store->swapSetting('claim:7', 'a|x|1|one', null),
    'release' => $store->swapSetting('claim:7', 'c|x|2|three', null),
    'releaseAgain' => $store->swapSetting('claim:7', 'c|x|2|three', null),
    'free' => $store->setting('claim:7'),
    'absentStaysAbsent' => $store->swapSetting('claim:8', null, null),
    'presentIsNotAbsent' => [$store->swapSetting('claim:9', null, 'd|x|3|four'), $store->swapSetting('claim:9', null, null)],
]);`,
    );
    expect(sequence).toEqual({
      first: true,
      second: false,
      held: 'a|x|1|one',
      wrongSwap: false,
      swap: true,
      swapAgain: false,
      swapped: 'c|x|2|three',
      wrongRelease: false,
      release: true,
      releaseAgain: false,
      free: null,
      absentStaysAbsent: true,
      presentIsNotAbsent: [true, false],
    });

    // The same swaps from 8 requests at the same moment (absent to a marker, a marker to another,
    // a marker to absent): one winner each time.
    await run(
      database,
      `$store = new ${STORE}();
echo json_encode([$store->swapSetting('claim:43', null, 'mark_paid|x|1|held'), $store->swapSetting('claim:44', null, 'mark_paid|x|1|held')]);`,
    );
    const swaps = (await runTogether(
      database,
      8,
      `$store = new ${STORE}();
$mine = 'mark_paid|x|2|' . bin2hex(random_bytes(6));
echo json_encode([
    'late' => $late,
    'took' => $store->swapSetting('claim:42', null, $mine),
    'moved' => $store->swapSetting('claim:43', 'mark_paid|x|1|held', $mine),
    'released' => $store->swapSetting('claim:44', 'mark_paid|x|1|held', null),
    'mine' => $mine,
]);`,
    )) as Array<{ late: number; took: boolean; moved: boolean; released: boolean; mine: string }>;
    expect(swaps.every((swap) => swap.late < 0)).toBe(true);
    const winners = (won: (swap: (typeof swaps)[number]) => boolean) =>
      swaps.filter(won).map((swap) => swap.mine);
    expect(winners((swap) => swap.took)).toHaveLength(1);
    expect(winners((swap) => swap.moved)).toHaveLength(1);
    expect(winners((swap) => swap.released)).toHaveLength(1);
    expect(
      await run(
        database,
        `$store = new ${STORE}(); echo json_encode([$store->setting('claim:42'), $store->setting('claim:43'), $store->setting('claim:44')]);`,
      ),
    ).toEqual([winners((swap) => swap.took)[0], winners((swap) => swap.moved)[0], null]);
  }, 30_000);

  it('stores checkouts: conditional updates report once, settingOnce keeps the first value, lookups by code and invoice', async () => {
    const database = freshDatabase();
    const result = (await run(
      database,
      `${ROW_PHP}
$store = new ${STORE}();
${PORT_PHP}
$code = 'aaaaaaaa-0000-4000-8000-000000000001';
$store->insert(harness_row(5, $code, ['created_at' => '2026-03-01 10:00:00']));
$store->insert(harness_row(5, 'aaaaaaaa-0000-4000-8000-000000000002', ['created_at' => '2026-03-01 09:00:00']));
$store->insert(harness_row(5, 'aaaaaaaa-0000-4000-8000-000000000003', ['created_at' => '2026-03-01 10:00:00']));
$store->insert(harness_row(6, 'aaaaaaaa-0000-4000-8000-000000000004', ['created_at' => '2026-03-02 10:00:00']));
$duplicate = null;
try {
    $store->insert(harness_row(7, $code));
} catch (Throwable $error) {
    $duplicate = get_class($error);
}
$byCode = $store->findByCode(' AAAAAAAA-0000-4000-8000-000000000001 ');
echo json_encode([
    'duplicate' => $duplicate,
    'found' => [$byCode->invoice_id, $byCode->transaction_code],
    'missing' => $store->findByCode('bbbbbbbb-0000-4000-8000-000000000000'),
    'order' => $port->findOrderByTransactionCode(strtoupper($code)),
    'forInvoice' => array_map(function ($row) { return $row->transaction_code; }, $store->forInvoice(5)),
    'checkouts' => array_map(function ($checkout) { return $checkout->transactionCode; }, $port->checkouts('5')),
    'stateOnce' => [
        $store->update(strtoupper($code), ['state' => 'underpaid', 'note' => 'short'], 'state', 'underpaid'),
        $store->update($code, ['state' => 'underpaid', 'note' => 'short'], 'state', 'underpaid'),
    ],
    'notifiedOnce' => [
        $store->update($code, ['notified_action' => 'hold_late_payment'], 'notified_action', 'hold_late_payment'),
        $store->update($code, ['notified_action' => 'hold_late_payment'], 'notified_action', 'hold_late_payment'),
        $store->update($code, ['notified_action' => 'flag_extra_payment'], 'notified_action', 'flag_extra_payment'),
    ],
    'unknownCode' => $store->update('bbbbbbbb-0000-4000-8000-000000000000', ['state' => 'paid'], 'state', 'paid'),
    // MySQL counts the rows an UPDATE changed (Laravel sets no PDO::MYSQL_ATTR_FOUND_ROWS): 0 here.
    'sameValues' => WHMCS\\Database\\Capsule::table(${phpString(TABLE)})->where('transaction_code', $code)->update(['state' => 'underpaid']),
    'row' => $store->findByCode($code),
    'key' => [$store->settingOnce('signing_key', 'first'), $store->settingOnce('signing_key', 'second'), $store->setting('signing_key')],
]);`,
    )) as Record<string, unknown>;
    expect(result.duplicate).not.toBeNull();
    expect(result.found).toEqual([5, 'aaaaaaaa-0000-4000-8000-000000000001']);
    expect(result.missing).toBeNull();
    expect(result.order).toBe('5');
    // Newest first; the same creation time: the later row first.
    const newestFirst = [
      'aaaaaaaa-0000-4000-8000-000000000003',
      'aaaaaaaa-0000-4000-8000-000000000001',
      'aaaaaaaa-0000-4000-8000-000000000002',
    ];
    expect(result.forInvoice).toEqual(newestFirst);
    expect(result.checkouts).toEqual(newestFirst);
    expect(result.stateOnce).toEqual([true, false]);
    expect(result.notifiedOnce).toEqual([true, false, true]);
    expect(result.unknownCode).toBe(false);
    expect(result.sameValues).toBe(0);
    expect(result.row).toMatchObject({
      state: 'underpaid',
      note: 'short',
      notified_action: 'flag_extra_payment',
    });
    expect(result.key).toEqual(['first', 'first', 'first']);
  });

  it('selects due checkouts in the query, in the order of the kernel reference (PollPolicy::select)', async () => {
    const database = freshDatabase();
    // The scenario of the same test in gateway.test.ts, then 80 random checkouts at several batch sizes.
    const picked = (await run(
      database,
      `${ROW_PHP}
use CryptoCheckout\\Whmcs\\TransactionStore;
use CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\PollPolicy;
use CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\StoredCheckout;
$store = new TransactionStore();
${PORT_PHP}
$now = time();
${DUE_SCENARIO_PHP}
$compare = function (array $batches) use ($port, $now): array {
    $entries = [];
    foreach (WHMCS\\Database\\Capsule::table(TransactionStore::TABLE)->get() as $row) {
        $entries[] = [(string) $row->invoice_id, StoredCheckout::fromArray($row)];
    }
    $compared = [];
    foreach ($batches as $batch) {
        $policy = new PollPolicy($batch);
        $compared[] = ['batch' => $batch, 'port' => $port->dueCheckouts($policy, $now), 'reference' => $policy->select($entries, $now)];
    }
    return $compared;
};
$gateway = $compare([7]);
mt_srand(7);
$pick = function (array $choices) { return $choices[mt_rand(0, count($choices) - 1)]; };
for ($i = 1; $i <= 80; $i++) {
    // Open, in its late window, or long over (WHMCS always stores an expiry: fromCreated defaults it).
    $expiresAt = $pick([$now + 600, $now - 3600, $now - 3 * 86400]);
    $store->insert(harness_row(1 + $i % 9, sprintf('cccccccc-0000-4000-8000-%012d', $i), [
        'expires_at' => TransactionStore::time($expiresAt),
        'watch_until' => TransactionStore::time(StoredCheckout::watchDeadline($expiresAt)),
        'checked_at' => TransactionStore::time($pick([null, $now - 30, $now - 60, $now - 90, $now - 599, $now - 600, $now - 7200])),
        'resolution' => $pick([null, null, null, 'booked', 'flagged']),
        'created_at' => TransactionStore::time($now - 5 * 86400 + $i * 3700),
    ]));
}
echo json_encode(['gateway' => $gateway, 'random' => $compare([1, 3, 10, 50, 200])]);`,
    )) as Record<'gateway' | 'random', Array<{ batch: number; port: string[][]; reference: string[][] }>>;
    const [gateway] = picked.gateway;
    expect(gateway?.port).toHaveLength(7);
    expect(gateway?.port).toEqual(gateway?.reference);
    for (const { batch, port, reference } of picked.random) {
      expect(port, `batch ${batch}`).toEqual(reference);
      expect(port.length, `batch ${batch}`).toBe(Math.min(batch, picked.random.at(-1)!.reference.length));
    }
    // Enough of them are due, and enough are not, for the comparison to mean something.
    expect(picked.random.at(-1)!.reference.length).toBeGreaterThan(20);
    expect(picked.random.at(-1)!.reference.length).toBeLessThan(110);
  });

  it('finds a payment in tblaccounts (decimal amounts, text transid) by its transaction code', async () => {
    const database = freshDatabase();
    const result = await run(
      database,
      `$store = new ${STORE}();
${PORT_PHP}
$pdo = WHMCS\\Database\\Capsule::connection()->getPdo();
$pdo->exec("INSERT INTO tblaccounts (userid, currency, gateway, date, description, amountin, fees, amountout, rate, transid, invoiceid, refundid)
    VALUES (1, 1, 'cryptocheckout', NOW(), 'Invoice Payment', 25.00, 0, 0, 1, 'cccccccc-0000-4000-8000-000000000009', 12, 0),
           (1, 1, 'banktransfer', NOW(), 'Invoice Payment', 10.00, 0, 0, 1, 'BANK-1', 13, 0)");
echo json_encode([
    'ledger' => [
        $ledger->isPaymentRecorded('cccccccc-0000-4000-8000-000000000009'),
        // The same first 32 characters (the length of tblaccounts' transid key), another code.
        $ledger->isPaymentRecorded('cccccccc-0000-4000-8000-000000000001'),
        $ledger->isPaymentRecorded('cccccccc-0000-4000-8000-00000000000'),
        $ledger->isPaymentRecorded(''),
    ],
    'port' => [
        $port->isPaymentBooked('12', 'CCCCCCCC-0000-4000-8000-000000000009'),
        $port->isPaymentBooked('12', 'cccccccc-0000-4000-8000-000000000001'),
    ],
    'amount' => WHMCS\\Database\\Capsule::table('tblaccounts')->where('transid', 'cccccccc-0000-4000-8000-000000000009')->value('amountin'),
]);`,
    );
    expect(result).toEqual({ ledger: [true, false, false, false], port: [true, false], amount: '25.00' });
  });
});
