import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeDatabase, type Database, openDatabase } from '../../src/db/database.js';
import { LiveRailRepository } from '../../src/db/live-rail-repository.js';
import { resolveEvmNetworks } from '../../src/rails/evm/evm-networks.js';
import { EvmWatcher } from '../../src/rails/evm/evm-watcher.js';
import type { ObservedPayment, PaymentSink } from '../../src/rails/payment-rail-provider.js';
import { MERCHANT_WALLET } from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

let chain: LocalChain;
let usdc: `0x${string}`;
let dataDir: string;
let db: Database;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-watcher-race-'));
  db = await openDatabase({ kind: 'sqlite', dataDir });
});
afterAll(async () => {
  await closeDatabase(db);
  await chain?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A sink that stores nothing but the watcher's own rows, in one database transaction per payment,
 * and holds every payment until `expected` have arrived, so two watchers are inside
 * recordPayment for the same transfer at the same time.
 */
function barrierSink(expected: number) {
  const committed: ObservedPayment[] = [];
  const arrived: Array<() => void> = [];
  const sink: PaymentSink = {
    async recordPayment(payment) {
      await new Promise<void>((resolve) => {
        arrived.push(resolve);
        if (arrived.length === expected) for (const release of arrived) release();
      });
      await db.transaction().execute(async (scope) => {
        await payment.alongside?.(scope);
      });
      committed.push(payment);
    },
    async confirmPayment() {},
    async retractPayment() {},
  };
  return { sink, committed };
}

it('two watchers (two server nodes) racing on one transfer commit its payment once', async () => {
  const repository = new LiveRailRepository(db);
  const [config] = resolveEvmNetworks({
    rpcUrls: { POLYGON: chain.rpcUrl },
    tokens: { 'POLYGON:USDC': usdc },
    confirmations: { POLYGON: 5 },
  });
  const now = new Date().toISOString();
  await repository.tryHold(
    {
      network: 'POLYGON',
      asset: 'USDC',
      wallet_address: MERCHANT_WALLET.toLowerCase(),
      amount_base_units: '1000001',
      amount: '1.000001',
      transaction_code: '00000000-0000-4000-8000-000000000001',
      payment_method: 'usdc_polygon',
      held_until: '2999-01-01T00:00:00.000Z',
    },
    now,
  );
  const { sink, committed } = barrierSink(2);
  const logger = pino({ level: 'silent' });
  const watchers = [1, 2].map(() => new EvmWatcher(config!, repository, sink, () => new Date(), logger));
  await watchers[0]!.tick(); // stores the cursor at the current head

  const txHash = await chain.transfer(usdc, MERCHANT_WALLET, 1_000_001n, { mine: true });
  await Promise.all(watchers.map((watcher) => watcher.tick()));

  expect(committed).toHaveLength(1);
  expect(committed[0]).toMatchObject({ txId: txHash, amount: '1.000001', confirmAt: null });
  const stored = await db.selectFrom('chain_transfers').selectAll().where('tx_hash', '=', txHash).execute();
  expect(stored).toHaveLength(1);
  expect(stored[0]!.payment_id).toBe(committed[0]!.paymentId);
});
