import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachPhp, phpJson } from '../../php-testkit/src/index.js';
import { CLIENT_MOUNT, CLIENT_MOUNTS, VECTORS_ROOT } from './harness.js';

// The plugin kernel (src/Kernel), tested once for every plugin: the Runner over the reference
// in-memory platform (test/kernel/php/MemoryOrderPort.php) and a scripted service reached through
// the real Client, on PHP 7.4 and 8.3.

const BOOT = `
require '${CLIENT_MOUNT}/test/kernel/php/bootstrap.php';
use CryptoCheckout\\KernelTest\\World;
use CryptoCheckout\\KernelTest\\Scenario;
use CryptoCheckout\\KernelTest\\SimulatedCrash;
use CryptoCheckout\\Client\\Kernel\\Claim;
use CryptoCheckout\\Client\\Kernel\\PollPolicy;
use CryptoCheckout\\Client\\Kernel\\StoredCheckout;
use CryptoCheckout\\Client\\Kernel\\BuyerStatus;
use CryptoCheckout\\Client\\Kernel\\CheckoutLabels;
use CryptoCheckout\\Client\\Kernel\\SettingsRules;
use CryptoCheckout\\Client\\Kernel\\StatusWidgetMarkup;
`;

interface ReconcileCase {
  name: string;
  stored: Record<string, string>;
  lookup: Record<string, unknown>;
  expected: { action: string; reason?: string };
}

const reconcilePath = join(VECTORS_ROOT, 'reconcile.json');
const reconcileCases: ReconcileCase[] = existsSync(reconcilePath)
  ? (JSON.parse(readFileSync(reconcilePath, 'utf8')) as { cases: ReconcileCase[] }).cases
  : [];

interface OrderResult {
  state: string;
  payments: string[];
  claim: string | null;
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
function expectedEffect(action: string, stateBefore: string) {
  switch (action) {
    case 'mark_paid':
      return { state: 'paid', booked: true, ownerNotes: 0 };
    case 'hold_underpaid':
      return { state: 'underpaid', booked: false, ownerNotes: 0 };
    case 'cancel_expired':
      return { state: 'cancelled', booked: false, ownerNotes: 0 };
    case 'hold_late_payment':
      return { state: 'late_payment_review', booked: false, ownerNotes: 1 };
    case 'reject_mismatch':
      return { state: stateBefore, booked: stateBefore === 'paid', ownerNotes: 1 };
    default:
      return { state: stateBefore, booked: stateBefore === 'paid', ownerNotes: 0 };
  }
}

describeEachPhp(
  'plugin kernel',
  ({ php }) => {
    const run = <T>(code: string) => php().runJson(`${BOOT}\n${code}`) as Promise<T>;

    describe('every reconcile vector, applied through the Runner', () => {
      let results: Array<{
        state: string;
        booked: boolean;
        ownerNotes: number;
        outcome: { result: string; action: string | null; reason: string | null };
      }> = [];
      beforeAll(async () => {
        results = await run(`
          $cases = json_decode(file_get_contents('/vectors/reconcile.json'), true)['cases'];
          $out = [];
          foreach ($cases as $case) {
              $world = new World();
              $stored = $case['stored'];
              $world->port->addOrder('1', $stored['order_state']);
              $checkout = StoredCheckout::fromArray($stored + ['service_url' => World::SERVICE, 'created_at' => $world->clock->now, 'expires_at' => $world->clock->now + 3600]);
              $world->port->addCheckout('1', $checkout);
              if ($stored['order_state'] === 'paid') {
                  // Paid through this very checkout earlier.
                  $world->port->orders['1']['payments'][] = $checkout->transactionCode;
                  $checkout->resolution = StoredCheckout::RESOLUTION_BOOKED;
                  $world->port->recordApplied('1', $checkout);
              }
              $world->service->transactions[$checkout->transactionCode] = $case['lookup'];
              $outcome = $world->runner->run('1', 'poll', $checkout->transactionCode);
              $order = $world->port->orders['1'];
              $out[] = [
                  'state' => $order['state'],
                  'booked' => in_array($checkout->transactionCode, $order['payments'], true),
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
        const effect = expectedEffect(vector.expected.action, vector.stored.order_state as string);
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
          arbitrary: fc.record({ do: fc.constant('crash_at'), call: fc.integer({ min: 1, max: 12 }) }),
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

      it('completes every interrupted run: no claim is left, and money that arrived is never lost', () => {
        let checked = 0;
        for (const [index, result] of results.entries()) {
          const where = `scenario ${index}: ${JSON.stringify(scenarios[index])}`;
          const serviceWentDown = scenarios[index]?.some((event) => event.do === 'down') ?? false;
          for (const order of Object.values(result.orders)) {
            expect(order.claim, where).toBeNull();
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
              $first[] = $world->webhooks->handle('POST', $world->webhookBody($code))['reply']->body['data']['result'];
          }
          $second = [];
          $second[] = $world->runner->run('1', 'return')->result;
          $second[] = $world->webhooks->handle('POST', $world->webhookBody($code))['reply']->body['data']['result'];
          echo json_encode(['first' => $first, 'second' => $second, 'payments' => count($world->port->orders['1']['payments'])]);
        `);
        expect(replay.first).toEqual(['applied', 'unchanged', 'unchanged']);
        // The booked checkout is no longer watched: a return visit looks at nothing.
        expect(replay.second).toEqual(['no_checkout', 'unchanged']);
        expect(replay.payments).toBe(1);
      });
    });

    describe('a crash injected before every port call of a paying webhook', () => {
      type Summary = Pick<OrderResult, 'state' | 'payments' | 'claim'>;
      let results: Array<{
        call: number;
        crashed: boolean;
        afterCrash: Summary;
        afterPoll: Summary;
        final: Summary;
      }> = [];
      beforeAll(async () => {
        results = await run(`
          function summary(World $world): array {
              $o = $world->port->orders['1'];
              return ['state' => $o['state'], 'payments' => $o['payments'], 'claim' => $o['claim']];
          }
          $steps = World::stepsOfPayingWebhook();
          $out = [];
          for ($call = 1; $call <= $steps; $call++) {
              [$world, $code] = World::withPaidOrder();
              $world->port->crashAtCall = count($world->port->calls) + $call;
              $crashed = false;
              try {
                  $world->webhooks->handle('POST', $world->webhookBody($code));
              } catch (SimulatedCrash $crash) {
                  $crashed = true;
              }
              $afterCrash = summary($world);
              // The webhook is gone; the next scheduled poll comes after the claim's lease.
              $world->clock->now += Claim::LEASE_SECONDS + 60;
              $world->runner->poll(new PollPolicy());
              $afterPoll = summary($world);
              // A run that died after its work was done leaves only its claim; the next run on the
              // order (here the buyer's return) clears it.
              $world->runner->run('1', 'return');
              $out[] = ['call' => $call, 'crashed' => $crashed, 'afterCrash' => $afterCrash, 'afterPoll' => $afterPoll, 'final' => summary($world)];
          }
          echo json_encode($out);
        `);
      });

      it('covers every step of the run', () => {
        expect(results.length).toBeGreaterThanOrEqual(10);
        expect(results.every((result) => result.crashed)).toBe(true);
        // Some crashes leave the order claimed, some leave the payment booked but the order unpaid.
        expect(results.some((result) => result.afterCrash.claim !== null)).toBe(true);
      });

      it('is completed by the next poll: paid, one payment, no claim left', () => {
        for (const result of results) {
          expect(result.afterPoll.state, `crash before call ${result.call}`).toBe('paid');
          expect(result.afterPoll.payments, `crash before call ${result.call}`).toHaveLength(1);
          expect(result.final, `crash before call ${result.call}`).toEqual({
            state: 'paid',
            payments: [expect.any(String)],
            claim: null,
          });
        }
      });
    });

    describe('concurrent runs', () => {
      it('apply once when another request runs completely between any two steps of a run', async () => {
        const results = await run<
          Array<{ call: number; state: string; payments: number; claim: string | null }>
        >(`
          $steps = World::stepsOfPayingWebhook();
          $out = [];
          for ($call = 1; $call <= $steps; $call++) {
              [$world, $code] = World::withPaidOrder();
              $start = count($world->port->calls);
              $other = $world->secondRunner();
              $fired = false;
              $world->port->beforeCall = static function (string $method) use (&$fired, $world, $other, $start, $call): void {
                  if (!$fired && count($world->port->calls) === $start + $call) {
                      $fired = true;
                      $other->run('1', 'poll');
                  }
              };
              $world->webhooks->handle('POST', $world->webhookBody($code));
              $world->port->beforeCall = null;
              $o = $world->port->orders['1'];
              $out[] = ['call' => $call, 'state' => $o['state'], 'payments' => count($o['payments']), 'claim' => $o['claim']];
          }
          echo json_encode($out);
        `);
        expect(results.length).toBeGreaterThanOrEqual(10);
        for (const result of results) {
          expect(result, `other request before call ${result.call}`).toEqual({
            call: result.call,
            state: 'paid',
            payments: 1,
            claim: null,
          });
        }
      });

      it('a request that finds the order claimed answers busy and changes nothing', async () => {
        const result = await run<{ outcome: string; state: string; payments: number }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->port->orders['1']['claim'] = Claim::create('mark_paid', $code, $world->clock->now)->marker();
          $outcome = $world->runner->run('1', 'poll');
          echo json_encode(['outcome' => $outcome->result, 'state' => $world->port->orders['1']['state'], 'payments' => count($world->port->orders['1']['payments'])]);
        `);
        expect(result).toEqual({ outcome: 'busy', state: 'awaiting_payment', payments: 0 });
      });
    });

    describe('poll policy', () => {
      it('reaches a new order behind 60 stale ones, and never starves the old ones either', async () => {
        const result = await run<{ firstBatch: string[]; rounds: number; checkedAll: boolean }>(`
          $world = new World();
          // 60 orders from yesterday, all still open and in their late window (expired, never paid).
          for ($i = 1; $i <= 60; $i++) {
              $world->placeOrder('old-' . $i);
          }
          $world->clock->now += 3 * 3600;
          $world->runner->poll(new PollPolicy(500));   // all checked once (and cancelled as expired)
          $world->clock->now += 700;
          $new = $world->placeOrder('new');
          $due = $world->port->dueCheckouts(new PollPolicy(50), $world->clock->now);
          $first = array_map(static function (array $entry): string { return $entry[0]; }, $due);
          // Rounds until every watched checkout was looked at again.
          $rounds = 0;
          $seen = [];
          while (count($seen) < 61 && $rounds < 10) {
              foreach ($world->runner->poll(new PollPolicy(50)) as $outcome) {
                  $seen[$outcome->transactionCode] = true;
              }
              $rounds++;
          }
          echo json_encode(['firstBatch' => $first, 'rounds' => $rounds, 'checkedAll' => count($seen) === 61]);
        `);
        expect(result.firstBatch[0]).toBe('new');
        expect(result.firstBatch).toHaveLength(50);
        expect(result.checkedAll).toBe(true);
        expect(result.rounds).toBe(2);
      });

      it('watches a cancelled order through the late window, and stops after it', async () => {
        const result = await run<{ in23h: boolean; in26h: boolean; lateOutcome: string; state: string }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->clock->now += 3700;
          $world->service->update($code, ['status' => 'expired']);
          $world->runner->poll(new PollPolicy());     // cancels the order
          $policy = new PollPolicy();
          $checkout = $world->checkout('1', $code);
          $in23h = $policy->isDue($checkout, $world->clock->now + 23 * 3600);
          $in26h = $policy->isDue($checkout, $world->clock->now + 26 * 3600);
          // A late payment whose webhook is lost, 20 hours later: the poll finds it.
          $world->clock->now += 20 * 3600;
          $world->pay($code, '27.00', 'settled', true);
          $outcomes = $world->runner->poll($policy);
          echo json_encode(['in23h' => $in23h, 'in26h' => $in26h, 'lateOutcome' => $outcomes[0]->action, 'state' => $world->port->orders['1']['state']]);
        `);
        expect(result).toEqual({
          in23h: true,
          in26h: false,
          lateOutcome: 'hold_late_payment',
          state: 'late_payment_review',
        });
      });

      it('orders never-checked first, then least recently checked, newest first among equals', async () => {
        const order = await run<string[]>(`
          $policy = new PollPolicy(10);
          $entries = [];
          foreach ([['a', 100, null], ['b', 200, null], ['c', 50, 950], ['d', 300, 800], ['e', 400, 800]] as [$id, $created, $checked]) {
              $checkout = StoredCheckout::fromArray(['transaction_code' => $id, 'created_at' => $created, 'expires_at' => 5000, 'checked_at' => $checked]);
              $entries[] = [$id, $checkout];
          }
          echo json_encode(array_map(static function (array $e): string { return $e[0]; }, $policy->select($entries, 1000)));
        `);
        expect(order).toEqual(['b', 'a', 'e', 'd']); // c was checked 100 s ago: not due yet
      });
    });

    describe('several checkouts per order', () => {
      it('a replaced checkout paid for the old amount is held for review, not lost and not completed', async () => {
        const result = await run<{
          outcome: string | null;
          reason: string | null;
          state: string;
          payments: number;
          notes: string[];
        }>(`
          $world = new World();
          $old = $world->placeOrder('1', '25.00');
          $new = $world->placeOrder('1', '30.00');   // the owner changed the total
          $world->pay($old);
          $outcome = $world->webhooks->handle('POST', $world->webhookBody($old));
          $run = $world->runner->run('1', 'return', $old);
          $o = $world->port->orders['1'];
          echo json_encode(['outcome' => $run->action, 'reason' => $run->reason, 'state' => $o['state'], 'payments' => count($o['payments']), 'notes' => $o['notes']]);
        `);
        expect(result.state).toBe('late_payment_review');
        expect(result.payments).toBe(0);
        expect(result.notes.join('\n')).toContain('settled_replaced');
      });

      it('both checkouts paid: the order is paid once and the second payment is put before the owner', async () => {
        const result = await run<{ state: string; payments: number; ownerNotes: string[] }>(`
          $world = new World();
          $old = $world->placeOrder('1', '25.00');
          $new = $world->placeOrder('1', '30.00');
          $world->pay($new, '32.40');
          $world->webhooks->handle('POST', $world->webhookBody($new));
          $world->pay($old);                          // webhook lost
          $world->clock->now += 120;
          $world->runner->poll(new PollPolicy());
          $o = $world->port->orders['1'];
          echo json_encode(['state' => $o['state'], 'payments' => count($o['payments']), 'ownerNotes' => $o['notes']]);
        `);
        expect(result.state).toBe('paid');
        expect(result.payments).toBe(1);
        expect(result.ownerNotes).toContain('owner: extra_payment');
      });

      it('the old checkout paid first, then the new one: the order is paid by the new one, the old payment stays held', async () => {
        const result = await run<{
          first: string;
          second: string;
          reason: string;
          state: string;
          payments: string[];
          notes: string[];
        }>(`
          $world = new World();
          $old = $world->placeOrder('1', '25.00');
          $new = $world->placeOrder('1', '30.00');   // the owner changed the total
          $world->pay($old);
          $first = $world->runner->run('1', 'webhook', $old);
          $world->pay($new, '32.40');
          $second = $world->runner->run('1', 'webhook', $new);
          $again = $world->runner->run('1', 'webhook', $old);
          $o = $world->port->orders['1'];
          echo json_encode(['first' => $first->action, 'second' => $second->action, 'reason' => $second->reason, 'again' => $again->action, 'state' => $o['state'], 'payments' => array_keys($o['payments']), 'notes' => $o['notes']]);
        `);
        expect(result).toMatchObject({
          first: 'hold_late_payment',
          second: 'mark_paid',
          reason: 'settled_while_held',
          state: 'paid',
        });
        expect(result.payments).toHaveLength(1);
        expect(result.notes.join('\n')).toContain('held for review earlier is an extra payment');
      });

      it('a late payment on the same checkout that put the order on hold does not complete it', async () => {
        const result = await run<{ actions: (string | null)[]; state: string }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->clock->now += 3700;
          $world->service->update($code, ['status' => 'expired']);
          $a = $world->runner->run('1', 'poll', $code);          // cancelled
          $world->pay($code, '27.00', 'settled', true);
          $b = $world->runner->run('1', 'webhook', $code);       // held for review
          $world->clock->now += 120;
          $c = $world->runner->run('1', 'poll', $code);          // still held
          echo json_encode(['actions' => [$a->action, $b->action, $c->action], 'state' => $world->port->orders['1']['state']]);
        `);
        expect(result.actions.slice(0, 2)).toEqual(['cancel_expired', 'hold_late_payment']);
        expect(result.actions[2]).not.toBe('mark_paid');
        expect(result.state).toBe('late_payment_review');
      });

      it('an order marked paid by hand is never booked a second time', async () => {
        const result = await run<{ action: string | null; payments: number; notes: string[] }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->port->orders['1']['state'] = 'paid';     // "Payment accepted" set by the merchant
          $world->pay($code);
          $outcome = $world->runner->run('1', 'webhook', $code);
          $o = $world->port->orders['1'];
          echo json_encode(['action' => $outcome->action, 'payments' => count($o['payments']), 'notes' => $o['notes']]);
        `);
        expect(result).toEqual({
          action: 'flag_extra_payment',
          payments: 0,
          notes: ['owner: extra_payment'],
        });
      });
    });

    describe('checkout opener', () => {
      it('one checkout for repeated presses; a changed amount makes a new one and keeps the old', async () => {
        const result = await run<{ same: boolean; created: number; codes: number; third: string }>(`
          $world = new World();
          $world->port->addOrder('1');
          $a = $world->opener->open('1', $world->terms('1'))['checkout']->transactionCode;
          $b = $world->opener->open('1', $world->terms('1'))['checkout']->transactionCode;
          $third = $world->opener->open('1', $world->terms('1', '26.00'));
          echo json_encode(['same' => $a === $b, 'created' => $world->service->created, 'codes' => count($world->port->orders['1']['checkouts']), 'third' => $third['result']]);
        `);
        expect(result).toEqual({ same: true, created: 2, codes: 2, third: 'created' });
      });

      it('asks which rails take the amount before creating, and creates nothing when none does', async () => {
        const result = await run<{
          refused: string;
          below: boolean;
          smallest: string | null;
          created: number;
          checkouts: number;
          asked: number;
          reuseAsked: number;
        }>(`
          $world = new World();
          $world->port->addOrder('1');
          $world->port->addOrder('2');
          $refused = '';
          $below = false;
          $smallest = null;
          try {
              $world->opener->open('1', $world->terms('1', '0.10'));
          } catch (\\CryptoCheckout\\Client\\Exception\\NoRailAvailableException $e) {
              $refused = $e->getFiatAmount() . ' ' . $e->getFiatCurrency();
              $below = $e->isBelowMinimum();
              $smallest = $e->getSmallestMinimumUsd();
          }
          $asked = $world->service->optionQuestions;
          $world->opener->open('2', $world->terms('2'));
          $world->opener->open('2', $world->terms('2'));   // reused: no second question
          echo json_encode(['refused' => $refused, 'below' => $below, 'smallest' => $smallest, 'created' => $world->service->created, 'checkouts' => count($world->port->orders['1']['checkouts']), 'asked' => $asked, 'reuseAsked' => $world->service->optionQuestions]);
        `);
        expect(result).toEqual({
          refused: '0.10 EUR',
          below: true,
          smallest: '0.50',
          created: 1,
          checkouts: 0,
          asked: 1,
          reuseAsked: 2,
        });
      });

      it('a checkout settled at the service pays the order instead of opening another', async () => {
        const result = await run<{ result: string; created: number; state: string }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->clock->now += 4000;                        // expired here…
          $world->pay($code, '27.00', 'settled', true);     // …but paid late, webhook lost
          $opened = $world->opener->open('1', $world->terms('1'));
          echo json_encode(['result' => $opened['result'], 'created' => $world->service->created, 'state' => $world->port->orders['1']['state']]);
        `);
        expect(result).toEqual({ result: 'paid', created: 1, state: 'paid' });
      });

      it('part paid and expired: no second checkout that would make the buyer pay twice', async () => {
        const result = await run<{ result: string; created: number }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code, '10.00', 'underpaid');
          $world->clock->now += 4000;
          $world->service->update($code, ['status' => 'expired']);
          $opened = $world->opener->open('1', $world->terms('1'));
          echo json_encode(['result' => $opened['result'], 'created' => $world->service->created]);
        `);
        expect(result).toEqual({ result: 'held', created: 1 });
      });
    });

    describe('webhook handler', () => {
      it('answers by the documented status policy', async () => {
        const result = await run<Record<string, [number, unknown]>>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $reply = static function (array $handled): array { return [$handled['reply']->status, $handled['reply']->body]; };
          $out = [];
          $out['get'] = $reply($world->webhooks->handle('GET', ''));
          $out['large'] = $reply($world->webhooks->handle('POST', str_repeat(' ', 70000)));
          $out['not_json'] = $reply($world->webhooks->handle('POST', 'nope'));
          $body = json_decode($world->webhookBody($code), true);
          $unknown = $body; $unknown['transaction_code'] = '11111111-1111-4111-8111-111111111111';
          $out['unknown'] = $reply($world->webhooks->handle('POST', json_encode($unknown)));
          $world->service->down = true;
          $out['down'] = $reply($world->webhooks->handle('POST', json_encode($body)));
          $out['down_state'] = [0, $world->port->orders['1']['state']];
          $world->service->down = false;
          $out['paid'] = $reply($world->webhooks->handle('POST', json_encode($body)));
          $out['replay'] = $reply($world->webhooks->handle('POST', json_encode($body)));
          $missing = $body; unset($missing['fiat_currency']);
          $out['missing'] = $reply($world->webhooks->handle('POST', json_encode($missing)));
          echo json_encode($out);
        `);
        expect(result.get?.[0]).toBe(405);
        expect(result.large).toEqual([413, expect.objectContaining({ status: 'error' })]);
        expect(result.not_json).toEqual([
          400,
          { status: 'error', error: expect.objectContaining({ code: 'invalid_request', field: 'body' }) },
        ]);
        expect(result.unknown).toEqual([200, { status: 'success', data: { result: 'ignored' } }]);
        expect(result.down).toEqual([503, expect.objectContaining({ status: 'error' })]);
        expect(result.down_state?.[1]).toBe('awaiting_payment');
        expect(result.paid).toEqual([200, { status: 'success', data: { result: 'applied' } }]);
        expect(result.replay).toEqual([200, { status: 'success', data: { result: 'unchanged' } }]);
        expect(result.missing).toEqual([
          400,
          { status: 'error', error: expect.objectContaining({ field: 'fiat_currency' }) },
        ]);
      });

      it('an unsigned body never completes an order by itself: the lookup decides', async () => {
        const result = await run<Record<string, unknown>>(`
          $world = new World();
          $code = $world->placeOrder('1');
          // The body claims the full amount was received; the service says nothing was paid.
          $body = json_decode($world->webhookBody($code), true);
          $body['received_usd'] = 27;
          $handled = $world->webhooks->handle('POST', json_encode($body));
          $forged = ['status' => $handled['reply']->status, 'state' => $world->port->orders['1']['state'], 'verified' => $handled['verified']];
          $world->pay($code);
          $genuine = $world->webhooks->handle('POST', $world->webhookBody($code));
          $replayed = $world->webhooks->handle('POST', $world->webhookBody($code));
          echo json_encode(['forged' => $forged, 'genuine' => $genuine['verified'], 'replayed' => $replayed['verified']]);
        `);
        // Not even a "last webhook received" time: the service did not confirm what the body said.
        expect(result).toEqual({
          forged: { status: 200, state: 'awaiting_payment', verified: false },
          genuine: true,
          replayed: true,
        });
      });
    });

    describe('checkout labels', () => {
      it('tells the merchant what a checkout stands at in words, translated, never in codes', async () => {
        const result = await run<Record<string, string[]>>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $now = $world->clock->now;
          $label = static function (World $world, int $now): array {
              $checkout = $world->port->checkouts('1')[0];
              return [CheckoutLabels::state($checkout, $now), CheckoutLabels::resolution($checkout, $now), CheckoutLabels::receivedUsd($checkout)];
          };
          $out = ['new' => $label($world, $now)];
          $world->pay($code, '10.00', 'underpaid');
          $world->runner->run('1', 'return');
          $out['underpaid'] = $label($world, $now);
          $out['underpaid_closed'] = $label($world, $now + 4000);
          $out['underpaid_unwatched'] = $label($world, $now + 40 * 86400);
          $world->pay($code, '27.00', 'settled');
          $world->runner->run('1', 'return');
          $out['paid'] = $label($world, $now);
          $checkout = $world->port->checkouts('1')[0];
          $out['translated'] = [CheckoutLabels::state($checkout, $now, static function (string $text, array $parameters): string { return strtoupper($text); })];
          echo json_encode($out);
        `);
        expect(result.new?.slice(0, 2)).toEqual(['Awaiting payment', 'Watched']);
        expect(result.underpaid).toEqual(['Part paid', 'Order on hold for the rest', '10.00 USD']);
        expect(result.underpaid_closed?.[0]).toBe('Part paid — window closed');
        expect(result.underpaid_unwatched?.[1]).toBe('Order on hold; no longer watched');
        expect(result.paid).toEqual(['Paid', 'Payment booked on the order', '27.00 USD']);
        expect(result.translated).toEqual(['PAID']);
      });
    });

    describe('buyer status and its markup', () => {
      it('offers the payment page only while paying is possible', async () => {
        const result = await run<
          Record<string, { state: string; terminal: boolean; checkout_url: string | null; message: string }>
        >(`
          $world = new World();
          $code = $world->placeOrder('1');
          $now = $world->clock->now;
          $out = [];
          $out['open'] = BuyerStatus::of('awaiting_payment', $world->port->checkouts('1'), $now);
          $world->pay($code, '10.00', 'underpaid');
          $world->runner->run('1', 'return');
          $out['underpaid'] = BuyerStatus::of($world->port->orderState('1'), $world->port->checkouts('1'), $now);
          $out['underpaid_expired'] = BuyerStatus::of($world->port->orderState('1'), $world->port->checkouts('1'), $now + 4000);
          $out['paid'] = BuyerStatus::of('paid', $world->port->checkouts('1'), $now);
          echo json_encode($out);
        `);
        expect(result.open).toMatchObject({
          state: 'awaiting_payment',
          terminal: false,
          checkout_url: expect.stringContaining('/pay/'),
        });
        expect(result.underpaid).toMatchObject({
          state: 'underpaid',
          terminal: false,
          checkout_url: expect.stringContaining('/pay/'),
        });
        expect(result.underpaid_expired).toMatchObject({
          state: 'underpaid',
          terminal: true,
          checkout_url: null,
        });
        expect(result.underpaid_expired?.message).toContain('window has closed');
        expect(result.paid).toMatchObject({ state: 'paid', terminal: true, checkout_url: null });
      });

      it('escapes every value it writes', async () => {
        const html = await run<string>(`
          $status = ['state' => 'awaiting_payment', 'message' => '<b>"hi"</b>', 'terminal' => false, 'checkout_url' => 'https://pay.example.com/pay/x?a=1&b="2"'];
          echo json_encode(StatusWidgetMarkup::render($status, 'https://shop.example/status?id=1&key=<k>', null, true));
        `);
        expect(html).toContain('&lt;b&gt;&quot;hi&quot;&lt;/b&gt;');
        expect(html).not.toContain('<b>');
        expect(html).toContain('href="https://pay.example.com/pay/x?a=1&amp;b=&quot;2&quot;"');
        expect(html).toContain('data-cryptocheckout-status');
        const config = /data-config="([^"]*)"/.exec(html)?.[1] ?? '';
        const decoded = JSON.parse(
          config
            .replaceAll('&quot;', '"')
            .replaceAll('&lt;', '<')
            .replaceAll('&gt;', '>')
            .replaceAll('&#039;', "'")
            .replaceAll('&amp;', '&'),
        );
        expect(decoded).toMatchObject({
          statusUrl: 'https://shop.example/status?id=1&key=<k>',
          openModal: true,
        });
      });
    });

    describe('settings rules', () => {
      it('cleans and checks the four settings by one policy', async () => {
        const result = await run<
          Record<string, { values: Record<string, string>; errors: Record<string, string> }>
        >(`
          $ok = ['service_url' => "  https://pay.example.com/api/ \\n", 'wallet_network' => 'polygon', 'wallet_currency' => 'usdc', 'wallet_address' => "\\u{00A0}0x3c499c542cef5e3811e1192ce70d8cc03d5c3359\\u{200B} "];
          $out = ['ok' => SettingsRules::validate($ok)];
          $out['prefix'] = SettingsRules::validate(['service_url' => 'https://example.com/checkout/'] + $ok);
          $out['query'] = SettingsRules::validate(['service_url' => 'https://example.com/?a=1', 'wallet_address' => '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359 inner'] + $ok);
          $out['scheme'] = SettingsRules::validate(['service_url' => 'javascript:alert(1)'] + $ok);
          $out['asset'] = SettingsRules::validate(['wallet_network' => 'BITCOIN', 'wallet_currency' => 'USDC'] + $ok);
          $out['translated'] = SettingsRules::validate(['wallet_network' => 'NOPE'] + $ok, static function (string $text, array $params): string {
              return 'FR: ' . strtr($text, $params);
          });
          echo json_encode($out);
        `);
        expect(result.ok).toEqual({
          values: {
            service_url: 'https://pay.example.com',
            wallet_network: 'POLYGON',
            wallet_currency: 'USDC',
            wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
          },
          errors: [],
        });
        expect(result.prefix?.values.service_url).toBe('https://example.com/checkout');
        expect(Object.keys(result.query?.errors ?? {}).sort()).toEqual(['service_url', 'wallet_address']);
        expect(result.query?.errors.wallet_address).toMatch(/spaces or invisible/);
        expect(result.scheme?.errors.service_url).toMatch(/^Service URL:/);
        expect(Object.keys(result.asset?.errors ?? {})).toEqual(['wallet_currency', 'wallet_address']);
        expect(result.translated?.errors.wallet_network).toMatch(/^FR: Network: choose one of .*POLYGON/);
      });
    });

    describe('lookups that fail', () => {
      it('record the attempt, leave the order and its claim alone, and are retried by the next poll', async () => {
        const result = await run<{ outcome: string; checked: boolean; claim: string | null; later: string }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->service->down = true;
          $world->clock->now += 61;
          $outcome = $world->runner->run('1', 'poll');
          $checked = $world->checkout('1', $code)->checkedAt === $world->clock->now;
          $world->service->down = false;
          $world->clock->now += 61;
          $later = $world->runner->poll(new PollPolicy());
          echo json_encode(['outcome' => $outcome->result, 'checked' => $checked, 'claim' => $world->port->orders['1']['claim'], 'later' => $later[0]->result]);
        `);
        expect(result).toEqual({ outcome: 'lookup_failed', checked: true, claim: null, later: 'applied' });
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
