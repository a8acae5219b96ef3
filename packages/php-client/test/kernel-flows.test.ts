import { describeEachPhp } from '@cryptocheckout/php-testkit';
import { describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS } from './harness.js';
import { KERNEL_BOOT } from './kernel-boot.js';

// The kernel's flows over the in-memory platform and the SQLite ledger: the poll, several
// checkouts per order, opening checkouts, the webhook endpoint, what the buyer and the merchant
// read, and the settings rules. Each defect found in the real shops has its test here.

describeEachPhp(
  'plugin kernel flows',
  ({ php }) => {
    const run = <T>(code: string) => php().runJson(`${KERNEL_BOOT}\n${code}`) as Promise<T>;

    describe('poll', () => {
      it('reaches a new order behind 60 stale ones, and never starves the old ones either', async () => {
        const result = await run<{ firstBatch: string[]; rounds: number; checkedAll: boolean }>(`
          $world = new World();
          // 60 orders from yesterday, all still open and in their late window (expired, never paid).
          for ($i = 1; $i <= 60; $i++) {
              $world->placeOrder('old-' . $i);
          }
          $world->clock->now += 3 * 3600;
          $world->kernel->poll(new PollPolicy(500));   // all checked once (and cancelled as expired)
          $world->clock->now += 700;
          $new = $world->placeOrder('new');
          $due = $world->ledger->due(new PollPolicy(50), $world->clock->now);
          $first = array_map(static function (array $entry): string { return $entry[0]; }, $due);
          // Rounds until every watched checkout was looked at again.
          $rounds = 0;
          $seen = [];
          while (count($seen) < 61 && $rounds < 10) {
              foreach ($world->kernel->poll(new PollPolicy(50)) as $outcome) {
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
          $world->kernel->poll();     // cancels the order
          $policy = new PollPolicy();
          $checkout = $world->checkout('1', $code);
          $in23h = $policy->isDue($checkout, $world->clock->now + 23 * 3600);
          $in26h = $policy->isDue($checkout, $world->clock->now + 26 * 3600);
          // A late payment whose webhook is lost, 20 hours later: the poll finds it.
          $world->clock->now += 20 * 3600;
          $world->pay($code, '27.00', 'settled', true);
          $outcomes = $world->kernel->poll($policy);
          echo json_encode(['in23h' => $in23h, 'in26h' => $in26h, 'lateOutcome' => $outcomes[0]->action, 'state' => $world->state('1')]);
        `);
        expect(result).toEqual({
          in23h: true,
          in26h: false,
          lateOutcome: 'hold_late_payment',
          state: 'late_payment_review',
        });
      });

      it('checks an order right after its expiry, not ten minutes later (the polling promise)', async () => {
        // Checked 30 s before the checkout expires, then the buyer never pays: the first poll after
        // the expiry cancels the order and frees its stock.
        const result = await run<{
          dueAt: number;
          expiresAt: number;
          dueAfterExpiry: string[];
          state: string;
        }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $checkout = $world->checkout('1', $code);
          $world->clock->now = $checkout->expiresAt - 30;
          $world->kernel->poll();
          $checkout = $world->checkout('1', $code);
          $world->clock->now = $checkout->expiresAt + 5;
          $world->service->update($code, ['status' => 'expired']);
          $due = $world->ledger->due(new PollPolicy(), $world->clock->now);
          $world->kernel->poll();
          echo json_encode([
              'dueAt' => (new PollPolicy())->dueAt($checkout, $world->clock->now),
              'expiresAt' => $checkout->expiresAt,
              'dueAfterExpiry' => array_column($due, 1),
              'state' => $world->state('1'),
          ]);
        `);
        expect(result.dueAt).toBe(result.expiresAt);
        expect(result.dueAfterExpiry).toHaveLength(1);
        expect(result.state).toBe('cancelled');
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

    describe('a paid order put back to unpaid by a save that did not see the payment', () => {
      it('is repaired by the next poll, once; a booking a poll confirmed is then left to the shop', async () => {
        const result = await run<{
          undone: string;
          repaired: string;
          reason: string | null;
          second: string[];
          payments: number;
          notes: string[];
        }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->webhook($code);
          // A request that loaded the order before the payment was booked saves it afterwards.
          $world->orders->setStatus('1', 'awaiting_payment');
          $undone = $world->state('1');
          $world->clock->now += 120;
          $outcomes = $world->kernel->poll();
          $repaired = $world->state('1');
          $world->clock->now += 120;
          $second = array_map(static function ($o): string { return $o->reason; }, $world->kernel->poll());
          $world->clock->now += 120;
          $third = $world->kernel->poll();
          echo json_encode(['undone' => $undone, 'repaired' => $repaired, 'reason' => $outcomes[0]->reason ?? null, 'second' => $second, 'third' => count($third), 'payments' => count($world->orders->orders['1']['payments']), 'notes' => $world->orders->orders['1']['notes']]);
        `);
        expect(result.undone).toBe('awaiting_payment');
        expect(result.reason).toBe('booked_undone');
        expect(result.repaired).toBe('paid');
        // A repair is made once; the polls after it leave the order alone.
        expect(result.second).toEqual([]);
        expect(result).toMatchObject({ third: 0, payments: 1 });
        expect(result.notes.at(-1)).toContain('saved as unpaid by a change that had not seen the payment');
      });
    });

    describe('the buyer’s page on an order a save put back to unpaid', () => {
      it('reads "confirming", never "closed", and its next check repairs the order at once', async () => {
        const result = await run<{
          before: { terminal: boolean; message: string };
          state: string;
          payments: number;
        }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->webhook($code);
          $world->clock->now = $world->checkout('1', $code)->expiresAt + 10;   // the window has closed since
          $world->orders->setStatus('1', 'awaiting_payment');                   // the stale save
          $before = BuyerStatus::of($world->state('1'), $world->ledger->checkouts('1'), $world->clock->now);
          $world->kernel->buyerStatus('1');
          echo json_encode(['before' => $before, 'state' => $world->state('1'), 'payments' => count($world->orders->orders['1']['payments'])]);
        `);
        expect(result.before).toMatchObject({ terminal: false });
        expect(result.before.message).toContain('Confirming');
        expect(result).toMatchObject({ state: 'paid', payments: 1 });
      });
    });

    describe('after an upgrade', () => {
      it('repairs an order an earlier version left unpaid with its payment booked, at the first poll', async () => {
        const result = await run<{ before: string; after: string; reason: string | null; payments: number }>(`
          $world = new World();
          $world->orders->addOrder('1');
          $code = $world->placeOrder('1');
          $world->pay($code);
          // What the earlier version stored: booked, on an order its defect had put back to pending.
          $row = $world->ledger->checkouts('1')[0]->toArray();
          $world->sql->execute('DELETE FROM test_cryptocheckout_checkouts', []);
          $world->orders->orders['1']['payments'][] = $code;
          LegacyRecords::import($world->ledger, '1', [['legacy_state' => 'paid', 'checked_at' => $world->clock->now] + $row], $world->clock->now);
          $before = $world->state('1');
          $world->clock->now += 120;
          $outcomes = $world->kernel->poll();
          echo json_encode(['before' => $before, 'after' => $world->state('1'), 'reason' => $outcomes[0]->reason ?? null, 'payments' => count($world->orders->orders['1']['payments'])]);
        `);
        expect(result).toEqual({
          before: 'awaiting_payment',
          after: 'paid',
          reason: 'booked_undone',
          payments: 1,
        });
      });
    });

    describe('a booking a poll has confirmed', () => {
      it('is the shop’s once confirmed: an order reopened by hand is not paid again, nor read as "confirming"', async () => {
        const result = await run<{
          status: { terminal: boolean; message: string };
          state: string;
          polled: number;
        }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->webhook($code);
          $world->clock->now += 120;
          $world->kernel->poll();                              // confirms the booking
          $world->orders->setStatus('1', 'awaiting_payment');  // the merchant reopens the order
          $world->clock->now += 120;
          $polled = count($world->kernel->poll());
          echo json_encode(['status' => $world->kernel->buyerStatus('1'), 'state' => $world->state('1'), 'polled' => $polled]);
        `);
        expect(result).toMatchObject({ state: 'awaiting_payment', polled: 0, status: { terminal: true } });
        expect(result.status.message).not.toContain('Confirming');
      });
    });

    describe('several checkouts per order', () => {
      it('a replaced checkout paid for the old amount is held for review, not lost and not completed', async () => {
        const result = await run<{ state: string; payments: number; notes: string[] }>(`
          $world = new World();
          $old = $world->placeOrder('1', '25.00');
          $new = $world->placeOrder('1', '30.00');   // the owner changed the total
          $world->pay($old);
          $world->webhook($old);
          $world->kernel->runner()->run('1', 'return', $old);
          $o = $world->orders->orders['1'];
          echo json_encode(['state' => $world->state('1'), 'payments' => count($o['payments']), 'notes' => $o['notes']]);
        `);
        expect(result.state).toBe('late_payment_review');
        expect(result.payments).toBe(0);
        expect(result.notes.join('\n')).toContain('settled_replaced');
      });

      it('both checkouts paid: the order is paid once and the second payment is put before the owner', async () => {
        const result = await run<{ state: string; payments: number; notes: string[] }>(`
          $world = new World();
          $old = $world->placeOrder('1', '25.00');
          $new = $world->placeOrder('1', '30.00');
          $world->pay($new, '32.40');
          $world->webhook($new);
          $world->pay($old);                          // webhook lost
          $world->clock->now += 120;
          $world->kernel->poll();
          $o = $world->orders->orders['1'];
          echo json_encode(['state' => $world->state('1'), 'payments' => count($o['payments']), 'notes' => $o['notes']]);
        `);
        expect(result.state).toBe('paid');
        expect(result.payments).toBe(1);
        expect(result.notes).toContain('owner: extra_payment');
      });

      it('the old checkout paid first, then the new one: the order is paid by the new one, the old payment stays held', async () => {
        const result = await run<{
          first: string;
          second: string;
          reason: string;
          again: string;
          state: string;
          payments: number;
          notes: string[];
        }>(`
          $world = new World();
          $old = $world->placeOrder('1', '25.00');
          $new = $world->placeOrder('1', '30.00');   // the owner changed the total
          $world->pay($old);
          $runner = $world->kernel->runner();
          $first = $runner->run('1', 'webhook', $old);
          $world->pay($new, '32.40');
          $second = $runner->run('1', 'webhook', $new);
          $again = $runner->run('1', 'webhook', $old);
          $o = $world->orders->orders['1'];
          echo json_encode(['first' => $first->action, 'second' => $second->action, 'reason' => $second->reason, 'again' => $again->result, 'state' => $world->state('1'), 'payments' => count($o['payments']), 'notes' => $o['notes']]);
        `);
        expect(result).toMatchObject({
          first: 'hold_late_payment',
          second: 'mark_paid',
          reason: 'settled_while_held',
          again: 'unchanged',
          state: 'paid',
          payments: 1,
        });
        expect(result.notes.join('\n')).toContain('held for review earlier is an extra payment');
      });

      it('a late payment on the same checkout that put the order on hold does not complete it', async () => {
        const result = await run<{ actions: (string | null)[]; state: string }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->clock->now += 3700;
          $world->service->update($code, ['status' => 'expired']);
          $runner = $world->kernel->runner();
          $a = $runner->run('1', 'poll', $code);          // cancelled
          $world->pay($code, '27.00', 'settled', true);
          $b = $runner->run('1', 'webhook', $code);       // held for review
          $c = $runner->run('1', 'webhook', $code);       // and stays so
          echo json_encode(['actions' => [$a->action, $b->action, $c->action], 'state' => $world->state('1')]);
        `);
        expect(result).toEqual({
          actions: ['cancel_expired', 'hold_late_payment', 'none'],
          state: 'late_payment_review',
        });
      });
    });

    describe('opening checkouts', () => {
      it('one checkout per order: a second press reuses it, a changed total creates another and keeps the first', async () => {
        const result = await run<{ same: boolean; created: number; codes: number; third: string }>(`
          $world = new World();
          $world->orders->addOrder('1');
          $a = $world->kernel->open('1', $world->terms('1'))['checkout']->transactionCode;
          $b = $world->kernel->open('1', $world->terms('1'))['checkout']->transactionCode;
          $third = $world->kernel->open('1', $world->terms('1', '30.00'));
          echo json_encode(['same' => $a === $b, 'created' => $world->service->created, 'codes' => count($world->ledger->checkouts('1')), 'third' => $third['result']]);
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
          $world->orders->addOrder('1');
          $world->orders->addOrder('2');
          $refused = '';
          $below = false;
          $smallest = null;
          try {
              $world->kernel->open('1', $world->terms('1', '0.10'));
          } catch (\\CryptoCheckout\\Client\\Exception\\NoRailAvailableException $e) {
              $refused = $e->getFiatAmount() . ' ' . $e->getFiatCurrency();
              $below = $e->isBelowMinimum();
              $smallest = $e->getSmallestMinimumUsd();
          }
          $asked = $world->service->optionQuestions;
          $world->kernel->open('2', $world->terms('2'));
          $world->kernel->open('2', $world->terms('2'));   // reused: no second question
          echo json_encode(['refused' => $refused, 'below' => $below, 'smallest' => $smallest, 'created' => $world->service->created, 'checkouts' => count($world->ledger->checkouts('1')), 'asked' => $asked, 'reuseAsked' => $world->service->optionQuestions]);
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

      describe("judged by the option of the merchant's own settlement (USDC on Polygon), never by other rails", () => {
        interface Refusal {
          class: string;
          kind: string;
          buyer: string;
          owner: string;
          reason: string | null;
          code: string | null;
          created: number;
          checkouts: number;
        }
        /** Opens order 1 for $amount against the listed options, and tells how it was refused. */
        const refusal = (options: string, amount = '42.00', created = '[]', network = 'POLYGON') =>
          run<Refusal | { opened: string; created: number }>(`
            $world = new World();
            $world->orders->addOrder('1');
            $world->service->paymentOptions = ${options};
            $world->service->createdOptions = ${created};
            $terms = ['wallet_network' => '${network}'] + $world->terms('1', '${amount}');
            try {
                $opened = $world->kernel->open('1', $terms);
                echo json_encode(['opened' => $opened['result'], 'created' => $world->service->created]);
            } catch (\\CryptoCheckout\\Client\\Exception\\CryptoCheckoutException $e) {
                echo json_encode([
                    'class' => (new \\ReflectionClass($e))->getShortName(),
                    'kind' => \\CryptoCheckout\\Client\\Kernel\\StartProblem::kind($e),
                    'buyer' => \\CryptoCheckout\\Client\\Kernel\\StartProblem::forBuyer($e),
                    'owner' => \\CryptoCheckout\\Client\\Kernel\\StartProblem::forOwner($e),
                    'reason' => $e instanceof \\CryptoCheckout\\Client\\Exception\\SettlementUnavailableException ? $e->getReason() : null,
                    'code' => $e instanceof \\CryptoCheckout\\Client\\Exception\\SettlementUnavailableException ? $e->getTransactionCode() : null,
                    'created' => $world->service->created,
                    'checkouts' => count($world->ledger->checkouts('1')),
                ]);
            }
          `);

        it("refuses an order whose settlement the service does not offer, however many other rails it offers (a server watching only Solana), with the service's reason for the owner", async () => {
          const result = await refusal(`[
              ['available' => false, 'unavailable_reason' => 'Not offered: this server does not watch USDC on Polygon PoS.'],
              ['slug' => 'usdc_solana', 'name' => 'USDC on Solana', 'network' => 'SOLANA'],
              ['slug' => 'sol_solana', 'name' => 'Solana', 'asset' => 'SOL', 'network' => 'SOLANA', 'min_usd' => 1],
          ]`);
          expect(result).toEqual({
            class: 'SettlementUnavailableException',
            kind: 'settlement_unavailable',
            buyer:
              'Payment in USDC on Polygon PoS is not available right now. Please try again later or choose another payment method.',
            owner:
              'The service does not offer payment in USDC on Polygon PoS for 42.00 EUR: Not offered: this server does not watch USDC on Polygon PoS.',
            reason: 'Not offered: this server does not watch USDC on Polygon PoS.',
            code: null,
            created: 0,
            checkouts: 0,
          });
        });

        it("says the service's reason, not the amount, when the settlement is unavailable for another reason than its bounds", async () => {
          const watched = await refusal(`[
              ['available' => false, 'unavailable_reason' => 'Not offered right now: Polygon PoS cannot be watched.'],
              ['slug' => 'usdc_solana', 'name' => 'USDC on Solana', 'network' => 'SOLANA', 'available' => false, 'unavailable_reason' => 'Not offered right now: Solana cannot be watched.'],
          ]`);
          expect(watched).toMatchObject({
            kind: 'settlement_unavailable',
            reason: 'Not offered right now: Polygon PoS cannot be watched.',
            created: 0,
          });
          expect((watched as Refusal).buyer).not.toMatch(/amount|outside/);
          const floor = await refusal(`[
              ['available' => false, 'unavailable_reason' => 'USDC trades at 0.95 USD, under the 0.98 USD floor: payments in it are paused.'],
          ]`);
          expect(floor).toMatchObject({
            kind: 'settlement_unavailable',
            owner: expect.stringContaining('USDC trades at 0.95 USD, under the 0.98 USD floor'),
          });
        });

        it("keeps the amount's own wording when the amount is outside the bounds of the settlement's option, even though other rails take it", async () => {
          const below = await refusal(
            `[
                ['slug' => 'usdc_ethereum', 'name' => 'USDC on Ethereum', 'network' => 'ETHEREUM', 'min_usd' => 10, 'available' => false, 'unavailable_reason' => 'Not offered for 5.00 USD: this rail takes 10.00–1000000.00 USD.'],
                ['available' => true],
            ]`,
            '5.00',
            '[]',
            'ETHEREUM',
          );
          expect(below).toMatchObject({
            class: 'NoRailAvailableException',
            kind: 'below_minimum',
            buyer:
              "This order's total is below what crypto payment accepts (5.00 EUR is too small). Please choose another payment method.",
            owner:
              'No payment option of the service takes 5.00 EUR (5.00 USD; the smallest rail minimum is 10.00 USD).',
            created: 0,
          });
          const above = await refusal(
            `[['max_usd' => 1000, 'available' => false, 'unavailable_reason' => 'Not offered for 5000.00 USD: this rail takes 0.50–1000.00 USD.']]`,
            '5000.00',
          );
          expect(above).toMatchObject({
            class: 'NoRailAvailableException',
            kind: 'outside_bounds',
            created: 0,
          });
        });

        it('refuses a settlement the service lists no option for, and opens one whose option is available whatever the others say', async () => {
          const unlisted = await refusal(
            `[['available' => true], ['slug' => 'usdc_solana', 'name' => 'USDC on Solana', 'network' => 'SOLANA']]`,
            '42.00',
            '[]',
            'BSC',
          );
          expect(unlisted).toMatchObject({
            class: 'SettlementUnavailableException',
            kind: 'settlement_unavailable',
            buyer:
              'Payment in USDC on BNB Smart Chain is not available right now. Please try again later or choose another payment method.',
            reason: 'The service lists no payment option for USDC on BNB Smart Chain.',
            created: 0,
          });
          const opened = await refusal(
            `[['slug' => 'usdc_solana', 'name' => 'USDC on Solana', 'network' => 'SOLANA', 'available' => false, 'unavailable_reason' => 'Not offered right now: Solana cannot be watched.'], ['asset' => 'usdc', 'network' => 'polygon']]`,
          );
          expect(opened).toEqual({ opened: 'created', created: 1 });
        });

        it("refuses a created checkout whose options, priced for the merchant's wallet, leave its settlement unavailable, and records none", async () => {
          const result = await refusal(
            `[['available' => true]]`,
            '42.00',
            `[['available' => false, 'unavailable_reason' => "Not offered: the shop's address is refused."]]`,
          );
          expect(result).toEqual({
            class: 'SettlementUnavailableException',
            kind: 'settlement_unavailable',
            buyer:
              'Payment in USDC on Polygon PoS is not available right now. Please try again later or choose another payment method.',
            owner:
              "The service does not offer payment in USDC on Polygon PoS for 42.00 EUR: Not offered: the shop's address is refused. (Checkout 00000000-0000-4000-8000-000000000001 was created before the service said so; it is left unused to expire.)",
            reason: "Not offered: the shop's address is refused.",
            code: '00000000-0000-4000-8000-000000000001',
            created: 1,
            checkouts: 0,
          });
        });
      });

      it('a checkout settled at the service pays the order instead of opening another', async () => {
        const result = await run<{ result: string; created: number; state: string }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->clock->now += 4000;                        // expired here…
          $world->pay($code, '27.00', 'settled', true);     // …but paid late, webhook lost
          $opened = $world->kernel->open('1', $world->terms('1'));
          echo json_encode(['result' => $opened['result'], 'created' => $world->service->created, 'state' => $world->state('1')]);
        `);
        expect(result).toEqual({ result: 'paid', created: 1, state: 'paid' });
      });

      it('a cancelled order gets no new checkout: the state is read under the claim, after a cancel that held it', async () => {
        const result = await run<{ result: string; created: number; checkouts: number }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->orders->orders['1']['status'] = 'cancelled';   // the shop's unpaid-order cancel
          $opened = $world->kernel->open('1', $world->terms('1'));
          echo json_encode(['result' => $opened['result'], 'created' => $world->service->created, 'checkouts' => count($world->ledger->checkouts('1'))]);
        `);
        expect(result).toEqual({ result: 'closed', created: 1, checkouts: 1 });
      });

      it('part paid and expired: no second checkout that would make the buyer pay twice', async () => {
        const result = await run<{ result: string; created: number }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code, '10.00', 'underpaid');
          $world->clock->now += 4000;
          $world->service->update($code, ['status' => 'expired']);
          $opened = $world->kernel->open('1', $world->terms('1'));
          echo json_encode(['result' => $opened['result'], 'created' => $world->service->created]);
        `);
        expect(result).toEqual({ result: 'held', created: 1 });
      });

      it('a wallet changed only in letter case is another wallet on Solana (base58), the same one on EVM', async () => {
        // Base58 is case-sensitive: these are two valid Solana wallets. The open checkout pays the
        // first; reusing it after the merchant entered the second would send the money there.
        const result = await run<{ solana: string[]; evm: string[]; created: number }>(`
          $world = new World();
          $open = function (string $orderId, string $network, string $asset, string $wallet) use ($world): string {
              $terms = ['wallet_network' => $network, 'wallet_currency' => $asset, 'wallet_address' => $wallet] + $world->terms($orderId);
              return $world->kernel->open($orderId, $terms)['result'];
          };
          $world->orders->addOrder('1');
          $solana = [
              $open('1', 'SOLANA', 'USDC', '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU'),
              $open('1', 'SOLANA', 'USDC', '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU'),
              $open('1', 'SOLANA', 'USDC', '7XKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU'),
          ];
          $world->orders->addOrder('2');
          $evm = [
              $open('2', 'POLYGON', 'USDC', World::WALLET),
              $open('2', 'POLYGON', 'USDC', strtolower(World::WALLET)),
          ];
          echo json_encode(['solana' => $solana, 'evm' => $evm, 'created' => $world->service->created]);
        `);
        expect(result).toEqual({
          solana: ['created', 'reused', 'created'],
          evm: ['created', 'reused'],
          created: 3,
        });
      });

      it('keeps what a payment books on the order when it differs from the checkout (WHMCS "Convert To")', async () => {
        const result = await run<{ amount: string | null; currency: string | null }>(`
          $world = new World();
          $world->orders->addOrder('1');
          $terms = ['order_amount' => '21.37', 'order_currency' => 'GBP'] + $world->terms('1', '25.00', 'EUR');
          $world->kernel->open('1', $terms);
          $checkout = $world->ledger->checkouts('1')[0];
          echo json_encode(['amount' => $checkout->orderAmount, 'currency' => $checkout->orderCurrency]);
        `);
        expect(result).toEqual({ amount: '21.37', currency: 'GBP' });
      });
    });

    describe('webhook endpoint', () => {
      it('answers by the documented status policy', async () => {
        const result = await run<Record<string, [number, unknown]>>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $reply = static function (array $handled): array { return [$handled['reply']->status, $handled['reply']->body]; };
          $hook = static function (string $method, string $body) use ($world): array { return $world->kernel->webhook($method, $body, '203.0.113.5'); };
          $out = [];
          $out['get'] = $reply($hook('GET', ''));
          $out['large'] = $reply($hook('POST', str_repeat(' ', 70000)));
          $out['not_json'] = $reply($hook('POST', 'nope'));
          $body = json_decode($world->webhookBody($code), true);
          $unknown = $body; $unknown['transaction_code'] = '11111111-1111-4111-8111-111111111111';
          $out['unknown'] = $reply($hook('POST', json_encode($unknown)));
          $world->service->down = true;
          $out['down'] = $reply($hook('POST', json_encode($body)));
          $out['down_state'] = [0, $world->state('1')];
          $world->service->down = false;
          $out['paid'] = $reply($hook('POST', json_encode($body)));
          $out['replay'] = $reply($hook('POST', json_encode($body)));
          $missing = $body; unset($missing['fiat_currency']);
          $out['missing'] = $reply($hook('POST', json_encode($missing)));
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
          $handled = $world->kernel->webhook('POST', json_encode($body), '203.0.113.5');
          $forged = ['status' => $handled['reply']->status, 'state' => $world->state('1'), 'verified' => $handled['verified'], 'last' => $world->kernel->lastVerifiedWebhook()];
          $world->pay($code);
          $genuine = $world->webhook($code);
          $replayed = $world->webhook($code);
          echo json_encode(['forged' => $forged, 'genuine' => $genuine['verified'], 'replayed' => $replayed['verified'], 'last' => $world->kernel->lastVerifiedWebhook() === $world->clock->now]);
        `);
        // Not even a "last webhook received" time: the service did not confirm what the body said.
        expect(result).toEqual({
          forged: { status: 200, state: 'awaiting_payment', verified: false, last: null },
          genuine: true,
          replayed: true,
          last: true,
        });
      });

      it('logs a payment that does not match its order as an error, the one event an owner must see', async () => {
        const levels = await run<Record<string, string[]>>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->service->update($code, ['fiat_amount' => 26]);
          $world->webhook($code);
          $levels = [];
          foreach ($world->orders->logs as [$level, $message, $context]) {
              $levels[$context['action'] ?? 'other'][] = $level;
          }
          echo json_encode($levels);
        `);
        expect(levels.reject_mismatch).toEqual(['error']);
      });

      it('throttles each client: 429 with Retry-After once the window is used up, counted anew in the next window', async () => {
        const result = await run<{
          codes: number[];
          retryAfter: string | null;
          other: number;
          next: number;
          status: number[];
        }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $kernel = $world->newKernel()->withLimits(3, 2);
          $world->clock->now -= $world->clock->now % 60;   // the start of a window
          $codes = [];
          for ($i = 0; $i < 4; $i++) {
              $codes[] = $kernel->webhook('POST', $world->webhookBody($code), '203.0.113.5')['reply']->status;
          }
          $limited = $kernel->webhook('POST', $world->webhookBody($code), '203.0.113.5')['reply'];
          $other = $kernel->webhook('POST', $world->webhookBody($code), '198.51.100.7')['reply']->status;
          $world->clock->now += 60;
          $next = $kernel->webhook('POST', $world->webhookBody($code), '203.0.113.5')['reply']->status;
          $status = [];
          for ($i = 0; $i < 3; $i++) {
              $status[] = $kernel->statusReply('1', '203.0.113.5')->status;
          }
          echo json_encode(['codes' => $codes, 'retryAfter' => $limited->headers['Retry-After'] ?? null, 'other' => $other, 'next' => $next, 'status' => $status]);
        `);
        expect(result.codes).toEqual([200, 200, 200, 429]);
        expect(result.retryAfter).toBe('60');
        expect(result.other).toBe(200);
        expect(result.next).toBe(200);
        expect(result.status).toEqual([200, 200, 429]);
      });
    });

    describe('what the buyer reads', () => {
      it('offers the payment page only while paying is possible', async () => {
        const result = await run<
          Record<string, { state: string; terminal: boolean; checkout_url: string | null; message: string }>
        >(`
          $world = new World();
          $code = $world->placeOrder('1');
          $now = $world->clock->now;
          $out = [];
          $out['open'] = BuyerStatus::of('awaiting_payment', $world->ledger->checkouts('1'), $now);
          $world->pay($code, '10.00', 'underpaid');
          $world->kernel->check('1', 'return', 0);
          $out['underpaid'] = BuyerStatus::of($world->state('1'), $world->ledger->checkouts('1'), $now);
          $out['underpaid_expired'] = BuyerStatus::of($world->state('1'), $world->ledger->checkouts('1'), $now + 4000);
          $out['paid'] = BuyerStatus::of('paid', $world->ledger->checkouts('1'), $now);
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

      it('never reads "closed" while a payment is being booked, even one made as the window closed', async () => {
        // The buyer's page asks between every two steps the webhook's run takes while it holds the
        // order; the payment arrived in the checkout's last second, so its window has closed.
        const seen = await run<
          Array<{
            step: string;
            state: string;
            terminal: boolean;
            message: string;
            checkout_url: string | null;
          }>
        >(`
          [$world, $code] = World::withPaidOrder();
          $world->clock->now = $world->checkout('1', $code)->expiresAt + 2;
          $page = $world->newKernel();
          $seen = [];
          $world->steps->before = static function (string $step) use (&$seen, $page, $world): void {
              static $inside = false;
              if ($inside) {
                  return;
              }
              $inside = true;
              if ($world->ledger->isClaimed('1', $world->clock->now)) {
                  $world->clock->now += 6;                 // past the buyer check's throttle
                  $seen[] = ['step' => $step] + $page->buyerStatus('1');
              }
              $inside = false;
          };
          $world->webhook($code);
          $world->steps->before = null;
          echo json_encode($seen);
        `);
        expect(seen.length).toBeGreaterThanOrEqual(8);
        for (const status of seen) {
          expect(status.message, `status asked before ${status.step}`).not.toContain('closed');
          if (status.state !== 'paid') {
            expect(status, `status asked before ${status.step}`).toMatchObject({
              terminal: false,
              checkout_url: null,
            });
          }
        }
        expect(seen.some((status) => status.state === 'awaiting_payment')).toBe(true);
        expect(seen.at(-1)?.state).toBe('paid');
      });

      it('says "confirming" while the service reports the payment on its way, and keeps the page polling', async () => {
        const result = await run<{
          processing: { message: string; terminal: boolean; checkout_url: string | null };
        }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code, '27.00', 'processing');
          $world->kernel->check('1', 'return', 0);
          echo json_encode(['processing' => BuyerStatus::of($world->state('1'), $world->ledger->checkouts('1'), $world->clock->now)]);
        `);
        expect(result.processing).toEqual(expect.objectContaining({ terminal: false, checkout_url: null }));
        expect(result.processing.message).toContain('Confirming');
      });

      it('the status box escapes every value it writes', async () => {
        const html = await run<string>(`
          $status = ['state' => 'awaiting_payment', 'message' => '<b>"hi"</b>', 'terminal' => false, 'checkout_url' => 'https://pay.example.com/pay/x?a=1&b="2"'];
          echo json_encode(StatusWidgetMarkup::render($status, 'https://shop.example/status?id=1&key=<k>', null, true));
        `);
        expect(html).toContain('&lt;b&gt;&quot;hi&quot;&lt;/b&gt;');
        expect(html).not.toContain('<b>');
        expect(html).toContain('href="https://pay.example.com/pay/x?a=1&amp;b=&quot;2&quot;"');
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

    describe('what the merchant reads', () => {
      it('tells the merchant what a checkout stands at in words, translated, never in codes', async () => {
        const result = await run<Record<string, string[]>>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $now = $world->clock->now;
          $label = static function (World $world, int $now): array {
              $checkout = $world->ledger->checkouts('1')[0];
              return [CheckoutLabels::state($checkout, $now), CheckoutLabels::resolution($checkout, $now), CheckoutLabels::receivedUsd($checkout)];
          };
          $out = ['new' => $label($world, $now)];
          $world->pay($code, '10.00', 'underpaid');
          $world->kernel->check('1', 'return', 0);
          $out['underpaid'] = $label($world, $now);
          $out['underpaid_closed'] = $label($world, $now + 4000);
          $out['underpaid_unwatched'] = $label($world, $now + 40 * 86400);
          $world->pay($code, '27.00', 'settled');
          $world->kernel->check('1', 'return', 0);
          $out['paid'] = $label($world, $now);
          $checkout = $world->ledger->checkouts('1')[0];
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

    describe('when a payment cannot be started', () => {
      it('tells the buyer why in one of a few sentences, and the owner the service’s own words', async () => {
        const result = await run<Record<string, [string, string]>>(`
          $problems = [
              'down' => new \\CryptoCheckout\\Client\\Exception\\NetworkException('Connection refused', false),
              'bounds' => new \\CryptoCheckout\\Client\\Exception\\ApiException('unprocessable', 'Amount outside the rail bounds.', 422, 'fiat_amount'),
              'failing' => new \\CryptoCheckout\\Client\\Exception\\ApiException('unavailable', 'Rate source down.', 503),
              'small' => new \\CryptoCheckout\\Client\\Exception\\NoRailAvailableException('0.10', 'EUR', '0.11', '0.50'),
              'settlement' => new \\CryptoCheckout\\Client\\Exception\\SettlementUnavailableException('42.00', 'EUR', 'USDC', 'SOLANA', 'Not offered right now: Solana cannot be watched.'),
          ];
          $out = [];
          foreach ($problems as $name => $problem) {
              $out[$name] = [\\CryptoCheckout\\Client\\Kernel\\StartProblem::forBuyer($problem), \\CryptoCheckout\\Client\\Kernel\\StartProblem::forOwner($problem)];
          }
          $out['busy'] = [\\CryptoCheckout\\Client\\Kernel\\StartProblem::forBuyer('busy', static function (string $t, array $p): string { return 'DE: ' . $t; }), ''];
          $out['settlement_translated'] = [\\CryptoCheckout\\Client\\Kernel\\StartProblem::forBuyer($problems['settlement'], static function (string $t, array $p): string { return 'DE: ' . strtr($t, $p); }), \\CryptoCheckout\\Client\\Kernel\\StartProblem::kind($problems['settlement'])];
          echo json_encode($out);
        `);
        expect(result.down?.[0]).toMatch(/not reachable right now. Your order is saved/);
        expect(result.down?.[1]).toBe('NetworkException: Connection refused');
        expect(result.bounds).toEqual([
          expect.stringMatching(/outside what the payment service accepts/),
          'unprocessable Amount outside the rail bounds. [field fiat_amount]',
        ]);
        expect(result.failing?.[0]).toMatch(/not reachable/);
        expect(result.small?.[0]).toContain('(0.10 EUR is too small)');
        expect(result.busy?.[0]).toMatch(/^DE: The payment for this order is being prepared/);
        // A settlement the service does not offer: a short sentence for the buyer, never the
        // service's reason (which the owner reads), nor the amount.
        expect(result.settlement).toEqual([
          'Payment in USDC on Solana is not available right now. Please try again later or choose another payment method.',
          'The service does not offer payment in USDC on Solana for 42.00 EUR: Not offered right now: Solana cannot be watched.',
        ]);
        expect(result.settlement_translated).toEqual([
          'DE: Payment in USDC on Solana is not available right now. Please try again later or choose another payment method.',
          'settlement_unavailable',
        ]);
      });

      it('gives the order panel one row per checkout in words, newest first', async () => {
        const rows = await run<Array<Record<string, string>>>(`
          $world = new World();
          $first = $world->placeOrder('1', '25.00');
          $second = $world->placeOrder('1', '30.00');
          $world->pay($second, '5.00', 'underpaid');
          $world->kernel->check('1', 'return', 0);
          echo json_encode(CheckoutLabels::rows($world->ledger->checkouts('1'), $world->clock->now, static function (int $t): string { return gmdate('Y-m-d H:i', $t); }));
        `);
        expect(rows).toHaveLength(2);
        expect(rows[0]).toMatchObject({
          amount: '30.00 EUR',
          state: 'Part paid',
          received: '5.00 USD',
          checked: expect.stringMatching(/^2026-11-01 /),
        });
        expect(rows[1]).toMatchObject({
          amount: '25.00 EUR',
          wallet: expect.stringContaining('(USDC, POLYGON)'),
        });
      });
    });

    describe('settings rules', () => {
      it('cleans and checks the four settings and the display mode by one policy', async () => {
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
          $out['embedded'] = SettingsRules::validate(['display_mode' => 'embedded'] + $ok);
          $out['display'] = SettingsRules::validate(['display_mode' => 'popup'] + $ok);
          $out['defaults'] = ['values' => SettingsRules::DEFAULTS, 'errors' => []];
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
        // An earlier version's name for the payment window over the shop is read as today's.
        expect(result.embedded?.values.display_mode).toBe('modal');
        expect(result.display?.errors.display_mode).toMatch(
          /^Checkout display: choose "redirect" .* or "modal"/,
        );
        expect(result.defaults?.values).toEqual({
          service_url: '',
          wallet_network: 'POLYGON',
          wallet_currency: 'USDC',
          wallet_address: '',
          display_mode: 'redirect',
        });
      });

      it('accepts the merchant key shapes the service accepts and masks a key for display', async () => {
        const result = await run<{
          accepted: Record<string, boolean>;
          refused: Record<string, boolean>;
          masked: string[];
        }>(`
          $key = 'ccm_' . str_repeat('Ab0_-', 8) . 'xyz';
          $accepted = [
              'ccm key' => $key,
              'operator token of 32' => 'OperatorToken_0123456789abcdefGH',
              '24 characters' => str_repeat('k', 24),
              '512 characters' => str_repeat('k', 512),
          ];
          $refused = [
              'empty' => '',
              'space inside' => 'ccm_0123456789 abcdefghijklmnop',
              'tab inside' => "ccm_0123456789\tabcdefghijklmnop",
              '23 characters' => str_repeat('k', 23),
              'non-ASCII' => "ccm_0123456789\u{00E4}bcdefghijklmnop",
              '513 characters' => str_repeat('k', 513),
          ];
          echo json_encode([
              'accepted' => array_map([SettingsRules::class, 'isMerchantKey'], $accepted),
              'refused' => array_map([SettingsRules::class, 'isMerchantKey'], $refused),
              'masked' => [SettingsRules::maskedMerchantKey($key), SettingsRules::maskedMerchantKey(''), SettingsRules::maskedMerchantKey('OperatorToken_0123456789abcdefGH')],
          ]);
        `);
        expect(result.accepted).toEqual({
          'ccm key': true,
          'operator token of 32': true,
          '24 characters': true,
          '512 characters': true,
        });
        expect(result.refused).toEqual({
          empty: false,
          'space inside': false,
          'tab inside': false,
          '23 characters': false,
          'non-ASCII': false,
          '513 characters': false,
        });
        expect(result.masked).toEqual(['ccm_…-xyz', '', 'Oper…efGH']);
      });
    });

    describe('lookups that fail', () => {
      it('record the attempt, leave the order and its claim alone, and are retried by the next poll', async () => {
        const result = await run<{ outcome: string; checked: boolean; claimed: boolean; later: string }>(`
          $world = new World();
          $code = $world->placeOrder('1');
          $world->pay($code);
          $world->service->down = true;
          $world->clock->now += 61;
          $outcome = $world->kernel->check('1', 'poll', 0);
          $checked = $world->checkout('1', $code)->checkedAt === $world->clock->now;
          $world->service->down = false;
          $world->clock->now += 61;
          $later = $world->kernel->poll();
          echo json_encode(['outcome' => $outcome->result, 'checked' => $checked, 'claimed' => $world->ledger->isClaimed('1', $world->clock->now), 'later' => $later[0]->result]);
        `);
        expect(result).toEqual({ outcome: 'lookup_failed', checked: true, claimed: false, later: 'applied' });
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
