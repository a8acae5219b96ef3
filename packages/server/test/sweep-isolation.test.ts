import { describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../src/db/schema.js';
import { checkoutBody, manualClock, startTestServer, startWebhookReceiver } from './helpers.js';

describe('background work with one transaction that cannot be updated', () => {
  it('still confirms, settles and sends the webhooks of every other transaction', async () => {
    const receiver = await startWebhookReceiver();
    const clock = manualClock();
    const server = await startTestServer({ clock: clock.now, sweepIntervalMs: 50 });
    try {
      // A payment the service could never have written (its USD value is not a number): refreshing
      // its transaction throws, the way one whose USD sum overflowed did.
      const poisoned = await server.client.createCheckout(checkoutBody({ external_reference: 'poisoned' }));
      await server.service.sandboxPay({
        transaction_code: poisoned.transaction_code,
        payment_method: 'usdc_polygon',
        size: 'partial',
        confirmed: false,
      });
      const healthy = await server.client.createCheckout(
        checkoutBody({ external_reference: 'healthy', webhook_url: receiver.url }),
      );
      await server.service.sandboxPay({
        transaction_code: healthy.transaction_code,
        payment_method: 'usdc_polygon',
        size: 'full',
        confirmed: false,
      });
      const { Kysely, SqliteDialect } = await import('kysely');
      const SQLite = (await import('better-sqlite3')).default;
      const file = new SQLite(`${server.dataDir}/cryptocheckout.sqlite`);
      file.pragma('busy_timeout = 5000');
      const raw = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: file }) });
      await raw
        .updateTable('payments')
        .set({ amount_usd: 'not-a-number' })
        .where('transaction_code', '=', poisoned.transaction_code)
        .execute();
      // Expired as well, so it is first in the sweep's list.
      await raw
        .updateTable('transactions')
        .set({ expires_at: '2026-11-01T10:00:01.000Z' })
        .where('transaction_code', '=', poisoned.transaction_code)
        .execute();
      await raw.destroy();

      // Both payments are now due to confirm. Only the sweep looks at the healthy transaction.
      clock.advanceSeconds(10);
      await expect(server.service.applyDueTransition(poisoned.transaction_code)).rejects.toThrow();
      await receiver.waitFor(1);
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({
        transaction_code: healthy.transaction_code,
      });
      expect((await server.client.getTransaction(healthy.transaction_code)).status).toBe('settled');
      // The poisoned transaction is still there to be looked at, and still skipped.
      expect(await server.service.sweep()).toBeGreaterThanOrEqual(1);
    } finally {
      await server.dispose();
      await receiver.close();
    }
  });
});
