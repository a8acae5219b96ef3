import {
  describeEachPhp,
  phpString,
  type SandboxService,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_MOUNTS } from './harness.js';
import { KERNEL_BOOT } from './kernel-boot.js';

// A refund end to end with the real reference server on loopback: the kernel opens a checkout, the
// sandbox pays it, the kernel books it, then starts a refund with a merchant key the operator issued,
// the buyer confirms an address on the claim page, the sandbox pays the refund, and the kernel's check
// records it once. The service's own refusals (amount, key, another merchant's order) reach the admin.

const OPERATOR_TOKEN = 'operator-token-for-the-php-refund-test-0123456789';
const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const OTHER_WALLET = '0x2222222222222222222222222222222222222222';

let service: SandboxService;
let merchantKey: string;
let otherKey: string;

async function issueKey(wallet: string): Promise<string> {
  const response = await fetch(`${service.url}/api/operator/merchant-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label: `php kernel ${wallet.slice(0, 6)}`, wallet_addresses: [wallet] }),
  });
  const body = (await response.json()) as { data?: { key?: string } };
  if (response.status !== 201 && response.status !== 200) throw new Error(JSON.stringify(body));
  return String(body.data?.key);
}

beforeAll(async () => {
  service = await startSandboxService({ operatorToken: OPERATOR_TOKEN });
  merchantKey = await issueKey(WALLET);
  otherKey = await issueKey(OTHER_WALLET);
});

afterAll(async () => {
  await service?.close();
});

describeEachPhp(
  'kernel refunds against the reference server',
  ({ php }) => {
    it('refunds a paid order: claim link, buyer’s address, payment recorded once; refusals reach the admin', async () => {
      const result = (await php().runJson(`${KERNEL_BOOT}
        use CryptoCheckout\\Client\\Client;
        use CryptoCheckout\\Client\\Kernel\\RefundLabels;
        use CryptoCheckout\\Client\\Kernel\\RefundRunner;
        use CryptoCheckout\\KernelTest\\RefundDesk;
        $service = ${phpString(service.url)};
        $world = World::overNetwork($service);
        $world->orders->addOrder('1');
        $terms = $world->terms('1', '25.00');
        unset($terms['webhook_url']);
        $code = $world->kernel->open('1', $terms)['checkout']->transactionCode;
        $http = Client::createDefaultTransport();
        $paid = $http->send('POST', $service . '/api/sandbox/pay', ['Content-Type' => 'application/json'], json_encode(['transaction_code' => $code, 'payment_method' => 'usdc_polygon', 'size' => 'full']), 10)->getStatus();
        $booked = $world->kernel->check('1')->action;
        $show = static function ($s): array { return ['ok' => $s->ok, 'problem' => $s->problem, 'code' => $s->errorCode, 'field' => $s->field, 'message' => $s->message]; };
        $tooMuch = $show($world->kernel->startRefund('1', '1000', 'EUR', 'wc-too-much', null, ${phpString(merchantKey)}, $world->refunds));
        $wrongKey = $show($world->kernel->startRefund('1', '5', 'EUR', 'wc-wrong', null, 'ccm_notAKeyTheServiceIssued0123456789abcdef', $world->refunds));
        $otherMerchant = $show($world->kernel->startRefund('1', '5', 'EUR', 'wc-other', null, ${phpString(otherKey)}, $world->refunds));
        $start = $world->kernel->startRefund('1', '5', 'EUR', 'wc-refund-1', 'Returned', ${phpString(merchantKey)}, $world->refunds);
        $again = $world->kernel->startRefund('1', '5', 'EUR', 'wc-refund-1', 'Returned', ${phpString(merchantKey)}, $world->refunds);
        $desk = new RefundDesk($service);
        $desk->confirmAddress((string) $start->refund->claimUrl);
        $world->clock->now += RefundRunner::ADDRESS_RECHECK_SECONDS;
        $confirmed = $world->kernel->checkRefunds($world->refunds);
        $desk->pay($start->refund->refundId);
        $world->clock->now += RefundRunner::PAYMENT_RECHECK_SECONDS;
        $recorded = $world->kernel->checkRefunds($world->refunds);
        $webhook = $world->kernel->webhook('POST', $desk->paidWebhookBody($start->refund->refundId), '203.0.113.5', $world->refunds);
        $refund = $world->kernel->refunds('1')[0];
        echo json_encode([
            'paid' => $paid, 'booked' => $booked,
            'tooMuch' => $tooMuch, 'wrongKey' => $wrongKey, 'otherMerchant' => $otherMerchant,
            'start' => $show($start), 'sameRefund' => $again->refund->refundId === $start->refund->refundId && !$again->created,
            'confirmed' => array_column($confirmed, 'result'), 'recorded' => array_column($recorded, 'result'),
            'webhook' => [$webhook['reply']->status, $webhook['reply']->body['data']['result'] ?? null, $webhook['verified']],
            'row' => $refund->toArray(), 'platform' => $world->refunds->recorded['1'] ?? [], 'links' => count($world->refunds->linksSent),
            'notes' => $world->refunds->notes['1'] ?? [], 'labels' => RefundLabels::lines($refund),
        ]);
      `)) as Record<string, unknown> & {
        start: { ok: boolean; message: string };
        row: Record<string, unknown>;
        platform: Array<{ refund_id: string; tx_id: string | null }>;
        notes: string[];
        labels: Array<{ text: string; link: string | null }>;
      };
      expect(result).toMatchObject({ paid: 200, booked: 'mark_paid' });
      expect(result.tooMuch).toMatchObject({
        ok: false,
        problem: 'refused',
        code: 'unprocessable',
        field: 'amount',
      });
      expect(result.wrongKey).toMatchObject({ ok: false, problem: 'unauthorized', code: 'unauthorized' });
      expect(result.otherMerchant).toMatchObject({ ok: false, problem: 'refused', code: 'forbidden' });
      expect(result.start.ok).toBe(true);
      expect(result.start.message).toMatch(
        /^Refund of \d+(\.\d+)? USDC requested; the buyer was sent the claim link\.$/,
      );
      expect(result.sameRefund).toBe(true);
      expect(result.confirmed).toEqual(['changed']);
      expect(result.recorded).toEqual(['recorded']);
      expect(result.webhook).toEqual([200, 'unchanged', true]);
      expect(result.row).toMatchObject({
        status: 'paid',
        fiat_amount: '5',
        fiat_currency: 'EUR',
        asset: 'USDC',
        network: 'POLYGON',
        address: '0x1111111111111111111111111111111111111111',
        recorded_at: expect.any(Number),
      });
      expect(result.platform).toHaveLength(1);
      expect(result.platform[0]?.tx_id).toBe(result.row.tx_id);
      expect(result.links).toBe(1);
      expect(result.notes).toHaveLength(2);
      expect(result.notes[1]).toMatch(
        /^The buyer confirmed the address for the refund of .+ USDC: send .+ USDC on Polygon PoS to 0x1111/,
      );
      expect(result.labels[0]?.text).toMatch(/^Refund \d+(\.\d+)? USDC: paid$/);
    });
  },
  { mounts: CLIENT_MOUNTS },
);
