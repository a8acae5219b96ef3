import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';
import {
  closedLoopbackUrl,
  findDebianPhp,
  type MariaDb,
  mariaDbUnavailable,
  phpCliJson,
  phpString,
  runPhpCli,
  runPhpCliSync,
  type SandboxService,
  startMariaDb,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULE_ROOT, VENDOR_DIR, VENDOR_NAMESPACE, WHMCS_GUARD } from './harness/harness.js';
import { RELEASED_PHP } from './released-schemas.js';
import { DUE_SCENARIO_PHP } from './storage-scenarios.js';

// The module's SQL as WHMCS runs it, on a real MariaDB from Debian (WHMCS runs on MySQL/MariaDB;
// gateway.test.ts uses the harness's SQLite in php-wasm, which has no MySQL driver): the kernel's
// ledger through the module's CapsuleSql, and the upgrade from each released schema as Laravel had
// created it. These scripts run in Debian's PHP CLI with pdo_mysql, through the harness's Capsule in
// its MySQL mode (Capsule::bootMysql: what Laravel 8/9's MySQL grammar and connector do), each test
// on a fresh database. Several PHP processes at once stand for WHMCS serving several requests at once.

// Skipped on a machine without MariaDB; on CI this throws rather than skip.
const unavailable = mariaDbUnavailable();

const HARNESS_ROOT = fileURLToPath(new URL('./harness/whmcs/', import.meta.url));
const LEDGER = ['mod_cryptocheckout_checkouts', 'mod_cryptocheckout_orders', 'mod_cryptocheckout_state'];
const OLD_TABLES = ['mod_cryptocheckout_transactions', 'mod_cryptocheckout_settings'];
const OLD_KEY = 'c0ffee'.repeat(10);

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
});

afterAll(async () => {
  await mariadb?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * A fresh database holding the WHMCS tables the module touches here, in WHMCS 8's MySQL spelling
 * (tblaccounts, tblgatewaylog, tblpaymentgateways with the gateway's display mode saved as an
 * earlier version named it), and none of the module's.
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
$admin->exec("CREATE TABLE tblgatewaylog (
    id INT(10) NOT NULL AUTO_INCREMENT, date DATETIME NOT NULL, gateway TEXT NOT NULL, data TEXT NOT NULL, result TEXT NOT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci");
$admin->exec("CREATE TABLE tblpaymentgateways (
    id INT(10) NOT NULL AUTO_INCREMENT, gateway TEXT NOT NULL, setting TEXT NOT NULL, value TEXT NOT NULL, \`order\` INT(1) NOT NULL DEFAULT '0',
    PRIMARY KEY (id), KEY gateway_setting (gateway(32), setting(32))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci");
$admin->exec("INSERT INTO tblpaymentgateways (gateway, setting, value) VALUES ('cryptocheckout', 'type', 'Invoices'), ('cryptocheckout', 'displayMode', 'embedded')");
echo json_encode(true);`,
  );
  phpCliJson(answer);
  return database;
}

/** The harness in MySQL mode on `database`, WHMCS's gateway and invoice functions, the module's autoloader, then `code`. */
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
    require_once ${phpString(join(HARNESS_ROOT, 'harness'))} . '/' . $class . '.php';
}
require_once ${phpString(join(HARNESS_ROOT, 'harness/functions.php'))};
require_once ${phpString(join(HARNESS_ROOT, 'includes/gatewayfunctions.php'))};
require_once ${phpString(join(HARNESS_ROOT, 'includes/invoicefunctions.php'))};
WHMCS\\Database\\Capsule::bootMysql(${phpString(dsn)}, ${phpString(mariadb.user)}, ${phpString(mariadb.password)});
require_once ${phpString(join(root, 'module/modules/gateways/cryptocheckout/autoload.php'))};
${RELEASED_PHP}
/** The module for one request, as the callback file builds it. */
function harness_gateway(): CryptoCheckout\\Whmcs\\Gateway
{
    return new CryptoCheckout\\Whmcs\\Gateway(['type' => 'Invoices', 'walletAddress' => '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'serviceUrl' => 'https://configured.example']);
}
/** What MariaDB holds of the module's tables: columns, keys, engine, and the rows. */
function harness_describe(array $tables): array
{
    $pdo = WHMCS\\Database\\Capsule::connection()->getPdo();
    $described = [];
    foreach ($tables as $table) {
        $columns = [];
        foreach ($pdo->query('SHOW COLUMNS FROM ' . $table)->fetchAll(PDO::FETCH_ASSOC) as $column) {
            $columns[$column['Field']] = $column['Type'] . ($column['Null'] === 'YES' ? ' null' : ' not null');
        }
        $keys = [];
        foreach ($pdo->query('SHOW INDEX FROM ' . $table)->fetchAll(PDO::FETCH_ASSOC) as $key) {
            $keys[$key['Key_name']][] = ((int) $key['Non_unique'] === 0 ? 'unique ' : '') . $key['Column_name'];
        }
        $engine = $pdo->query("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" . $table . "'")->fetchColumn();
        $described[$table] = ['columns' => $columns, 'keys' => $keys, 'engine' => $engine, 'rows' => $pdo->query('SELECT * FROM ' . $table)->fetchAll(PDO::FETCH_ASSOC)];
    }
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

/** The ledger's tables as LedgerSchema creates them, as MariaDB reports them. */
const LEDGER_SHAPE = {
  mod_cryptocheckout_checkouts: {
    columns: {
      transaction_code: 'varchar(64) not null',
      order_id: 'varchar(64) not null',
      ordinal: 'int(11) not null',
      checkout_url: 'varchar(2048) not null',
      service_url: 'varchar(2048) not null',
      fiat_amount: 'varchar(32) not null',
      fiat_currency: 'varchar(3) not null',
      order_amount: 'varchar(32) null',
      order_currency: 'varchar(3) null',
      wallet_address: 'varchar(128) not null',
      wallet_currency: 'varchar(16) not null',
      wallet_network: 'varchar(16) not null',
      created_at: 'bigint(20) not null',
      expires_at: 'bigint(20) null',
      watch_until: 'bigint(20) not null',
      checked_at: 'bigint(20) null',
      last_status: 'varchar(32) null',
      received_usd: 'varchar(40) null',
      applied_action: 'varchar(32) null',
      resolution: 'varchar(16) null',
      notified: 'varchar(96) null',
      confirmed_at: 'bigint(20) null',
    },
    keys: {
      PRIMARY: ['unique transaction_code'],
      mod_cryptocheckout_checkouts_order: ['order_id', 'ordinal'],
      mod_cryptocheckout_checkouts_due: ['resolution', 'watch_until'],
    },
    engine: 'InnoDB',
  },
  mod_cryptocheckout_orders: {
    columns: {
      order_id: 'varchar(64) not null',
      recorded_state: 'varchar(32) null',
      claim_token: 'varchar(32) null',
      claim_action: 'varchar(32) null',
      claim_code: 'varchar(64) null',
      claim_until: 'bigint(20) null',
    },
    keys: { PRIMARY: ['unique order_id'] },
    engine: 'InnoDB',
  },
  mod_cryptocheckout_state: {
    columns: {
      state_key: 'varchar(191) not null',
      state_value: 'text null',
      counter: 'int(11) not null',
      expires_at: 'bigint(20) not null',
    },
    keys: { PRIMARY: ['unique state_key'] },
    engine: 'InnoDB',
  },
};

/** The ledger's shape without its rows, and the state's keys (values differ per run). */
function shapeOf(described: Record<string, { rows: Array<Record<string, unknown>> }>) {
  const shape: Record<string, unknown> = {};
  for (const table of LEDGER) {
    const { rows: _rows, ...rest } = described[table] as { rows: unknown[] };
    shape[table] = rest;
  }
  return {
    shape,
    state: (described.mod_cryptocheckout_state?.rows ?? []).map((row) => row.state_key).sort(),
  };
}

const UPGRADED_STATE = ['schema_version', 'whmcs_signing_key', 'whmcs_upgraded_at'];

/** 1 January 2026, 11:00 UTC, and the released rows' checkouts, each a minute apart. */
const BASE = Date.UTC(2026, 0, 1, 11) / 1000;
const LEGACY = [
  { invoice: 9001, code: '11111111-1111-4111-8111-111111111111', state: 'paid' },
  { invoice: 9002, code: '22222222-2222-4222-8222-222222222222', state: 'late_payment_review' },
  { invoice: 9003, code: '33333333-3333-4333-8333-333333333333', state: 'cancelled' },
  { invoice: 9004, code: '44444444-4444-4444-8444-444444444440', state: 'cancelled' },
  { invoice: 9004, code: '44444444-4444-4444-8444-444444444444', state: 'awaiting_payment' },
  { invoice: 9005, code: '55555555-5555-4555-8555-555555555555', state: 'underpaid' },
];

/** A fresh database with the tables of release schema `version`, as Laravel created them on MySQL, and its rows. */
async function releasedDatabase(version: 1 | 2): Promise<string> {
  const database = freshDatabase();
  await run(
    database,
    `released_schema(${version});
foreach (json_decode(${phpString(JSON.stringify(LEGACY))}, true) as $index => $row) {
    WHMCS\\Database\\Capsule::table('mod_cryptocheckout_transactions')->insert(released_row(${version}, $row['invoice'], $row['code'], $row['state'], ${BASE} + 60 * $index));
}
WHMCS\\Database\\Capsule::table('mod_cryptocheckout_settings')->insert(['setting' => 'signing_key', 'value' => ${phpString(OLD_KEY)}]);
WHMCS\\Database\\Capsule::table('mod_cryptocheckout_settings')->insert(['setting' => ${phpString(version === 1 ? 'lock:pay:9004' : 'claim:9004')}, 'value' => '1']);
echo json_encode(true);`,
  );
  return database;
}

/** What the upgrade makes of LEGACY in the ledger ($now: when it ran), checkout by checkout. */
function expectedCheckouts(version: 1 | 2, now: number) {
  const applied: Record<string, [string | null, string | null]> = {
    awaiting_payment: [null, null],
    cancelled: ['cancel_expired', null],
    paid: ['mark_paid', 'booked'],
    underpaid: ['hold_underpaid', null],
    late_payment_review: ['hold_late_payment', 'flagged'],
  };
  return LEGACY.map((row, index) => {
    const expiresAt = BASE + 60 * index;
    const [action, resolution] = applied[row.state] as [string | null, string | null];
    return {
      transaction_code: row.code,
      order_id: String(row.invoice),
      ordinal: row.code.endsWith('444444444444') ? 2 : 1,
      // Schema 1 kept no service URL: the configured one; schema 2 kept each checkout's.
      service_url: version === 1 ? 'https://configured.example' : 'https://pay.example',
      order_amount: '25.00',
      order_currency: 'EUR',
      created_at: expiresAt - 3600,
      expires_at: expiresAt,
      // Schema 1 kept no watch window: an unresolved checkout gets at least one more look.
      watch_until:
        version === 1 && resolution === null
          ? Math.max(expiresAt + 25 * 3600, now + 3600)
          : expiresAt + 25 * 3600,
      checked_at: expiresAt - 1800,
      applied_action: action,
      resolution,
      notified: version === 2 && row.state === 'late_payment_review' ? 'hold_late_payment' : null,
      // A payment booked before the upgrade is looked at once more by the first poll.
      confirmed_at: null,
    };
  });
}

const RECORDED_STATES = {
  '9001': 'paid',
  '9002': 'late_payment_review',
  '9003': 'cancelled',
  '9004': 'cancelled',
  '9005': 'underpaid',
};

/** The first use in this process: the kernel, made ready; its time, and the key it signs with. */
const FIRST_USE = `$gateway = harness_gateway();
$gateway->kernel();
$key = $gateway->sign('status', ['1']);`;

/** The checkouts and recorded states of the ledger, and what the upgrade left in the Gateway Log. */
const LEDGER_ROWS = `[
    'checkouts' => WHMCS\\Database\\Capsule::connection()->select('SELECT transaction_code, order_id, ordinal, service_url, order_amount, order_currency, created_at, expires_at, watch_until, checked_at, applied_action, resolution, notified, confirmed_at FROM mod_cryptocheckout_checkouts ORDER BY order_id, ordinal'),
    'recorded' => array_column(WHMCS\\Database\\Capsule::connection()->select('SELECT order_id, recorded_state FROM mod_cryptocheckout_orders'), 'recorded_state', 'order_id'),
    'upgradedAt' => (int) WHMCS\\Database\\Capsule::connection()->select("SELECT state_value FROM mod_cryptocheckout_state WHERE state_key = 'whmcs_upgraded_at'")[0]->state_value,
    'log' => WHMCS\\Database\\Capsule::table('tblgatewaylog')->orderBy('id')->get()->all(),
    'displayMode' => WHMCS\\Database\\Capsule::table('tblpaymentgateways')->where('setting', 'displayMode')->value('value'),
]`;

interface LedgerRows {
  checkouts: Array<Record<string, unknown>>;
  recorded: Record<string, string>;
  upgradedAt: number;
  log: Array<{ result: string; data: string }>;
  displayMode: string;
}

describe.skipIf(unavailable !== null)('the module SQL on MariaDB', () => {
  it("creates the ledger's three tables with their keys on first use; a later first use changes nothing", async () => {
    const database = freshDatabase();
    const first = (await run(
      database,
      `${FIRST_USE}
echo json_encode(['described' => harness_describe(json_decode(${phpString(JSON.stringify(LEDGER))})), 'key' => $key]);`,
    )) as { described: Record<string, { rows: Array<Record<string, unknown>> }>; key: string };
    expect(shapeOf(first.described)).toEqual({ shape: LEDGER_SHAPE, state: UPGRADED_STATE });
    expect(first.described.mod_cryptocheckout_checkouts?.rows).toEqual([]);

    const second = (await run(
      database,
      `${FIRST_USE}
echo json_encode(['described' => harness_describe(json_decode(${phpString(JSON.stringify(LEDGER))})), 'key' => $key]);`,
    )) as typeof first;
    expect(second).toEqual(first);
  });

  it('lets 8 requests make the first use at the same moment, also when the database is slow to write DDL: the tables once, one signing key', async () => {
    for (const pause of [0, 50_000]) {
      const database = freshDatabase();
      const answers = (await runTogether(
        database,
        8,
        `WHMCS\\Database\\Connection::$pauseAfterCreate = ${pause};
${FIRST_USE}
echo json_encode(['late' => $late, 'key' => $key]);`,
      )) as Array<{ late: number; key: string }>;
      // Every process was ready before the start, so they really went at once.
      expect(answers.every((answer) => answer.late < 0)).toBe(true);
      expect(new Set(answers.map((answer) => answer.key)).size).toBe(1);
      const described = (await run(
        database,
        `echo json_encode(harness_describe(json_decode(${phpString(JSON.stringify(LEDGER))})));`,
      )) as Record<string, { rows: Array<Record<string, unknown>> }>;
      expect(shapeOf(described)).toEqual({ shape: LEDGER_SHAPE, state: UPGRADED_STATE });
    }
  });

  for (const version of [1, 2] as const) {
    it(`upgrades a schema ${version} install in place: every checkout, the recorded states, the signing key and the display mode; the old tables untouched, a second run adds nothing`, async () => {
      const database = await releasedDatabase(version);
      const before = await run(
        database,
        `echo json_encode(harness_describe(json_decode(${phpString(JSON.stringify(OLD_TABLES))})));`,
      );
      const upgraded = (await run(
        database,
        `${FIRST_USE}
echo json_encode(['ledger' => ${LEDGER_ROWS}, 'key' => $key, 'old' => harness_describe(json_decode(${phpString(JSON.stringify(OLD_TABLES))}))]);`,
      )) as { ledger: LedgerRows; key: string; old: unknown };
      const finishedBy = Math.ceil(Date.now() / 1000);
      const { ledger } = upgraded;
      // The import reads the clock after the upgrade's own stamp: a schema 1 checkout still
      // unresolved is watched for an hour from that reading, between the stamp and the answer.
      const extended = (row: Record<string, unknown>) => version === 1 && row.resolution === null;
      expect(ledger.checkouts).toEqual(
        expectedCheckouts(version, ledger.upgradedAt).map((row) =>
          extended(row) ? { ...row, watch_until: expect.any(Number) } : row,
        ),
      );
      for (const row of ledger.checkouts.filter(extended)) {
        expect(row.watch_until as number).toBeGreaterThanOrEqual(ledger.upgradedAt + 3600);
        expect(row.watch_until as number).toBeLessThanOrEqual(finishedBy + 3600);
      }
      expect(ledger.recorded).toEqual(RECORDED_STATES);
      // The key of the release: its pay buttons still verify.
      expect(upgraded.key).toBe(
        await run(database, `echo json_encode(hash_hmac('sha256', "status\\n1", ${phpString(OLD_KEY)}));`),
      );
      expect(ledger.displayMode).toBe('modal');
      expect(ledger.log.map((entry) => [entry.result, entry.data])).toEqual([
        [
          'Upgraded',
          'message => Moved 6 checkouts from mod_cryptocheckout_transactions into the Crypto Checkout ledger; the old tables are kept as they were.',
        ],
      ]);
      expect(upgraded.old).toEqual(before);

      // Again from the start (the marker removed, as after an interrupted upgrade): nothing changes.
      const again = (await run(
        database,
        `WHMCS\\Database\\Capsule::connection()->affectingStatement("DELETE FROM mod_cryptocheckout_state WHERE state_key = 'whmcs_upgraded_at'");
${FIRST_USE}
echo json_encode(['ledger' => ${LEDGER_ROWS}, 'old' => harness_describe(json_decode(${phpString(JSON.stringify(OLD_TABLES))}))]);`,
      )) as { ledger: LedgerRows; old: unknown };
      expect(again.ledger.checkouts).toEqual(ledger.checkouts);
      expect(again.ledger.recorded).toEqual(ledger.recorded);
      expect(again.ledger.log).toHaveLength(1);
      expect(again.old).toEqual(before);
    });

    it(`lets 8 requests upgrade a schema ${version} install at the same moment: every checkout once, the release's key`, async () => {
      const database = await releasedDatabase(version);
      const answers = (await runTogether(
        database,
        8,
        `${FIRST_USE}
echo json_encode(['late' => $late, 'key' => $key]);`,
      )) as Array<{ late: number; key: string }>;
      expect(answers.every((answer) => answer.late < 0)).toBe(true);
      expect(new Set(answers.map((answer) => answer.key))).toEqual(
        new Set([
          await run(database, `echo json_encode(hash_hmac('sha256', "status\\n1", ${phpString(OLD_KEY)}));`),
        ]),
      );
      const ledger = (await run(database, `echo json_encode(${LEDGER_ROWS});`)) as LedgerRows;
      // The times a request stamps while importing are its own; the first insert stays.
      expect(ledger.checkouts).toEqual(
        expectedCheckouts(version, ledger.upgradedAt).map((row) => ({
          ...row,
          confirmed_at: row.confirmed_at === null ? null : expect.any(Number),
          watch_until: version === 1 && row.resolution === null ? expect.any(Number) : row.watch_until,
        })),
      );
      expect(ledger.recorded).toEqual(RECORDED_STATES);
    });
  }

  it("numbers each invoice's checkouts in order when 8 requests import many invoices at once", async () => {
    // 30 invoices of 4 checkouts each (schema 2), the oldest first: a request that finds an invoice
    // half imported by another must not give its next checkout a number already taken.
    const database = freshDatabase();
    await run(
      database,
      `released_schema(2);
for ($invoice = 1; $invoice <= 30; $invoice++) {
    for ($n = 1; $n <= 4; $n++) {
        $code = sprintf('dddddddd-0000-4000-8000-%06d%06d', $invoice, $n);
        WHMCS\\Database\\Capsule::table('mod_cryptocheckout_transactions')->insert(released_row(2, $invoice, $code, $n === 4 ? 'awaiting_payment' : 'cancelled', ${BASE} + 3600 * $n));
    }
}
echo json_encode(true);`,
    );
    const answers = (await runTogether(
      database,
      8,
      `${FIRST_USE}\necho json_encode(['late' => $late]);`,
    )) as Array<{
      late: number;
    }>;
    expect(answers.every((answer) => answer.late < 0)).toBe(true);
    const numbered = (await run(
      database,
      `echo json_encode(WHMCS\\Database\\Capsule::connection()->select('SELECT order_id, transaction_code, ordinal FROM mod_cryptocheckout_checkouts ORDER BY transaction_code'));`,
    )) as Array<{ order_id: string; transaction_code: string; ordinal: number }>;
    expect(numbered).toHaveLength(120);
    for (const row of numbered) {
      expect(row.ordinal, row.transaction_code).toBe(Number(row.transaction_code.slice(-6)));
    }
  });

  it('leaves the old tables as they were when the upgrade fails, says so in the Gateway Log, and completes once the cause is gone', async () => {
    const database = await releasedDatabase(2);
    // A table of that name from something else, without the ledger's columns: the import fails.
    await run(
      database,
      `WHMCS\\Database\\Capsule::connection()->getPdo()->exec('CREATE TABLE mod_cryptocheckout_checkouts (transaction_code VARCHAR(64) NOT NULL PRIMARY KEY)'); echo json_encode(true);`,
    );
    const before = await run(
      database,
      `echo json_encode(harness_describe(json_decode(${phpString(JSON.stringify(OLD_TABLES))})));`,
    );
    const failed = (await run(
      database,
      `try {
    harness_gateway()->kernel();
    $error = null;
} catch (RuntimeException $thrown) {
    $error = get_class($thrown);
}
echo json_encode([
    'error' => $error,
    'log' => WHMCS\\Database\\Capsule::table('tblgatewaylog')->get()->all(),
    'done' => WHMCS\\Database\\Capsule::connection()->select("SELECT state_value FROM mod_cryptocheckout_state WHERE state_key = 'whmcs_upgraded_at'"),
    'old' => harness_describe(json_decode(${phpString(JSON.stringify(OLD_TABLES))})),
]);`,
    )) as {
      error: string | null;
      log: Array<{ result: string; data: string }>;
      done: unknown[];
      old: unknown;
    };
    expect(failed.error).not.toBeNull();
    expect(failed.done).toEqual([]);
    expect(failed.old).toEqual(before);
    expect(failed.log.map((entry) => entry.result)).toEqual(['Error']);
    expect(failed.log[0]?.data).toMatch(
      /^message => Moving the module's records into the Crypto Checkout ledger failed: .*Unknown column .* The tables mod_cryptocheckout_transactions and mod_cryptocheckout_settings are left as they were; the next request tries again\.$/s,
    );

    await run(
      database,
      `WHMCS\\Database\\Capsule::connection()->getPdo()->exec('DROP TABLE mod_cryptocheckout_checkouts'); echo json_encode(true);`,
    );
    const ledger = (await run(database, `${FIRST_USE}\necho json_encode(${LEDGER_ROWS});`)) as LedgerRows;
    expect(ledger.checkouts).toEqual(expectedCheckouts(2, ledger.upgradedAt));
  });

  it('claims an invoice by compare-and-swap through Capsule: exactly one of 8 requests at the same moment', async () => {
    const database = freshDatabase();
    await run(database, `harness_gateway()->kernel(); echo json_encode(true);`);
    const answers = (await runTogether(
      database,
      8,
      `$ledger = harness_gateway()->kernel()->ledger();
$claim = $ledger->claim('42', 'run', 'x', time());
echo json_encode(['late' => $late, 'won' => $claim !== null, 'token' => $claim === null ? null : $claim->token]);`,
    )) as Array<{ late: number; won: boolean; token: string | null }>;
    expect(answers.every((answer) => answer.late < 0)).toBe(true);
    const winners = answers.filter((answer) => answer.won);
    expect(winners).toHaveLength(1);
    const after = await run(
      database,
      `$ledger = harness_gateway()->kernel()->ledger();
$held = $ledger->isClaimed('42', time());
$again = $ledger->claim('42', 'run', 'x', time());
// A lease that ended is taken over, once.
$later = time() + CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\Claim::LEASE_SECONDS + 1;
$takeover = $ledger->claim('42', 'run', 'y', $later);
$second = $ledger->claim('42', 'run', 'y', $later);
echo json_encode([$held, $again, $takeover !== null, $takeover === null ? null : $takeover->tookOver, $second]);`,
    );
    expect(after).toEqual([true, null, true, 'run x', null]);
  });

  it("keeps checkouts through Capsule's MySQL connection: Unix times back as integers, found by code in any case, newest first per invoice", async () => {
    const database = freshDatabase();
    const result = (await run(
      database,
      `use CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\StoredCheckout;
$ledger = harness_gateway()->kernel()->ledger();
$checkout = function (string $code, int $createdAt): StoredCheckout {
    return StoredCheckout::fromArray(['transaction_code' => $code, 'checkout_url' => 'https://pay.example/pay/' . $code, 'service_url' => 'https://pay.example',
        'fiat_amount' => '27.78', 'fiat_currency' => 'USD', 'order_amount' => '25.00', 'order_currency' => 'EUR', 'wallet_address' => '0xabc',
        'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $createdAt, 'expires_at' => $createdAt + 3600]);
};
$ledger->add('5', $checkout('aaaaaaaa-0000-4000-8000-000000000001', 1767261600));
$ledger->add('5', $checkout('aaaaaaaa-0000-4000-8000-000000000002', 1767261600));
$ledger->add('6', $checkout('aaaaaaaa-0000-4000-8000-000000000003', 1767265200));
$duplicate = null;
try {
    $ledger->add('7', $checkout('aaaaaaaa-0000-4000-8000-000000000001', 1767261600));
} catch (RuntimeException $error) {
    $duplicate = get_class($error);
}
$first = $ledger->checkouts('5')[1];
echo json_encode([
    'duplicate' => $duplicate,
    'order' => $ledger->orderOf(' AAAAAAAA-0000-4000-8000-000000000001 '),
    'missing' => $ledger->orderOf('bbbbbbbb-0000-4000-8000-000000000000'),
    'newestFirst' => array_map(function ($c) { return [$c->transactionCode, $c->ordinal]; }, $ledger->checkouts('5')),
    'first' => [$first->createdAt, $first->expiresAt, $first->watchUntil, $first->orderAmount, $first->orderCurrency],
    'types' => array_map('gettype', (array) WHMCS\\Database\\Capsule::connection()->select('SELECT created_at, ordinal, order_id FROM mod_cryptocheckout_checkouts LIMIT 1')[0]),
    // MySQL counts the rows an UPDATE changed (Laravel sets no PDO::MYSQL_ATTR_FOUND_ROWS).
    'sameValues' => WHMCS\\Database\\Capsule::connection()->affectingStatement("UPDATE mod_cryptocheckout_checkouts SET order_currency = 'EUR'"),
    'key' => [$ledger->valueOnce('k', 'first'), $ledger->valueOnce('k', 'second')],
]);`,
    )) as Record<string, unknown>;
    expect(result).toEqual({
      duplicate: expect.stringMatching(/Exception$/),
      order: '5',
      missing: null,
      newestFirst: [
        ['aaaaaaaa-0000-4000-8000-000000000002', 2],
        ['aaaaaaaa-0000-4000-8000-000000000001', 1],
      ],
      first: [1767261600, 1767265200, 1767265200 + 25 * 3600, '25.00', 'EUR'],
      types: { created_at: 'integer', ordinal: 'integer', order_id: 'string' },
      sameValues: 0,
      key: ['first', 'first'],
    });
  });

  it("selects due checkouts through the module's database in the order of the kernel reference (PollPolicy::select)", async () => {
    const database = freshDatabase();
    // The scenario of the same test in gateway.test.ts, then 80 random checkouts at several batch sizes.
    const picked = (await run(
      database,
      `use CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\PollPolicy;
use CryptoCheckout\\Whmcs\\Vendor\\Client\\Kernel\\StoredCheckout;
$ledger = harness_gateway()->kernel()->ledger();
$now = time();
${DUE_SCENARIO_PHP}
$compare = function (array $batches) use ($ledger, &$entries, $now): array {
    $compared = [];
    foreach ($batches as $batch) {
        $policy = new PollPolicy($batch);
        $compared[] = ['batch' => $batch, 'port' => $ledger->due($policy, $now), 'reference' => $policy->select($entries, $now)];
    }
    return $compared;
};
$gateway = $compare([7]);
mt_srand(7);
$pick = function (array $choices) { return $choices[mt_rand(0, count($choices) - 1)]; };
for ($i = 1; $i <= 80; $i++) {
    $expiresAt = $pick([$now + 600, $now - 3600, $now - 3 * 86400, null]);
    $resolution = $pick([null, null, null, 'booked', 'flagged']);
    $checkout = StoredCheckout::fromArray([
        'transaction_code' => sprintf('cccccccc-0000-4000-8000-%012d', $i), 'checkout_url' => 'x', 'service_url' => 'x',
        'fiat_amount' => '1.00', 'fiat_currency' => 'EUR', 'wallet_address' => 'x', 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON',
        'expires_at' => $expiresAt, 'watch_until' => StoredCheckout::watchDeadline($expiresAt ?? $now),
        'checked_at' => $pick([null, $now - 30, $now - 60, $now - 90, $now - 599, $now - 600, $now - 7200]),
        'resolution' => $resolution, 'confirmed_at' => $resolution === 'booked' ? $pick([null, $now - 5]) : null,
        'created_at' => $now - 5 * 86400 + $i * 3700,
    ]);
    $ledger->add((string) (1 + $i % 9), $checkout);
    $entries[] = [(string) (1 + $i % 9), $checkout];
}
echo json_encode(['gateway' => $gateway, 'random' => $compare([1, 3, 10, 50, 200])]);`,
    )) as Record<'gateway' | 'random', Array<{ batch: number; port: string[][]; reference: string[][] }>>;
    const [gateway] = picked.gateway;
    expect(gateway?.port).toHaveLength(7);
    expect(gateway?.port).toEqual(gateway?.reference);
    const all = picked.random.at(-1)?.reference.length ?? 0;
    for (const { batch, port, reference } of picked.random) {
      expect(port, `batch ${batch}`).toEqual(reference);
      expect(port.length, `batch ${batch}`).toBe(Math.min(batch, all));
    }
    // Enough of them are due, and enough are not, for the comparison to mean something.
    expect(all).toBeGreaterThan(20);
    expect(all).toBeLessThan(110);
  });

  it('finds a payment in tblaccounts (decimal amounts, text transid) by its transaction code', async () => {
    const database = freshDatabase();
    const result = await run(
      database,
      `$invoices = harness_gateway()->invoices;
$pdo = WHMCS\\Database\\Capsule::connection()->getPdo();
$pdo->exec("INSERT INTO tblaccounts (userid, currency, gateway, date, description, amountin, fees, amountout, rate, transid, invoiceid, refundid)
    VALUES (1, 1, 'cryptocheckout', NOW(), 'Invoice Payment', 25.00, 0, 0, 1, 'cccccccc-0000-4000-8000-000000000009', 12, 0),
           (1, 1, 'banktransfer', NOW(), 'Invoice Payment', 10.00, 0, 0, 1, 'BANK-1', 13, 0)");
echo json_encode([
    $invoices->isPaymentBooked('12', 'CCCCCCCC-0000-4000-8000-000000000009'),
    // The same first 32 characters (the length of tblaccounts' transid key), another code.
    $invoices->isPaymentBooked('12', 'cccccccc-0000-4000-8000-000000000001'),
    $invoices->isPaymentBooked('12', 'cccccccc-0000-4000-8000-00000000000'),
    $invoices->isPaymentBooked('12', ''),
]);`,
    );
    expect(result).toEqual([true, false, false, false]);
  });
});

/** WHMCS's billing tables the refund flow touches (harness/functions.php), in WHMCS 8's MySQL spelling. */
const BILLING_TABLES = `
CREATE TABLE tblconfiguration (setting VARCHAR(64) NOT NULL, value TEXT NOT NULL, PRIMARY KEY (setting)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE tblcurrencies (id INT(10) NOT NULL AUTO_INCREMENT, code TEXT NOT NULL, prefix TEXT NOT NULL, suffix TEXT NOT NULL, format INT(1) NOT NULL DEFAULT 1, rate DECIMAL(10,5) NOT NULL DEFAULT '1.00000', \`default\` INT(1) NOT NULL DEFAULT 0, PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE tblclients (id INT(10) NOT NULL AUTO_INCREMENT, firstname TEXT NOT NULL, lastname TEXT NOT NULL, email TEXT NOT NULL, currency INT(10) NOT NULL, credit DECIMAL(16,2) NOT NULL DEFAULT '0.00', PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE tblinvoices (id INT(10) NOT NULL AUTO_INCREMENT, invoicenum TEXT NOT NULL, userid INT(10) NOT NULL, date DATE DEFAULT NULL, duedate DATE DEFAULT NULL, datepaid DATETIME DEFAULT NULL, total DECIMAL(16,2) NOT NULL, status TEXT NOT NULL, paymentmethod TEXT NOT NULL, notes TEXT NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE tblnotes (id INT(10) NOT NULL AUTO_INCREMENT, userid INT(10) NOT NULL, adminid INT(10) NOT NULL, created DATETIME NOT NULL, modified DATETIME NOT NULL, note TEXT NOT NULL, sticky INT(1) NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE tblactivitylog (id INT(10) NOT NULL AUTO_INCREMENT, date DATETIME NOT NULL, description TEXT NOT NULL, user TEXT NOT NULL, userid INT(10) NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE tblemails (id INT(10) NOT NULL AUTO_INCREMENT, userid INT(10) NOT NULL, subject TEXT NOT NULL, message MEDIUMTEXT NOT NULL, date DATETIME DEFAULT NULL, \`to\` TEXT, PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
`;

describe.skipIf(unavailable !== null)('refunds on MariaDB', () => {
  const OPERATOR_TOKEN = 'operator-token-for-the-whmcs-mariadb-refunds-0123456789';
  const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
  let service: SandboxService;
  let merchantKey: string;

  beforeAll(async () => {
    service = await startSandboxService({ operatorToken: OPERATOR_TOKEN });
    const issued = await fetch(`${service.url}/api/operator/merchant-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'whmcs mariadb', wallet_addresses: [WALLET] }),
    });
    merchantKey = String(((await issued.json()) as { data: { key: string } }).data.key);
  });

  afterAll(async () => {
    await service?.close();
  });

  it('records a paid refund once while webhooks and crons race in eight processes', async () => {
    const database = freshDatabase();
    const closed = await closedLoopbackUrl();
    // An invoice paid through the module (its webhooks go nowhere: the processes below are the only ones).
    const { code } = (await run(
      database,
      `$pdo = WHMCS\\Database\\Capsule::connection()->getPdo();
foreach (array_filter(array_map('trim', explode(";\n", ${phpString(BILLING_TABLES)}))) as $ddl) {
    $pdo->exec($ddl);
}
$pdo->exec("DELETE FROM tblpaymentgateways");
foreach (['name' => 'Crypto Checkout', 'type' => 'Invoices', 'serviceUrl' => ${phpString(service.url)}, 'walletAddress' => ${phpString(WALLET)}, 'asset' => 'USDC', 'network' => 'POLYGON', 'merchantKey' => ${phpString(merchantKey)}] as $setting => $value) {
    WHMCS\\Database\\Capsule::table('tblpaymentgateways')->insert(['gateway' => 'cryptocheckout', 'setting' => $setting, 'value' => $value]);
}
WHMCS\\Database\\Capsule::table('tblconfiguration')->insert(['setting' => 'SystemURL', 'value' => ${phpString(`${closed}/`)}]);
WHMCS\\Database\\Capsule::table('tblconfiguration')->insert(['setting' => 'CompanyName', 'value' => 'Example Hosting']);
WHMCS\\Database\\Capsule::table('tblcurrencies')->insert(['code' => 'USD', 'prefix' => '$', 'suffix' => ' USD', 'rate' => '1', 'default' => 1]);
WHMCS\\Database\\Capsule::table('tblclients')->insert(['firstname' => 'Ada', 'lastname' => 'Lovelace', 'email' => 'ada@example.com', 'currency' => 1]);
WHMCS\\Database\\Capsule::table('tblinvoices')->insert(['invoicenum' => '', 'userid' => 1, 'total' => '25.00', 'status' => 'Unpaid', 'paymentmethod' => 'cryptocheckout', 'notes' => '']);
$gateway = new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout'));
$settings = $gateway->settings;
$opened = $gateway->kernel()->open('1', ['fiat_amount' => '25.00', 'fiat_currency' => 'USD', 'order_amount' => '25.00', 'order_currency' => 'USD',
    'external_reference' => 'Invoice #1', 'service_url' => $settings->serviceUrl, 'wallet_address' => $settings->walletAddress,
    'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'webhook_url' => $settings->callbackUrl(),
    'success_url' => $settings->invoiceUrl(1), 'cancel_url' => $settings->invoiceUrl(1)]);
echo json_encode(['code' => $opened['checkout']->transactionCode]);`,
    )) as { code: string };
    await service.pay(code, 'full');

    // The cron books it; the Refund tab asks for 10.00 of it (WHMCS's refund parameters).
    const asked = (await run(
      database,
      `(new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->kernel()->check('1');
require_once ${phpString(join(root, 'module/modules/gateways/cryptocheckout.php'))};
$payment = WHMCS\\Database\\Capsule::table('tblaccounts')->where('invoiceid', 1)->first();
$answer = cryptocheckout_refund(getGatewayVariables('cryptocheckout') + ['invoiceid' => 1, 'amount' => '10.00', 'currency' => 'USD', 'transid' => $payment->transid, 'paymentmethod' => 'cryptocheckout']);
echo json_encode(['answer' => $answer['status'], 'payment' => (int) $payment->id, 'mail' => WHMCS\\Database\\Capsule::table('tblemails')->value('message'),
    'refund' => WHMCS\\Database\\Capsule::table('mod_cryptocheckout_refunds')->value('refund_id')]);`,
    )) as { answer: string; payment: number; mail: string; refund: string };
    expect(asked.answer).toBe('declined');
    const claimUrl = /<a href="([^"]+)">/.exec(asked.mail)?.[1] as string;
    const confirm = await fetch(claimUrl.replace(/&amp;/g, '&'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        step: 'confirm',
        address: '0x1111111111111111111111111111111111111111',
        confirmed: 'yes',
      }).toString(),
      redirect: 'manual',
    });
    expect(confirm.status).toBe(303);
    const paid = await fetch(`${service.url}/api/sandbox/refunds/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refund_id: asked.refund }),
    });
    const txId = ((await paid.json()) as { data: { tx_id: string } }).data.tx_id;
    const body = JSON.stringify({
      event: 'refund.paid',
      refund_id: asked.refund,
      transaction_code: code,
      external_reference: 'Invoice #1',
      reference: 'whmcs-invoice-1-refund-1',
      amount: '10',
      asset: 'USDC',
      network: 'POLYGON',
      address: '0x1111111111111111111111111111111111111111',
      tx_id: txId,
      timestamp: Math.floor(Date.now() / 1000),
    });
    // Due for the crons too: its last check an hour ago.
    await run(
      database,
      `WHMCS\\Database\\Capsule::connection()->affectingStatement('UPDATE mod_cryptocheckout_refunds SET checked_at = checked_at - 3600'); echo json_encode(true);`,
    );

    // Four webhook requests and four cron runs, let go at the same moment.
    const webhook = `$reply = (new CryptoCheckout\\Whmcs\\Gateway(getGatewayVariables('cryptocheckout')))->answer([], [], ['REQUEST_METHOD' => 'POST', 'REMOTE_ADDR' => '203.0.113.' . getmypid() % 250], ${phpString(body)});
echo json_encode(['late' => $late, 'status' => $reply->status]);`;
    const cron = `CryptoCheckout\\Whmcs\\Gateway::poll();
echo json_encode(['late' => $late, 'status' => 200]);`;
    const startAt = Date.now() + 1500;
    const answers = (
      await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          runPhpCli(php, script(database, index % 2 === 0 ? webhook : cron, startAt)),
        ),
      )
    ).map(phpCliJson) as Array<{ late: number; status: number }>;
    expect(answers.every((answer) => answer.late < 0)).toBe(true);
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));

    const after = (await run(
      database,
      `echo json_encode([
    'refunds' => WHMCS\\Database\\Capsule::connection()->select('SELECT transid, amountout, refundid FROM tblaccounts WHERE amountout > 0'),
    'ledger' => WHMCS\\Database\\Capsule::connection()->select('SELECT status, recorded_at, noticed_status FROM mod_cryptocheckout_refunds'),
    'recordedLog' => count(WHMCS\\Database\\Capsule::connection()->select("SELECT id FROM tblgatewaylog WHERE result = 'Refund Recorded'")),
    'claimed' => WHMCS\\Database\\Capsule::connection()->select('SELECT order_id FROM mod_cryptocheckout_orders WHERE claim_token IS NOT NULL'),
    'status' => WHMCS\\Database\\Capsule::table('tblinvoices')->where('id', 1)->value('status'),
]);`,
    )) as {
      refunds: Array<{ transid: string; amountout: string; refundid: number }>;
      ledger: Array<{ status: string; recorded_at: number | null; noticed_status: string }>;
      recordedLog: number;
      claimed: unknown[];
      status: string;
    };
    expect(after.refunds).toEqual([{ transid: txId, amountout: '10.00', refundid: asked.payment }]);
    expect(after.ledger).toEqual([
      { status: 'paid', recorded_at: expect.any(Number), noticed_status: 'paid' },
    ]);
    expect(after.recordedLog).toBe(1);
    expect(after.claimed).toEqual([]);
    expect(after.status).toBe('Paid');
  });
});
