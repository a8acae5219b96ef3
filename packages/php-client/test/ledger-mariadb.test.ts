import { fileURLToPath } from 'node:url';
import {
  findDebianPhp,
  type MariaDb,
  mariaDbUnavailable,
  phpCliJson,
  phpString,
  runPhpCli,
  startMariaDb,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_PHP, DUE_MATCHES_POLICY_PHP, dueRows, IMPORT_PHP, STATE_PHP } from './ledger-scenarios.js';

// The kernel's ledger as every platform runs it: its SQL as written, on a real MariaDB from
// Debian, through Debian's PHP CLI with pdo_mysql (php-wasm has no MySQL driver). Several PHP
// processes at once stand for several requests of a shop. Skipped on a machine without MariaDB;
// on CI (which installs it) mariaDbUnavailable() throws instead.

const unavailable = mariaDbUnavailable();
const BOOTSTRAP = fileURLToPath(new URL('./kernel/php/bootstrap.php', import.meta.url));

let php: string;
let mariadb: MariaDb;
let databases = 0;

beforeAll(async () => {
  if (unavailable !== null) return;
  php = findDebianPhp();
  mariadb = await startMariaDb({ database: 'ledger_setup' });
});

afterAll(async () => {
  await mariadb?.stop();
});

/** A script that boots the kernel's fixtures over the database $database (created when asked). */
function script(database: string, body: string, create = false): string {
  return `<?php
require ${phpString(BOOTSTRAP)};
use CryptoCheckout\\KernelTest\\World;
use CryptoCheckout\\KernelTest\\PdoSqlPort;
use CryptoCheckout\\Client\\Kernel\\Claim;
use CryptoCheckout\\Client\\Kernel\\Kernel;
use CryptoCheckout\\Client\\Kernel\\PollPolicy;
use CryptoCheckout\\Client\\Kernel\\StoredCheckout;
use CryptoCheckout\\Client\\Kernel\\Ledger\\Ledger;
use CryptoCheckout\\Client\\Kernel\\Ledger\\LegacyRecords;
function connect(string $database): PDO {
    $pdo = new PDO(${phpString(mariadb.dsn)}, ${phpString(mariadb.user)}, ${phpString(mariadb.password)}, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
    ${create ? "$pdo->exec('CREATE DATABASE IF NOT EXISTS `' . $database . '` CHARACTER SET utf8mb4');" : ''}
    $pdo->exec('USE \`' . $database . '\`');
    return $pdo;
}
function port(string $database): PdoSqlPort { return new PdoSqlPort(connect($database), 'wp_'); }
$database = ${phpString(database)};
function newWorld(): World {
    static $count = 0;
    $name = $GLOBALS['database'] . '_' . (++$count);
    $admin = connect($GLOBALS['database']);
    $admin->exec('CREATE DATABASE \`' . $name . '\` CHARACTER SET utf8mb4');
    return new World(port($name));
}
${body}`;
}

async function runIn<T>(database: string, body: string, create = false): Promise<T> {
  return phpCliJson(await runPhpCli(php, script(database, body, create))) as T;
}

function freshDatabase(): string {
  return `ledger_${++databases}`;
}

describe.skipIf(unavailable !== null)('kernel ledger on MariaDB', () => {
  it('selects exactly what the poll policy selects, in its order', async () => {
    const { now, rows } = dueRows(20261127);
    const results = await runIn<Array<[string[][], string[][]]>>(
      freshDatabase(),
      DUE_MATCHES_POLICY_PHP(JSON.stringify(rows), now),
      true,
    );
    for (const [query, reference] of results) expect(query).toEqual(reference);
    expect(results.flatMap(([, reference]) => reference).length).toBeGreaterThan(30);
  });

  it('claims by compare-and-swap with a lease', async () => {
    expect(await runIn(freshDatabase(), CLAIM_PHP, true)).toMatchObject({
      first: true,
      second: false,
      takeover: 'mark_paid code-a',
      heldAfterLateRelease: true,
      freeAfterRelease: true,
    });
  });

  it('imports every released storage layout once', async () => {
    const result = await runIn<{ imported: number[]; again: number; found: string }>(
      freshDatabase(),
      IMPORT_PHP,
      true,
    );
    expect(result).toMatchObject({ imported: [1, 1, 2, 1, 1, 1], again: 0, found: '101' });
  });

  it('keeps the kernel’s small state', async () => {
    expect(await runIn(freshDatabase(), STATE_PHP, true)).toMatchObject({
      once: ['k1', 'k1'],
      counts: [true, true, true, false, false],
      forgotten: 2,
      installed: true,
    });
  });

  it('pays an order through the webhook with the ledger on MariaDB, and repairs a save that undid it', async () => {
    const result = await runIn<{ first: string; state: string; repaired: string; payments: number }>(
      freshDatabase(),
      `
      [$world, $code] = [newWorld(), null];
      $code = $world->placeOrder('1');
      $world->pay($code);
      $first = $world->webhook($code)['reply']->body['data']['result'];
      $state = $world->state('1');
      $world->orders->setStatus('1', 'awaiting_payment');
      $world->clock->now += 120;
      $world->kernel->poll();
      echo json_encode(['first' => $first, 'state' => $state, 'repaired' => $world->state('1'), 'payments' => count($world->orders->orders['1']['payments'])]);
      `,
      true,
    );
    expect(result).toEqual({ first: 'applied', state: 'paid', repaired: 'paid', payments: 1 });
  });

  describe('several requests at once (one PHP process each)', () => {
    it('install the tables together without an error', async () => {
      const database = freshDatabase();
      await runIn(database, 'connect($database); echo json_encode(true);', true);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          runPhpCli(
            php,
            script(database, `(new Ledger(port($database)))->install(); echo json_encode(true);`),
          ),
        ),
      );
      for (const answer of answers) expect(phpCliJson(answer)).toBe(true);
    });

    it('one of eight racing claims wins the order', async () => {
      const database = freshDatabase();
      await runIn(database, `(new Ledger(port($database)))->install(); echo json_encode(true);`, true);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          runPhpCli(
            php,
            script(
              database,
              `usleep(${(index % 3) * 1000});
              echo json_encode((new Ledger(port($database)))->claim('42', 'run', 'code-${index}', time()) !== null);`,
            ),
          ),
        ),
      );
      expect(answers.map((answer) => phpCliJson(answer)).filter((won) => won === true)).toHaveLength(1);
    });

    it('count a throttle window exactly: 80 requests against a limit of 37 let 37 through', async () => {
      const database = freshDatabase();
      await runIn(database, `(new Ledger(port($database)))->install(); echo json_encode(true);`, true);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          runPhpCli(
            php,
            script(
              database,
              `$ledger = new Ledger(port($database));
              $counted = 0;
              for ($i = 0; $i < 10; $i++) { $counted += $ledger->countUpTo('throttle:race', 37, time() + 60) ? 1 : 0; }
              echo json_encode($counted);`,
            ),
          ),
        ),
      );
      const counted = answers
        .map((answer) => phpCliJson(answer) as number)
        .reduce((sum, value) => sum + value, 0);
      expect(counted).toBe(37);
    });
  });
});
