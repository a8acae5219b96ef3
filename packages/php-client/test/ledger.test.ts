import { describeEachPhp } from '@cryptocheckout/php-testkit';
import { describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS } from './harness.js';
import { KERNEL_BOOT } from './kernel-boot.js';
import { CLAIM_PHP, DUE_MATCHES_POLICY_PHP, dueRows, IMPORT_PHP, STATE_PHP } from './ledger-scenarios.js';

// The kernel's ledger on SQLite in php-wasm, as the harnesses run it (the MySQL spellings it
// writes are translated by the test port, test/kernel/php/PdoSqlPort.php). The same scenarios run
// on a real MariaDB in ledger-mariadb.test.ts.

const PRELUDE = `${KERNEL_BOOT}
function newWorld(): World { return new World(); }
`;

describeEachPhp(
  'kernel ledger on SQLite',
  ({ php }) => {
    const run = <T>(code: string) => php().runJson(`${PRELUDE}\n${code}`) as Promise<T>;

    it('selects exactly what the poll policy selects, in its order, whatever the mix of checkouts', async () => {
      const { now, rows } = dueRows(20261126);
      const results = await run<Array<[string[][], string[][]]>>(
        DUE_MATCHES_POLICY_PHP(JSON.stringify(rows), now),
      );
      expect(results).toHaveLength(rows.length);
      let due = 0;
      for (const [query, reference] of results) {
        expect(query).toEqual(reference);
        due += reference.length;
      }
      expect(due).toBeGreaterThan(30);
    });

    it('claims by compare-and-swap with a lease, and a late release never frees another run’s claim', async () => {
      expect(await run(CLAIM_PHP)).toEqual({
        first: true,
        second: false,
        takeover: 'mark_paid code-a',
        heldAfterLateRelease: true,
        freeAfterRelease: true,
        other: true,
      });
    });

    it('reports no takeover when the holder lets go between the claim’s read and its compare-and-swap', async () => {
      const result = await run<{ won: boolean; takeover: string | null }>(`
        $world = newWorld();
        $now = $world->clock->now;
        $holder = $world->ledger->claim('7', 'mark_paid', 'code-a', $now);
        // The holder finishes its run and releases just before the second claim's UPDATE.
        $world->steps->before = static function (string $step) use ($world, $holder): void {
            if ($step === 'sql:UPDATE') {
                $world->steps->before = null;
                $world->ledger->release($holder);
            }
        };
        $second = $world->ledger->claim('7', 'mark_paid', 'code-b', $now + 1);
        $world->steps->before = null;
        echo json_encode(['won' => $second !== null, 'takeover' => $second === null ? null : $second->tookOver]);
      `);
      expect(result).toEqual({ won: true, takeover: null });
    });

    it('imports every released storage layout through the one migration map, once', async () => {
      const result = await run<Record<string, unknown>>(IMPORT_PHP);
      expect(result).toMatchObject({ imported: [1, 1, 2, 1, 1, 1], again: 0, found: '101' });
      expect(result.orders).toMatchObject({
        '101': {
          recorded: 'underpaid',
          checkouts: [
            {
              code: 'aaaaaaaa-0000-4000-8000-000000000001',
              ordinal: 1,
              applied: 'hold_underpaid',
              resolution: null,
              watched: true,
              confirmed: false,
              order_amount: null,
              notified: null,
            },
          ],
        },
        '102': {
          recorded: 'paid',
          checkouts: [
            {
              code: 'bbbbbbbb-0000-4000-8000-000000000002',
              ordinal: 1,
              applied: 'mark_paid',
              resolution: 'booked',
              watched: false,
              confirmed: false,
              order_amount: null,
              notified: null,
            },
          ],
        },
        '103': {
          recorded: 'cancelled',
          checkouts: [
            {
              code: 'dddddddd-0000-4000-8000-000000000004',
              ordinal: 2,
              applied: null,
              resolution: null,
              watched: true,
              confirmed: false,
              order_amount: '4.20',
              notified: null,
            },
            {
              code: 'cccccccc-0000-4000-8000-000000000003',
              ordinal: 1,
              applied: 'cancel_expired',
              resolution: null,
              watched: true,
              confirmed: false,
              order_amount: null,
              notified: null,
            },
          ],
        },
        '104': {
          recorded: 'late_payment_review',
          checkouts: [
            {
              code: 'eeeeeeee-0000-4000-8000-000000000005',
              ordinal: 1,
              applied: 'hold_late_payment',
              resolution: 'flagged',
              watched: false,
              confirmed: false,
              order_amount: null,
              notified: 'hold_late_payment|settled_after_cancel',
            },
          ],
        },
      });
      // Newest first, with distinct ordinals, however the two imports interleaved.
      expect(
        (result.orders as Record<string, { checkouts: Array<{ code: string; ordinal: number }> }>)[
          '105'
        ]?.checkouts.map((checkout) => [checkout.code.slice(-1), checkout.ordinal]),
      ).toEqual([
        ['7', 3],
        ['6', 1],
      ]);
      // Imported open checkouts are looked at by the next poll, and a booked one in its watch window
      // once more (an order an earlier version left unpaid is repaired); the flagged one is not.
      expect((result.due as string[]).sort()).toEqual([
        'aaaaaaaa-0000-4000-8000-000000000001',
        'bbbbbbbb-0000-4000-8000-000000000002',
        'cccccccc-0000-4000-8000-000000000003',
        'dddddddd-0000-4000-8000-000000000004',
        'ffffffff-0000-4000-8000-000000000006',
        'ffffffff-0000-4000-8000-000000000007',
      ]);
    });

    it('keeps the kernel’s small state: values once, expiring values, exact counters', async () => {
      expect(await run(STATE_PHP)).toEqual({
        once: ['k1', 'k1'],
        before: 'cached',
        after: null,
        counts: [true, true, true, false, false],
        forgotten: 2,
        keyKept: 'k1',
        installed: true,
      });
    });

    describe('service probe', () => {
      it('is remembered for a minute, asked afresh on demand', async () => {
        const result = await run<{ questions: number[]; reachable: boolean; checkedAt: boolean }>(`
          $world = new World();
          $questions = [];
          $first = $world->kernel->probe(World::SERVICE);
          $questions[] = $world->service->optionQuestions;
          $world->kernel->probe(World::SERVICE);
          $questions[] = $world->service->optionQuestions;
          $world->kernel->probe(World::SERVICE, true);
          $questions[] = $world->service->optionQuestions;
          $world->clock->now += Kernel::PROBE_CACHE_SECONDS;
          $world->kernel->probe(World::SERVICE);
          $questions[] = $world->service->optionQuestions;
          echo json_encode(['questions' => $questions, 'reachable' => $first['reachable'], 'checkedAt' => $first['checked_at'] === $world->clock->now - Kernel::PROBE_CACHE_SECONDS]);
        `);
        expect(result).toEqual({ questions: [1, 1, 2, 3], reachable: true, checkedAt: true });
      });

      it("says whether the service offers the merchant's settlement, and reuses an answer only for the same settlement", async () => {
        const result = await run<{
          questions: number[];
          offered: Array<boolean | null>;
          problems: Array<string | null>;
          message: string;
        }>(`
          $world = new World();
          $polygon = ['wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'wallet_address' => World::WALLET];
          $world->service->paymentOptions = [
              ['available' => false, 'unavailable_reason' => 'Not offered: this server does not watch USDC on Polygon PoS.'],
              ['slug' => 'usdc_solana', 'name' => 'USDC on Solana', 'network' => 'SOLANA'],
          ];
          $questions = [];
          $answers = [];
          $answers[] = $world->kernel->probe(World::SERVICE, false, 5, $polygon);
          $questions[] = $world->service->optionQuestions;
          $answers[] = $world->kernel->probe(World::SERVICE, false, 5, ['wallet_currency' => 'usdc', 'wallet_network' => ' polygon ']);
          $questions[] = $world->service->optionQuestions;
          $answers[] = $world->kernel->probe(World::SERVICE, false, 5, ['wallet_currency' => 'USDC', 'wallet_network' => 'SOLANA']);
          $questions[] = $world->service->optionQuestions;
          $answers[] = $world->kernel->probe(World::SERVICE);
          $questions[] = $world->service->optionQuestions;
          $answers[] = $world->kernel->probe(World::SERVICE);
          $questions[] = $world->service->optionQuestions;
          echo json_encode([
              'questions' => $questions,
              'offered' => array_column($answers, 'offered'),
              'problems' => array_column($answers, 'problem'),
              'message' => $answers[0]['message'],
          ]);
        `);
        expect(result).toEqual({
          questions: [1, 1, 2, 3, 3],
          offered: [false, false, true, null, null],
          problems: ['settlement_not_offered', 'settlement_not_offered', null, null, null],
          message:
            'Service URL https://pay.example.com: the Crypto Checkout service answers, but does not offer payment in USDC on Polygon PoS, the settlement you chose: Not offered: this server does not watch USDC on Polygon PoS. Buyers cannot pay with crypto until it does.',
        });
      });
    });

    it('inlines parameters for platforms without binding, quoting strings through the platform', async () => {
      const result = await run<string[]>(`
        $quote = static function (string $text): string { return "'" . addslashes($text) . "'"; };
        $out = [\\CryptoCheckout\\Client\\Kernel\\Ledger\\SqlText::inline('SELECT a FROM t WHERE b = ? AND c = ? AND d IS ?', ["it's", 42, null], $quote)];
        try {
            \\CryptoCheckout\\Client\\Kernel\\Ledger\\SqlText::inline('SELECT ?', [1, 2], $quote);
        } catch (\\InvalidArgumentException $e) {
            $out[] = $e->getMessage();
        }
        echo json_encode($out);
      `);
      expect(result).toEqual([
        "SELECT a FROM t WHERE b = 'it\\'s' AND c = 42 AND d IS NULL",
        'The statement has 1 placeholders for 2 parameters.',
      ]);
    });
  },
  { mounts: CLIENT_MOUNTS },
);
