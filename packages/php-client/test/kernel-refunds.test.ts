import { describeEachPhp, phpString } from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MOUNTS } from './harness.js';
import { KERNEL_BOOT } from './kernel-boot.js';
import { FAKE_MERCHANT_KEY, type RefundServiceFake, startRefundServiceFake } from './refund-service-fake.js';

// Refunds through the kernel (Kernel::startRefund, checkRefunds, the refund.paid webhook) over the
// in-memory platform and the SQLite ledger, the refund calls going over real HTTP to the refund
// service on loopback (test/refund-service-fake.ts until the reference server has refund routes).

let fake: RefundServiceFake;

beforeAll(async () => {
  fake = await startRefundServiceFake();
});

afterAll(async () => {
  await fake?.close();
});

interface Line {
  text: string;
  link: string | null;
  link_text: string | null;
}

/** A paid refund ready for its check: settled order, refund started, address confirmed, paid. */
const PAID_WORLD = `
function paidWorld(): array {
    [$world, $code] = World::withSettledOrder($GLOBALS['service']);
    $start = $world->kernel->startRefund('1', '12.340001', 'USDC', 'wc-refund-1', null, $GLOBALS['key'], $world->refunds);
    $desk = new RefundDesk($GLOBALS['service']);
    $desk->confirmAddress((string) $start->refund->claimUrl);
    $desk->pay($start->refund->refundId);
    // The ledger still says awaiting_address: due again after the address recheck.
    $world->clock->now += RefundRunner::ADDRESS_RECHECK_SECONDS;
    return [$world, $start->refund->refundId, $desk];
}
function stepsOf(callable $request): int {
    [$world, $id, $desk] = paidWorld();
    $before = $world->steps->count();
    $request($world->kernel, $world, $id, $desk);
    return $world->steps->count() - $before;
}
function recordedCount(World $world, string $id): int {
    return count(array_filter($world->refunds->recorded['1'] ?? [], static function (array $r) use ($id): bool { return $r['refund_id'] === $id; }));
}
`;

describeEachPhp(
  'kernel refunds',
  ({ php }) => {
    const run = <T>(code: string) =>
      php().runJson(`${KERNEL_BOOT}
        use CryptoCheckout\\KernelTest\\RefundDesk;
        use CryptoCheckout\\KernelTest\\MemoryRefunds;
        use CryptoCheckout\\Client\\Kernel\\RefundLabels;
        use CryptoCheckout\\Client\\Kernel\\RefundRecord;
        use CryptoCheckout\\Client\\Kernel\\RefundRunner;
        use CryptoCheckout\\Client\\Kernel\\RefundStart;
        use CryptoCheckout\\Client\\Kernel\\Ledger\\LedgerSchema;
        $service = ${phpString(fake.url)};
        $key = ${phpString(FAKE_MERCHANT_KEY)};
        ${PAID_WORLD}
        ${code}`) as Promise<T>;

    describe('startRefund', () => {
      it('stores the refund, sends the claim link once and notes it, in the asset or the order’s currency', async () => {
        const before = fake.requests.length;
        const result = await run<{
          start: {
            ok: boolean;
            problem: string | null;
            message: string;
            created: boolean;
            linkSent: boolean;
          };
          stored: Array<Record<string, unknown>>;
          links: Array<{ order: string; refund_id: string; claim_url: string }>;
          notes: Record<string, string[]>;
          labels: Array<{ refund_id: string; status: string; lines: Line[] }>;
          fiat: Record<string, unknown>;
          claimed: boolean;
          atService: { refundable: string; refunds: Array<{ reference: string; reason: string | null }> };
        }>(`
          [$world, $code] = World::withSettledOrder($service);
          $start = $world->kernel->startRefund('1', '12.340001', 'USDC', 'wc-refund-77', "Damaged\\nin transit", $key, $world->refunds);
          $fiat = $world->kernel->startRefund('1', '11.50', 'eur', 'wc-refund-78', null, $key, $world->refunds);
          $stored = array_map(static function (RefundRecord $r): array { return $r->toArray(); }, $world->kernel->refunds('1'));
          echo json_encode([
              'start' => ['ok' => $start->ok, 'problem' => $start->problem, 'message' => $start->message, 'created' => $start->created, 'linkSent' => $start->linkSent],
              'stored' => $stored,
              'links' => $world->refunds->linksSent,
              'notes' => $world->refunds->notes,
              'labels' => RefundLabels::rows([$start->refund]),
              'fiat' => $fiat->refund->toArray(),
              'claimed' => $world->ledger->isClaimed('1', $world->clock->now),
              'atService' => $world->kernel->client($service)->refundsOf($code),
          ]);
        `);
        expect(result.start).toEqual({
          ok: true,
          problem: null,
          message: 'Refund of 12.340001 USDC requested; the buyer was sent the claim link.',
          created: true,
          linkSent: true,
        });
        expect(result.stored).toHaveLength(2);
        const asset = result.stored.find((row) => row.platform_refund_id === 'wc-refund-77');
        expect(asset).toMatchObject({
          order_id: '1',
          service_url: fake.url,
          amount: '12.340001',
          asset: 'USDC',
          network: 'POLYGON',
          fiat_amount: null,
          fiat_currency: 'EUR',
          status: 'awaiting_address',
          address: null,
          tx_id: null,
          recorded_at: null,
          noticed_status: null,
        });
        expect(asset?.claim_url).toMatch(new RegExp(`^${fake.url}/refund/[A-Za-z0-9_-]{43}$`));
        expect(asset?.claim_sent_at).toEqual(expect.any(Number));
        // 11.50 EUR at the checkout's rate (1.08 USDC a euro).
        expect(result.fiat).toMatchObject({ amount: '12.42', fiat_amount: '11.5', fiat_currency: 'EUR' });
        expect(result.links.map((link) => link.claim_url)).toEqual([asset?.claim_url, result.fiat.claim_url]);
        expect(result.notes['1']).toEqual([
          'Refund of 12.340001 USDC requested; the buyer was sent the claim link.',
          'Refund of 12.42 USDC requested; the buyer was sent the claim link.',
        ]);
        expect(result.labels[0]?.lines).toEqual([
          { text: "Refund 12.340001 USDC: waiting for the buyer's address", link: null, link_text: null },
        ]);
        expect(result.claimed).toBe(false);
        // The platform's refund id is the reference; the reason travels as one printable line.
        expect(result.atService.refunds.map((refund) => [refund.reference, refund.reason])).toEqual([
          ['wc-refund-77', 'Damaged in transit'],
          ['wc-refund-78', null],
        ]);
        expect(result.atService.refundable).toBe('75.239999');
        const creates = fake.requests.slice(before).filter((request) => request.method === 'POST');
        expect(creates.map((request) => [request.path, request.authorization])).toEqual([
          ['/api/refunds', `Bearer ${FAKE_MERCHANT_KEY}`],
          ['/api/refunds', `Bearer ${FAKE_MERCHANT_KEY}`],
        ]);
      });

      it('gives a retried action with the same platform refund id the same refund: one row, one link, one note', async () => {
        const result = await run<{
          ids: string[];
          created: boolean[];
          messages: string[];
          rows: number;
          links: number;
          notes: string[];
          atService: number;
        }>(`
          [$world, $code] = World::withSettledOrder($service);
          $starts = [];
          $starts[] = $world->kernel->startRefund('1', '12.340001', 'USDC', 'wc-refund-77', null, $key, $world->refunds);
          // A second request (another kernel) repeats the action.
          $starts[] = $world->newKernel()->startRefund('1', '12.340001', 'USDC', 'wc-refund-77', null, $key, $world->refunds);
          echo json_encode([
              'ids' => array_map(static function ($s) { return $s->refund->refundId; }, $starts),
              'created' => array_map(static function ($s) { return $s->created; }, $starts),
              'messages' => array_map(static function ($s) { return $s->message; }, $starts),
              'rows' => count($world->kernel->refunds('1')),
              'links' => count($world->refunds->linksSent),
              'notes' => $world->refunds->notes['1'],
              'atService' => count($world->kernel->client($service)->refundsOf($code)['refunds']),
          ]);
        `);
        expect(result.ids[0]).toBe(result.ids[1]);
        expect(result.created).toEqual([true, false]);
        expect(result.messages[1]).toBe(
          'Refund of 12.340001 USDC was requested before; the buyer has the claim link.',
        );
        expect(result).toMatchObject({ rows: 1, links: 1, atService: 1 });
        expect(result.notes).toEqual([
          'Refund of 12.340001 USDC requested; the buyer was sent the claim link.',
        ]);
      });

      it('tells the owner to pass the claim link on when the platform could not send it, and sends it on a retry', async () => {
        const result = await run<{
          first: string;
          labels: Line[];
          second: string;
          links: number;
          notes: string[];
          claimUrl: string;
        }>(`
          [$world, $code] = World::withSettledOrder($service);
          $world->refunds->mailFails = true;
          $first = $world->kernel->startRefund('1', '5', 'USDC', 'wc-refund-5', null, $key, $world->refunds);
          $labels = RefundLabels::lines($world->kernel->refunds('1')[0]);
          $world->refunds->mailFails = false;
          $second = $world->kernel->startRefund('1', '5', 'USDC', 'wc-refund-5', null, $key, $world->refunds);
          echo json_encode(['first' => $first->message, 'labels' => $labels, 'second' => $second->message, 'links' => count($world->refunds->linksSent), 'notes' => $world->refunds->notes['1'], 'claimUrl' => $first->refund->claimUrl]);
        `);
        expect(result.first).toBe(
          `Refund of 5 USDC requested, but the claim link could not be sent to the buyer: send them ${result.claimUrl}`,
        );
        expect(result.labels[1]).toEqual({
          text: 'The buyer was not sent the claim link; send it to them yourself:',
          link: result.claimUrl,
          link_text: result.claimUrl,
        });
        expect(result.second).toBe('Refund of 5 USDC requested; the buyer was sent the claim link.');
        expect(result.links).toBe(1);
        expect(result.notes).toHaveLength(2);
      });

      it('says the service is down and that nothing was refunded; stores nothing and notes nothing', async () => {
        const result = await run<{
          start: Record<string, unknown>;
          rows: number;
          notes: number;
          links: number;
        }>(`
          [$world, $code] = World::withSettledOrder($service);
          $desk = new RefundDesk($service);
          $desk->down(true);
          try {
              $start = $world->kernel->startRefund('1', '12.340001', 'USDC', 'wc-refund-9', null, $key, $world->refunds);
          } finally {
              $desk->down(false);
          }
          echo json_encode([
              'start' => ['ok' => $start->ok, 'problem' => $start->problem, 'message' => $start->message, 'refund' => $start->refund],
              'rows' => count($world->kernel->refunds('1')),
              'notes' => count($world->refunds->notes['1'] ?? []),
              'links' => count($world->refunds->linksSent),
          ]);
        `);
        expect(result.start).toMatchObject({ ok: false, problem: 'unreachable', refund: null });
        expect(result.start.message).toMatch(
          /^The Crypto Checkout service could not be reached \(.+\)\. Nothing was refunded; try again in a few minutes\.$/,
        );
        expect(result).toMatchObject({ rows: 0, notes: 0, links: 0 });
      });

      it('passes on the service’s refusal with its message and field, and stores nothing', async () => {
        const result = await run<{
          refused: Record<string, unknown>;
          wrongKey: Record<string, unknown>;
          rows: number;
          notes: number;
        }>(`
          [$world, $code] = World::withSettledOrder($service);
          $show = static function (RefundStart $s): array {
              return ['ok' => $s->ok, 'problem' => $s->problem, 'message' => $s->message, 'code' => $s->errorCode, 'field' => $s->field];
          };
          $refused = $world->kernel->startRefund('1', '150', 'USDC', 'wc-refund-10', null, $key, $world->refunds);
          $wrongKey = $world->kernel->startRefund('1', '1', 'USDC', 'wc-refund-11', null, 'ccm_notTheKeyOfThisShop0123456789abcdefgh', $world->refunds);
          echo json_encode(['refused' => $show($refused), 'wrongKey' => $show($wrongKey), 'rows' => count($world->kernel->refunds('1')), 'notes' => count($world->refunds->notes['1'] ?? [])]);
        `);
        expect(result.refused).toEqual({
          ok: false,
          problem: 'refused',
          message:
            'The Crypto Checkout service refused the refund: amount is more than can be refunded: at most 100 USDC.',
          code: 'unprocessable',
          field: 'amount',
        });
        expect(result.wrongKey).toMatchObject({ ok: false, problem: 'unauthorized', code: 'unauthorized' });
        expect(result.wrongKey.message).toContain(
          'Check the key in the payment settings. Nothing was refunded.',
        );
        expect(result).toMatchObject({ rows: 0, notes: 0 });
      });

      it('refuses without asking the service: no key, no amount, no settled payment', async () => {
        const before = fake.requests.length;
        const result = await run<string[][]>(`
          [$world, $code] = World::withSettledOrder($service);
          $world->orders->addOrder('2');
          $world->placeOrder('2');
          $out = [];
          foreach ([['1', '5', ''], ['1', '5', 'two words'], ['1', '5', 'ccm_tooShort0123456789'], ['1', '-5', $key], ['1', 'abc', $key], ['2', '5', $key], ['404', '5', $key]] as [$order, $amount, $credential]) {
              $s = $world->kernel->startRefund($order, $amount, 'USDC', 'r', null, $credential, $world->refunds);
              $out[] = [$s->problem, $s->message];
          }
          echo json_encode($out);
        `);
        expect(result.map(([problem]) => problem)).toEqual([
          'no_credential',
          'no_credential',
          'no_credential',
          'invalid_amount',
          'invalid_amount',
          'no_settled_checkout',
          'no_settled_checkout',
        ]);
        expect(result[0]?.[1]).toContain('No merchant key is set');
        // Too short to be a key the service issues (SettingsRules::isMerchantKey), so not sent.
        expect(result[2]?.[1]).toContain('The merchant key in the payment settings is not valid');
        expect(result[5]?.[1]).toBe(
          'This order has no settled Crypto Checkout payment to refund. Nothing was refunded.',
        );
        expect(fake.requests.slice(before).filter((request) => request.method === 'POST')).toEqual([]);
      });

      it('creates the refunds table in a ledger installed before refunds', async () => {
        const result = await run<{ before: boolean; ok: boolean; after: boolean; version: string }>(`
          [$world, $code] = World::withSettledOrder($service);
          $world->sql->execute('DROP TABLE ' . $world->sql->table(LedgerSchema::REFUNDS));
          $world->sql->execute("UPDATE " . $world->sql->table(LedgerSchema::STATE) . " SET state_value = '1' WHERE state_key = 'schema_version'");
          $before = $world->ledger->isCurrent();
          $kernel = $world->newKernel();
          $start = $kernel->startRefund('1', '1', 'USDC', 'r-1', null, $key, $world->refunds);
          echo json_encode(['before' => $before, 'ok' => $start->ok && count($kernel->refunds('1')) === 1, 'after' => $world->ledger->isCurrent(), 'version' => $world->ledger->value('schema_version', 0)]);
        `);
        expect(result).toEqual({ before: false, ok: true, after: true, version: '2' });
      });
    });

    describe('checkRefunds', () => {
      it('follows a refund to paid: tells the owner what to send, records the payment once', async () => {
        const result = await run<{
          outcomes: Array<Array<{ result: string; status: string | null }>>;
          notes: string[];
          recorded: Array<{ refund_id: string; amount: string; tx_id: string | null }>;
          waiting: Line[];
          paid: Line[];
          row: Record<string, unknown>;
          named: Array<{ result: string }>;
        }>(`
          [$world, $code] = World::withSettledOrder($service);
          $desk = new RefundDesk($service);
          $start = $world->kernel->startRefund('1', '12.340001', 'USDC', 'wc-refund-1', null, $key, $world->refunds);
          $id = $start->refund->refundId;
          $check = static function () use ($world): array {
              return array_map(static function (array $o): array { return ['result' => $o['result'], 'status' => $o['status']]; }, $world->kernel->checkRefunds($world->refunds));
          };
          $outcomes = [$check()];                       // just created: not due
          $world->clock->now += RefundRunner::ADDRESS_RECHECK_SECONDS;
          $outcomes[] = $check();                       // still waiting for the buyer
          $desk->confirmAddress((string) $start->refund->claimUrl);
          $world->clock->now += RefundRunner::ADDRESS_RECHECK_SECONDS;
          $outcomes[] = $check();
          $waiting = RefundLabels::lines($world->kernel->refunds('1')[0]);
          $desk->pay($id);
          $world->clock->now += 300;
          $outcomes[] = $check();
          $world->clock->now += 3600;
          $outcomes[] = $check();                       // paid and recorded: never due again
          $named = $world->kernel->checkRefunds($world->refunds, $id);
          echo json_encode([
              'outcomes' => $outcomes,
              'notes' => $world->refunds->notes['1'],
              'recorded' => $world->refunds->recorded['1'] ?? [],
              'waiting' => $waiting,
              'paid' => RefundLabels::lines($world->kernel->refunds('1')[0]),
              'row' => $world->kernel->refunds('1')[0]->toArray(),
              'named' => $named,
          ]);
        `);
        expect(result.outcomes).toEqual([
          [],
          [{ result: 'unchanged', status: 'awaiting_address' }],
          [{ result: 'changed', status: 'awaiting_payment' }],
          [{ result: 'recorded', status: 'paid' }],
          [],
        ]);
        expect(result.named).toMatchObject([{ result: 'unchanged' }]);
        expect(result.notes).toEqual([
          'Refund of 12.340001 USDC requested; the buyer was sent the claim link.',
          'The buyer confirmed the address for the refund of 12.340001 USDC: send 12.340001 USDC on Polygon PoS to 0x1111111111111111111111111111111111111111.',
        ]);
        expect(result.waiting).toEqual([
          {
            text: 'Refund 12.340001 USDC: the buyer confirmed an address; waiting for your payment',
            link: null,
            link_text: null,
          },
          {
            text: 'Send 12.340001 USDC on Polygon PoS to 0x1111111111111111111111111111111111111111',
            link: expect.stringMatching(/^ethereum:.*uint256=12340001$/),
            link_text: 'Open in wallet',
          },
        ]);
        expect(result.recorded).toHaveLength(1);
        expect(result.recorded[0]?.tx_id).toMatch(/^sandbox-refund-/);
        expect(result.paid).toEqual([
          { text: 'Refund 12.340001 USDC: paid', link: null, link_text: null },
          {
            text: 'Paid —',
            link: `${fake.url}/sandbox/tx/${result.recorded[0]?.tx_id}`,
            link_text: result.recorded[0]?.tx_id,
          },
        ]);
        expect(result.row).toMatchObject({
          status: 'paid',
          noticed_status: 'paid',
          recorded_at: expect.any(Number),
        });
      });

      it('on Solana, tells the owner to pay with the wallet link, whose request carries the refund’s reference', async () => {
        // The service finds a Solana refund's payment only by that reference (docs/solana.md "Refunds").
        const result = await run<Record<string, Line[]>>(`
          $awaiting = static function (string $network, string $address, string $uri): RefundRecord {
              return RefundRecord::fromArray([
                  'refund_id' => 'r-1', 'order_id' => '1', 'transaction_code' => 'c-1', 'service_url' => 'https://pay.example.com',
                  'amount' => '12.5', 'asset' => 'USDC', 'network' => $network, 'fiat_currency' => 'EUR',
                  'status' => RefundRecord::AWAITING_PAYMENT, 'address' => $address, 'payment_request_uri' => $uri, 'created_at' => 1,
              ]);
          };
          $solana = $awaiting('SOLANA', '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU', 'solana:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU?amount=12.5&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny&label=Crypto%20Checkout&message=Refund');
          $polygon = $awaiting('POLYGON', '0x1111111111111111111111111111111111111111', 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x1111111111111111111111111111111111111111&uint256=12500000');
          echo json_encode([
              'solana' => RefundLabels::lines($solana),
              'translated' => RefundLabels::lines($solana, static function (string $text, array $parameters): string { return 'FR: ' . strtr($text, $parameters); }),
              'polygon' => RefundLabels::lines($polygon),
          ]);
        `);
        expect(result.solana).toEqual([
          {
            text: 'Refund 12.5 USDC: the buyer confirmed an address; waiting for your payment',
            link: null,
            link_text: null,
          },
          {
            text: 'Send 12.5 USDC on Solana to 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
            link: expect.stringMatching(
              /^solana:7xKX.*&reference=82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny&/,
            ),
            link_text: 'Open in wallet',
          },
          {
            text: 'On Solana, pay it with "Open in wallet": the request carries this refund\'s reference, which is how its payment is found. A transfer typed in by hand to the address has none and is not found.',
            link: null,
            link_text: null,
          },
        ]);
        expect(result.translated?.[2]?.text).toMatch(/^FR: On Solana, pay it with "Open in wallet"/);
        // Elsewhere the amount sent to the address is what is looked for: no such line.
        expect(result.polygon?.map((line) => line.text)).toEqual([
          'Refund 12.5 USDC: the buyer confirmed an address; waiting for your payment',
          'Send 12.5 USDC on Polygon PoS to 0x1111111111111111111111111111111111111111',
        ]);
      });

      it('notes a cancelled and an expired refund once each', async () => {
        const result = await run<{ notes: string[]; outcomes: string[]; labels: string[] }>(`
          [$world, $code] = World::withSettledOrder($service);
          $desk = new RefundDesk($service);
          $cancelled = $world->kernel->startRefund('1', '3', 'USDC', 'r-cancel', null, $key, $world->refunds)->refund;
          $expired = $world->kernel->startRefund('1', '4', 'USDC', 'r-expire', null, $key, $world->refunds)->refund;
          $desk->cancel($cancelled->refundId, $key);
          $desk->expire($expired->refundId);
          $outcomes = [];
          for ($i = 0; $i < 3; $i++) {
              $world->clock->now += RefundRunner::ADDRESS_RECHECK_SECONDS;
              foreach ($world->kernel->checkRefunds($world->refunds) as $o) { $outcomes[] = $o['status'] . ':' . $o['result']; }
              $outcomes[] = '|';
          }
          $labels = [];
          foreach ($world->kernel->refunds('1') as $r) { $labels[] = RefundLabels::lines($r)[0]['text']; }
          sort($outcomes);
          sort($labels);
          echo json_encode(['notes' => array_slice($world->refunds->notes['1'], 2), 'outcomes' => $outcomes, 'labels' => $labels]);
        `);
        expect([...result.notes].sort()).toEqual([
          'The refund of 3 USDC was cancelled; nothing was paid.',
          'The refund of 4 USDC expired: the buyer did not confirm an address in time, and nothing was paid. Start a new refund if the buyer should still get it.',
        ]);
        // Noted once, then never looked at again.
        expect(result.outcomes).toEqual(['cancelled:changed', 'expired:changed', '|', '|', '|']);
        expect(result.labels).toEqual([
          'Refund 3 USDC: cancelled; nothing was paid',
          'Refund 4 USDC: expired; the buyer did not confirm an address in time, nothing was paid',
        ]);
      });
    });

    describe('a paid refund checked by several requests at once', () => {
      it('is recorded once when another check runs completely between any two steps of a check', async () => {
        const results = await run<
          Array<{ step: number; name: string; recorded: number; claimed: boolean; row: boolean }>
        >(`
          $check = static function ($kernel, World $world): void { $kernel->checkRefunds($world->refunds); };
          $steps = stepsOf($check);
          $out = [];
          for ($step = 1; $step <= $steps; $step++) {
              [$world, $id] = paidWorld();
              $start = $world->steps->count();
              $second = $world->newKernel();
              $fired = false;
              $name = '';
              $world->steps->before = static function (string $what) use (&$fired, &$name, $world, $second, $start, $step): void {
                  if (!$fired && $world->steps->count() === $start + $step) {
                      $fired = true;
                      $name = $what;
                      $second->checkRefunds($world->refunds);
                  }
              };
              $world->kernel->checkRefunds($world->refunds);
              $world->steps->before = null;
              $out[] = ['step' => $step, 'name' => $name, 'recorded' => recordedCount($world, $id), 'claimed' => $world->ledger->isClaimed('1', $world->clock->now), 'row' => $world->kernel->refunds('1')[0]->recordedAt !== null];
          }
          echo json_encode($out);
        `);
        expect(results.length).toBeGreaterThanOrEqual(8);
        expect(results.map((result) => result.name)).toEqual(
          expect.arrayContaining(['isRefundRecorded', 'recordRefundPaid', 'sql:UPDATE']),
        );
        for (const result of results) {
          expect(result, JSON.stringify(result)).toMatchObject({ recorded: 1, claimed: false, row: true });
        }
      });

      it('is recorded once when the webhook and the poll race, either way round', async () => {
        const results = await run<
          Array<{ first: string; step: number; recorded: number; claimed: boolean; reply: number }>
        >(`
          $webhook = static function ($kernel, World $world, string $id, RefundDesk $desk): int {
              return $kernel->webhook('POST', $desk->paidWebhookBody($id), '203.0.113.5', $world->refunds)['reply']->status;
          };
          $poll = static function ($kernel, World $world): int { $kernel->checkRefunds($world->refunds); return 200; };
          $out = [];
          foreach (['webhook' => [$webhook, $poll], 'poll' => [$poll, $webhook]] as $first => [$one, $other]) {
              $steps = stepsOf($one);
              for ($step = 1; $step <= $steps; $step++) {
                  [$world, $id, $desk] = paidWorld();
                  $start = $world->steps->count();
                  $second = $world->newKernel();
                  $fired = false;
                  $world->steps->before = static function (string $what) use (&$fired, $world, $second, $start, $step, $other, $id, $desk): void {
                      if (!$fired && $world->steps->count() === $start + $step) {
                          $fired = true;
                          $other($second, $world, $id, $desk);
                      }
                  };
                  $reply = $one($world->kernel, $world, $id, $desk);
                  $world->steps->before = null;
                  $out[] = ['first' => $first, 'step' => $step, 'recorded' => recordedCount($world, $id), 'claimed' => $world->ledger->isClaimed('1', $world->clock->now), 'reply' => $reply];
              }
          }
          echo json_encode($out);
        `);
        expect(results.filter((result) => result.first === 'webhook').length).toBeGreaterThanOrEqual(8);
        expect(results.filter((result) => result.first === 'poll').length).toBeGreaterThanOrEqual(8);
        for (const result of results) {
          expect(result, JSON.stringify(result)).toMatchObject({ recorded: 1, claimed: false, reply: 200 });
        }
      });

      it('is recorded once by the next check after a crash before any step', async () => {
        const results = await run<
          Array<{ step: number; name: string; recorded: number; afterCrash: number }>
        >(`
          $steps = stepsOf(static function ($kernel, World $world): void { $kernel->checkRefunds($world->refunds); });
          $out = [];
          for ($step = 1; $step <= $steps; $step++) {
              [$world, $id] = paidWorld();
              $world->steps->crashAt = $world->steps->count() + $step;
              try {
                  $world->kernel->checkRefunds($world->refunds);
              } catch (SimulatedCrash $crash) {
              }
              $world->steps->revive();
              $name = $world->steps->log[count($world->steps->log) - 1];
              $afterCrash = recordedCount($world, $id);
              $world->clock->now += Claim::LEASE_SECONDS + RefundRunner::PAYMENT_RECHECK_SECONDS;
              $world->newKernel()->checkRefunds($world->refunds);
              $out[] = ['step' => $step, 'name' => $name, 'recorded' => recordedCount($world, $id), 'afterCrash' => $afterCrash];
          }
          echo json_encode($out);
        `);
        // A crash right after the platform recorded the refund, before the ledger knew.
        expect(results.some((result) => result.name !== 'recordRefundPaid' && result.afterCrash === 1)).toBe(
          true,
        );
        for (const result of results) expect(result, JSON.stringify(result)).toMatchObject({ recorded: 1 });
      });
    });

    describe('refund.paid webhook', () => {
      it('is a hint only: unknown, unpaid, malformed and unsupported refunds change nothing', async () => {
        const result = await run<
          Record<string, { status: number; body: unknown; verified: boolean }> & { recorded: number }
        >(`
          [$world, $code] = World::withSettledOrder($service);
          $desk = new RefundDesk($service);
          $refund = $world->kernel->startRefund('1', '2', 'USDC', 'r-2', null, $key, $world->refunds)->refund;
          $forged = json_encode(['event' => 'refund.paid', 'refund_id' => $refund->refundId, 'transaction_code' => $code, 'external_reference' => 'order-1', 'reference' => 'r-2', 'amount' => '2', 'asset' => 'USDC', 'network' => 'POLYGON', 'address' => '0x2222222222222222222222222222222222222222', 'tx_id' => '0xforged', 'timestamp' => 1]);
          $unknown = str_replace($refund->refundId, '0b7c6f1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b', $forged);
          $broken = json_encode(['event' => 'refund.paid', 'transaction_code' => $code]);
          $reply = static function (array $handled): array {
              return ['status' => $handled['reply']->status, 'body' => $handled['reply']->body, 'verified' => $handled['verified']];
          };
          echo json_encode([
              'forged' => $reply($world->kernel->webhook('POST', $forged, '203.0.113.5', $world->refunds)),
              'unknown' => $reply($world->kernel->webhook('POST', $unknown, '203.0.113.5', $world->refunds)),
              'broken' => $reply($world->kernel->webhook('POST', $broken, '203.0.113.5', $world->refunds)),
              'noPort' => $reply($world->kernel->webhook('POST', $forged, '203.0.113.5')),
              'recorded' => count($world->refunds->recorded),
          ]);
        `);
        expect(result.forged).toEqual({
          status: 200,
          body: { status: 'success', data: { result: 'unchanged' } },
          verified: false,
        });
        expect(result.unknown).toEqual({
          status: 200,
          body: { status: 'success', data: { result: 'ignored' } },
          verified: false,
        });
        expect(result.broken).toMatchObject({
          status: 400,
          body: { status: 'error', error: { code: 'invalid_request', field: 'refund_id' } },
        });
        expect(result.noPort).toMatchObject({ status: 200, body: { data: { result: 'ignored' } } });
        expect(result.recorded).toBe(0);
      });

      it('records a paid refund and counts as a verified webhook; 503 while the service is down', async () => {
        const result = await run<{
          down: number;
          first: unknown;
          again: unknown;
          verified: boolean;
          recorded: number;
          last: boolean;
        }>(`
          [$world, $id, $desk] = paidWorld();
          $body = $desk->paidWebhookBody($id);
          $desk->down(true);
          try {
              $down = $world->kernel->webhook('POST', $body, '203.0.113.5', $world->refunds)['reply']->status;
          } finally {
              $desk->down(false);
          }
          $first = $world->kernel->webhook('POST', $body, '203.0.113.5', $world->refunds);
          $again = $world->kernel->webhook('POST', $body, '203.0.113.5', $world->refunds);
          echo json_encode(['down' => $down, 'first' => $first['reply']->body['data'], 'again' => $again['reply']->body['data'], 'verified' => $first['verified'], 'recorded' => recordedCount($world, $id), 'last' => $world->kernel->lastVerifiedWebhook() === $world->clock->now]);
        `);
        expect(result).toEqual({
          down: 503,
          first: { result: 'recorded' },
          again: { result: 'unchanged' },
          verified: true,
          recorded: 1,
          last: true,
        });
      });
    });
  },
  { mounts: CLIENT_MOUNTS },
);
