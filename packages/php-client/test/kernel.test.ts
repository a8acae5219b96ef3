import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEachPhp, phpJson } from '@cryptocheckout/php-testkit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS, VECTORS_ROOT } from './harness.js';
import { KERNEL_BOOT } from './kernel-boot.js';

// The plugin kernel (src/Kernel), tested once for every plugin: the Runner over the reference
// in-memory platform (test/kernel/php/MemoryOrders.php), the kernel's ledger on a real SQLite
// database, and a scripted service reached through the real Client, on PHP 7.4 and 8.3. Flows and
// the ledger's SQL have their own files (kernel-flows.test.ts, ledger.test.ts).

interface ReconcileCase {
  name: string;
  stored: Record<string, unknown> & { order_state: string };
  lookup: Record<string, unknown>;
  expected: { action: string; reason?: string };
}

const reconcileCases = (
  JSON.parse(readFileSync(join(VECTORS_ROOT, 'reconcile.json'), 'utf8')) as { cases: ReconcileCase[] }
).cases;

interface OrderResult {
  state: string;
  payments: string[];
  claimed: boolean;
  owner_notes: number;
  codes: string[];
}
interface ScenarioResult {
  orders: Record<string, OrderResult>;
  outcomes: string[];
  crashes: number;
  settledFull: Record<string, boolean>;
}

/** What the platform must show after the kernel applied a vector's expected action. */
function expectedEffect(action: string, vector: ReconcileCase) {
  const before = vector.stored.order_state;
  const bookedBefore = vector.stored.payment_booked === true;
  switch (action) {
    case 'mark_paid':
      return { state: 'paid', booked: true, ownerNotes: 0 };
    case 'record_booked':
      return { state: before, booked: true, ownerNotes: 0 };
    case 'hold_underpaid':
      return { state: 'underpaid', booked: bookedBefore, ownerNotes: 0 };
    case 'cancel_expired':
      return { state: 'cancelled', booked: bookedBefore, ownerNotes: 0 };
    case 'hold_late_payment':
      return { state: 'late_payment_review', booked: bookedBefore, ownerNotes: 1 };
    case 'reject_mismatch':
    case 'flag_extra_payment':
      return { state: before, booked: bookedBefore, ownerNotes: 1 };
    default:
      return { state: before, booked: bookedBefore, ownerNotes: 0 };
  }
}

describeEachPhp(
  'plugin kernel',
  ({ php }) => {
    const run = <T>(code: string) => php().runJson(`${KERNEL_BOOT}\n${code}`) as Promise<T>;

    describe('every reconcile vector, applied through the Runner and the ledger', () => {
      let results: Array<{
        state: string;
        booked: boolean;
        ownerNotes: number;
        outcome: { result: string; action: string | null; reason: string | null };
      }> = [];
      beforeAll(async () => {
        // Each vector's "stored" side is set up as the ledger and the platform would hold it:
        // the order's state, the checkout's applied fields, a payment when booked, and a newer
        // checkout when the vector's checkout is not the newest.
        results = await run(`
          $cases = json_decode(file_get_contents('/vectors/reconcile.json'), true)['cases'];
          $out = [];
          foreach ($cases as $case) {
              $world = new World();
              $stored = $case['stored'];
              $state = $stored['order_state'];
              $onHold = in_array($state, ['underpaid', 'late_payment_review'], true);
              $world->orders->addOrder('1', $onHold ? MemoryOrders::ON_HOLD : $state);
              if ($onHold) {
                  $world->ledger->recordState('1', $state);
              }
              $now = $world->clock->now;
              $checkout = StoredCheckout::fromArray($stored + ['service_url' => World::SERVICE, 'created_at' => $now - 60, 'expires_at' => $now + 3600, 'watch_until' => $now + 90000]);
              $world->ledger->add('1', $checkout);
              if (($stored['newest'] ?? true) === false) {
                  $newer = $stored['replaced_by'] ?? ['transaction_code' => '99999999-9999-4999-8999-999999999999', 'fiat_amount' => $stored['fiat_amount'], 'fiat_currency' => $stored['fiat_currency']];
                  $wallet = array_intersect_key($stored, array_flip(['wallet_address', 'wallet_currency', 'wallet_network']));
                  $world->ledger->add('1', StoredCheckout::fromArray($newer + $wallet + ['service_url' => World::SERVICE, 'created_at' => $now, 'expires_at' => $now + 3600]));
              }
              if (($stored['payment_booked'] ?? false) === true) {
                  $world->orders->orders['1']['payments'][] = $checkout->transactionCode;
              }
              $world->service->transactions[$checkout->transactionCode] = $case['lookup'];
              $outcome = $world->kernel->runner()->run('1', 'poll', $checkout->transactionCode);
              $order = $world->orders->orders['1'];
              $out[] = [
                  'state' => $world->state('1'),
                  'booked' => in_array($checkout->transactionCode, $order['payments'], true),
                  'payments' => count($order['payments']),
                  'ownerNotes' => count(array_filter($order['notes'], static function ($n) { return strpos($n, 'owner: ') === 0; })),
                  'outcome' => ['result' => $outcome->result, 'action' => $outcome->action, 'reason' => $outcome->reason],
              ];
          }
          echo json_encode($out);
        `);
      });

      it.each(
        reconcileCases.map((vector, index) => [vector.name, vector, index] as const),
      )('%s', (_name, vector, index) => {
        const result = results[index];
        const effect = expectedEffect(vector.expected.action, vector);
        expect(result?.outcome.action).toBe(vector.expected.action);
        if (vector.expected.reason !== undefined) expect(result?.outcome.reason).toBe(vector.expected.reason);
        expect(result?.state).toBe(effect.state);
        expect(result?.booked).toBe(effect.booked);
        expect(result?.ownerNotes).toBe(effect.ownerNotes);
        expect(result?.outcome.result).toBe(vector.expected.action === 'none' ? 'unchanged' : 'applied');
      });
    });

    describe('properties', () => {
      const orderIds = fc.constantFrom('1', '2');
      const event = fc.oneof(
        {
          weight: 2,
          arbitrary: fc.record({
            do: fc.constant('open'),
            order: orderIds,
            amount: fc.constantFrom('25.00', '30.00'),
          }),
        },
        {
          weight: 5,
          arbitrary: fc.record({
            do: fc.constant('pay'),
            order: orderIds,
            usd: fc.constantFrom('27.00', '13.50', '30.00', '26.99'),
            status: fc.constantFrom('settled', 'settled', 'underpaid', 'processing'),
          }),
        },
        { weight: 1, arbitrary: fc.record({ do: fc.constant('expire'), order: orderIds }) },
        { weight: 3, arbitrary: fc.record({ do: fc.constant('webhook'), order: orderIds }) },
        { weight: 2, arbitrary: fc.record({ do: fc.constant('poll') }) },
        { weight: 1, arbitrary: fc.record({ do: fc.constant('return'), order: orderIds }) },
        { weight: 1, arbitrary: fc.record({ do: fc.constant('cancel_by_hand'), order: orderIds }) },
        {
          weight: 2,
          arbitrary: fc.record({ do: fc.constant('wait'), seconds: fc.constantFrom(30, 61, 3700, 90_000) }),
        },
        { weight: 1, arbitrary: fc.record({ do: fc.constantFrom('down', 'up') }) },
        {
          weight: 2,
          // A request has about 20 steps (platform calls and SQL statements).
          arbitrary: fc.record({ do: fc.constant('crash_at'), call: fc.integer({ min: 1, max: 30 }) }),
        },
      );
      const scenarios = fc.sample(
        fc
          .array(event, { minLength: 2, maxLength: 18 })
          .map((events) => [{ do: 'open', order: '1', amount: '25.00' }, ...events]),
        { numRuns: 200, seed: 20261124 },
      );
      let results: ScenarioResult[] = [];
      beforeAll(async () => {
        results = await run(`
          $out = [];
          foreach (${phpJson(scenarios)} as $events) {
              $out[] = Scenario::play($events);
          }
          echo json_encode($out);
        `);
      });

      it('never books a payment unless the service reported that checkout settled with received >= due', () => {
        for (const [index, result] of results.entries()) {
          for (const order of Object.values(result.orders)) {
            for (const code of order.payments) {
              expect(result.settledFull[code], `scenario ${index}: ${JSON.stringify(scenarios[index])}`).toBe(
                true,
              );
            }
          }
        }
      });

      it('is paid only with a booked payment, books each payment once, and never fails applying', () => {
        for (const [index, result] of results.entries()) {
          const where = `scenario ${index}: ${JSON.stringify(scenarios[index])}`;
          expect(
            result.outcomes.filter((outcome) => outcome.endsWith(':failed')),
            where,
          ).toEqual([]);
          for (const order of Object.values(result.orders)) {
            if (order.state === 'paid') expect(order.payments.length, where).toBeGreaterThanOrEqual(1);
            expect(order.payments.length, where).toBeLessThanOrEqual(1);
          }
        }
      });

      it('completes every interrupted run: no claim holds an order, and money that arrived is never lost', () => {
        let checked = 0;
        for (const [index, result] of results.entries()) {
          const where = `scenario ${index}: ${JSON.stringify(scenarios[index])}`;
          const serviceWentDown = scenarios[index]?.some((event) => event.do === 'down') ?? false;
          for (const order of Object.values(result.orders)) {
            expect(order.claimed, where).toBe(false);
            if (serviceWentDown || !order.codes.some((code) => result.settledFull[code])) continue;
            // Paid, held for review, or put before the owner: a settled payment always lands somewhere.
            checked++;
            expect(
              order.state === 'paid' || order.state === 'late_payment_review' || order.owner_notes > 0,
              where,
            ).toBe(true);
          }
        }
        expect(checked).toBeGreaterThan(20);
        expect(results.filter((result) => result.crashes > 0).length).toBeGreaterThan(10);
      });

      it('replays change nothing: a second pass over a finished world is all "unchanged"', async () => {
        const replay = await run<{ first: string[]; second: string[]; payments: number }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $first = [];
          for ($i = 0; $i < 3; $i++) {
              $first[] = $world->webhook($code)['reply']->body['data']['result'];
          }
          $second = [];
          $second[] = $world->kernel->check('1', 'return', 0)->result;
          $second[] = $world->webhook($code)['reply']->body['data']['result'];
          // A poll a minute later sees the order still paid and confirms the booking.
          $world->clock->now += 61;
          $world->kernel->poll();
          $second[] = $world->kernel->check('1', 'return', 0)->result;
          echo json_encode(['first' => $first, 'second' => $second, 'payments' => count($world->orders->orders['1']['payments'])]);
        `);
        expect(replay.first).toEqual(['applied', 'unchanged', 'unchanged']);
        // Until a poll has seen the order paid, a return visit looks once more; then at nothing.
        expect(replay.second).toEqual(['unchanged', 'unchanged', 'no_checkout']);
        expect(replay.payments).toBe(1);
      });
    });

    describe('a crash injected before every step (platform call or SQL statement) of a paying webhook', () => {
      type Summary = { state: string; payments: string[]; claimed: boolean };
      let results: Array<{
        step: number;
        name: string;
        crashed: boolean;
        afterCrash: Summary;
        afterPoll: Summary;
      }> = [];
      beforeAll(async () => {
        results = await run(`
          $steps = World::stepsOfPayingWebhook();
          $out = [];
          for ($step = 1; $step <= $steps; $step++) {
              [$world, $code] = World::withPaidOrder();
              $world->steps->crashAt = $world->steps->count() + $step;
              $crashed = false;
              try {
                  $world->webhook($code);
              } catch (SimulatedCrash $crash) {
                  $crashed = true;
              }
              $world->steps->revive();
              $name = $world->steps->log[count($world->steps->log) - 1];
              $afterCrash = $world->summary('1');
              // The webhook is gone; the next scheduled poll comes after the claim's lease.
              $world->clock->now += Claim::LEASE_SECONDS + 60;
              $world->kernel->poll(new PollPolicy());
              $out[] = ['step' => $step, 'name' => $name, 'crashed' => $crashed, 'afterCrash' => $afterCrash, 'afterPoll' => $world->summary('1')];
          }
          echo json_encode($out);
        `);
      });

      it('covers every step of the run', () => {
        expect(results.length).toBeGreaterThanOrEqual(15);
        expect(results.every((result) => result.crashed)).toBe(true);
        const names = results.map((result) => result.name);
        expect(names).toEqual(expect.arrayContaining(['bookPayment', 'changeOrderState', 'sql:UPDATE']));
        // Some crashes leave the order claimed, some leave the payment booked but not recorded.
        expect(results.some((result) => result.afterCrash.claimed)).toBe(true);
        expect(
          results.some(
            (result) => result.afterCrash.payments.length === 1 && result.afterCrash.state !== 'paid',
          ),
        ).toBe(true);
      });

      it('is completed by the next poll: paid, one payment, no claim left', () => {
        for (const result of results) {
          expect(result.afterPoll, `crash before step ${result.step} (${result.name})`).toEqual({
            state: 'paid',
            payments: [expect.any(String)],
            claimed: false,
          });
        }
      });

      it('records a payment an interrupted run booked with the price line the checkout locked', async () => {
        const logged = await run<Array<{ step: number; price: string | null }>>(`
          $steps = World::stepsOfPayingWebhook();
          $out = [];
          for ($step = 1; $step <= $steps; $step++) {
              [$world, $code] = World::withPaidOrder();
              $world->service->update($code, ['rate' => [
                  'usd_per_unit' => '1.0612', 'source' => 'ECB 2026-11-27 15:00 UTC', 'sources' => ['ECB'],
                  'as_of' => '2026-11-27T15:00:00.000Z', 'spread_percent' => '0', 'held_until' => '2026-11-29T15:02:00.000Z',
              ]]);
              $world->steps->crashAt = $world->steps->count() + $step;
              try {
                  $world->webhook($code);
              } catch (SimulatedCrash $crash) {
              }
              $world->steps->revive();
              $world->clock->now += Claim::LEASE_SECONDS + 60;
              $world->kernel->poll(new PollPolicy());
              foreach ($world->orders->logs as [$level, $message, $context]) {
                  if (($context['action'] ?? null) === 'record_booked') {
                      $out[] = ['step' => $step, 'price' => $context['price'] ?? null];
                  }
              }
          }
          echo json_encode($out);
        `);
        // Crashes between booking the payment and recording it leave a booking to record.
        expect(logged.length).toBeGreaterThan(0);
        for (const entry of logged) {
          expect(entry.price, `crash before step ${entry.step}`).toBe(
            'Priced at 1 EUR = 1.0612 USD (ECB 2026-11-27 15:00 UTC), held until 2026-11-29 15:02 UTC.',
          );
        }
      });
    });

    describe('concurrent requests', () => {
      it('apply once when another request runs completely between any two steps of a run', async () => {
        const results = await run<
          Array<{ step: number; name: string; state: string; payments: number; claimed: boolean }>
        >(`
          $steps = World::stepsOfPayingWebhook();
          $out = [];
          foreach (['poll', 'webhook', 'status'] as $other) {
              for ($step = 1; $step <= $steps; $step++) {
                  [$world, $code] = World::withPaidOrder();
                  $start = $world->steps->count();
                  $second = $world->newKernel();
                  $fired = false;
                  $name = '';
                  $world->steps->before = static function (string $what) use (&$fired, &$name, $world, $second, $start, $step, $other, $code): void {
                      if (!$fired && $world->steps->count() === $start + $step) {
                          $fired = true;
                          $name = $what;
                          $world->clock->now += 1;
                          if ($other === 'poll') {
                              $second->poll(new PollPolicy());
                          } elseif ($other === 'webhook') {
                              $second->webhook('POST', $world->webhookBody($code), '198.51.100.7');
                          } else {
                              $second->buyerStatus('1');
                          }
                      }
                  };
                  $world->webhook($code);
                  $world->steps->before = null;
                  $o = $world->orders->orders['1'];
                  $out[] = ['other' => $other, 'step' => $step, 'name' => $name, 'state' => $world->state('1'), 'payments' => count($o['payments']), 'claimed' => $world->ledger->isClaimed('1', $world->clock->now)];
              }
          }
          echo json_encode($out);
        `);
        expect(results.length).toBeGreaterThanOrEqual(45);
        for (const result of results) {
          expect(result, `${JSON.stringify(result)}`).toMatchObject({
            state: 'paid',
            payments: 1,
            claimed: false,
          });
        }
      });

      it('a request that finds the order claimed answers busy and changes nothing', async () => {
        const result = await run<{ outcome: string; state: string; payments: number }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->ledger->claim('1', 'mark_paid', $code, $world->clock->now);
          $outcome = $world->kernel->check('1', 'poll', 0);
          echo json_encode(['outcome' => $outcome->result, 'state' => $world->state('1'), 'payments' => count($world->orders->orders['1']['payments'])]);
        `);
        expect(result).toEqual({ outcome: 'busy', state: 'awaiting_payment', payments: 0 });
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
