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
import { FAKE_MERCHANT_KEY, type RefundServiceFake, startRefundServiceFake } from './refund-service-fake.js';

// Refunds with the ledger on a real MariaDB, through Debian's PHP (php-wasm has no MySQL driver):
// several PHP processes at once, webhooks and polls, checking one paid refund; the platform keeps
// its refunds in its own table (test/kernel/php/DbRefunds.php), so a double recording would show.
// The refund calls go over HTTP to the refund service on loopback (test/refund-service-fake.ts).
// Skipped on a machine without MariaDB; on CI mariaDbUnavailable() throws instead.

const unavailable = mariaDbUnavailable();
const BOOTSTRAP = fileURLToPath(new URL('./kernel/php/bootstrap.php', import.meta.url));

let php: string;
let mariadb: MariaDb;
let fake: RefundServiceFake;
let databases = 0;

beforeAll(async () => {
  if (unavailable !== null) return;
  php = findDebianPhp();
  mariadb = await startMariaDb({ database: 'refunds_setup' });
  fake = await startRefundServiceFake();
});

afterAll(async () => {
  await fake?.close();
  await mariadb?.stop();
});

/** A script over the database $database (created when asked), with the kernel's fixtures. */
function script(database: string, body: string, create = false): string {
  return `<?php
require ${phpString(BOOTSTRAP)};
use CryptoCheckout\\Client\\Client;
use CryptoCheckout\\Client\\Kernel\\Kernel;
use CryptoCheckout\\Client\\Kernel\\Ledger\\Ledger;
use CryptoCheckout\\KernelTest\\DbRefunds;
use CryptoCheckout\\KernelTest\\FakeClock;
use CryptoCheckout\\KernelTest\\MemoryOrders;
use CryptoCheckout\\KernelTest\\PdoSqlPort;
use CryptoCheckout\\KernelTest\\RefundDesk;
use CryptoCheckout\\KernelTest\\Steps;
use CryptoCheckout\\KernelTest\\World;
function port(string $database): PdoSqlPort {
    $pdo = new PDO(${phpString(mariadb.dsn)}, ${phpString(mariadb.user)}, ${phpString(mariadb.password)}, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
    ${create ? "$pdo->exec('CREATE DATABASE IF NOT EXISTS `' . $database . '` CHARACTER SET utf8mb4');" : ''}
    $pdo->exec('USE \`' . $database . '\`');
    return new PdoSqlPort($pdo, 'wp_');
}
/** A request of the shop an hour from now: the refund is due for the poll. */
function kernel(string $database): Kernel {
    $clock = new FakeClock();
    $clock->now = time() + 3600;
    return new Kernel(new MemoryOrders(new Steps()), port($database), Client::createDefaultTransport(), null, $clock);
}
$database = ${phpString(database)};
$service = ${phpString(fake.url)};
$key = ${phpString(FAKE_MERCHANT_KEY)};
${body}`;
}

async function runIn<T>(database: string, body: string, create = false): Promise<T> {
  return phpCliJson(await runPhpCli(php, script(database, body, create))) as T;
}

describe.skipIf(unavailable !== null)('refunds with the ledger on MariaDB', () => {
  it('records a paid refund once while webhooks and polls race in eight processes', async () => {
    const database = `refunds_${++databases}`;
    const setup = await runIn<{ id: string; body: string; start: boolean; status: string }>(
      database,
      `
      [$world, $code] = World::withSettledOrder($service, '1', port($database));
      $world->clock->now = time();
      $platform = new DbRefunds(port($database));
      $start = $world->kernel->startRefund('1', '12.340001', 'USDC', 'wc-refund-1', null, $key, $platform);
      $desk = new RefundDesk($service);
      $desk->confirmAddress((string) $start->refund->claimUrl);
      $desk->pay($start->refund->refundId);
      echo json_encode(['id' => $start->refund->refundId, 'body' => $desk->paidWebhookBody($start->refund->refundId), 'start' => $start->ok, 'status' => $world->kernel->refunds('1')[0]->status]);
      `,
      true,
    );
    expect(setup).toMatchObject({ start: true, status: 'awaiting_address' });

    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        runPhpCli(
          php,
          script(
            database,
            index % 2 === 0
              ? `$outcome = kernel($database)->webhook('POST', ${phpString(setup.body)}, '203.0.113.${index}', new DbRefunds(port($database)));
                 echo json_encode($outcome['reply']->status);`
              : `$outcomes = kernel($database)->checkRefunds(new DbRefunds(port($database)));
                 echo json_encode(200);`,
          ),
        ),
      ),
    );
    expect(answers.map((answer) => phpCliJson(answer))).toEqual(Array(8).fill(200));

    const after = await runIn<{
      counts: Record<string, number>;
      row: Record<string, unknown>;
      claimed: boolean;
    }>(
      database,
      `
      $kernel = kernel($database);
      echo json_encode([
          'counts' => (new DbRefunds(port($database)))->counts(${phpString(setup.id)}),
          'row' => $kernel->refunds('1')[0]->toArray(),
          'claimed' => $kernel->ledger()->isClaimed('1', time() + 3600),
      ]);
      `,
    );
    expect(after.counts).toEqual({ paid: 1, link: 1, note: 1 });
    expect(after.row).toMatchObject({
      status: 'paid',
      recorded_at: expect.any(Number),
      noticed_status: 'paid',
    });
    expect(after.claimed).toBe(false);
  });

  it('creates the refunds table on a ledger installed before refunds, from several requests at once', async () => {
    const database = `refunds_${++databases}`;
    await runIn(
      database,
      `$sql = port($database);
       (new Ledger($sql))->install();
       $sql->execute('DROP TABLE wp_cryptocheckout_refunds');
       $sql->execute("UPDATE wp_cryptocheckout_state SET state_value = '1' WHERE state_key = 'schema_version'");
       echo json_encode(true);`,
      true,
    );
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        runPhpCli(
          php,
          script(
            database,
            `echo json_encode(count(kernel($database)->checkRefunds(new DbRefunds(port($database)))));`,
          ),
        ),
      ),
    );
    expect(answers.map((answer) => phpCliJson(answer))).toEqual([0, 0, 0, 0]);
    expect(await runIn(database, `echo json_encode((new Ledger(port($database)))->isCurrent());`)).toBe(true);
  });
});
