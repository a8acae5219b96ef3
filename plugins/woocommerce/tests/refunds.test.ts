/**
 * Refunds through WooCommerce's own refund action (PHP 8, one WordPress boot with three workers),
 * against the real reference server in sandbox mode: wc_create_refund with refund_payment, as the
 * order screen's "Refund … via Crypto Checkout" button and the REST API's api_refund call it, saves
 * WooCommerce's refund and asks the gateway; the service makes the refund, the buyer gets the claim
 * link as a customer note (e-mailed), confirms an address on the service's claim page, the sandbox
 * pays it, and the plugin records it once (refund.paid webhook, the scheduled poll, the order
 * screen). Each failure (no merchant key, the service unreachable, the service refusing) leaves
 * WooCommerce with no refund and the admin with the reason. The merchant key setting is never
 * written back in full.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { count, lit, useShop, WALLET } from './support/shop.js';

const BUYER = 'buyer@example.com';
const BUYER_ADDRESS = '0x1111111111111111111111111111111111111111';
/** Longer than RefundRunner::PAYMENT_RECHECK_SECONDS, so the poll looks at a refund again. */
const PAST_RECHECK_SECONDS = 300;

interface NoteView {
  content: string;
  customer: boolean;
}

interface RefundView {
  id: number;
  amount: string;
  refunded_payment: boolean;
  meta: Record<string, string>;
}

interface KernelRefund {
  refund_id: string;
  platform_refund_id: string | null;
  status: string;
  amount: string;
  asset: string;
  fiat_amount: string | null;
  claim_url: string | null;
  address: string | null;
  tx_id: string | null;
  tx_url: string | null;
  claim_sent_at: number | null;
  recorded_at: number | null;
}

interface RefundedOrder {
  status: string;
  notes: NoteView[];
  refunds: RefundView[];
  kernel: KernelRefund[];
}

interface Mail {
  to: string;
  subject: string;
  message: string;
}

describe('refunds on PHP 8', () => {
  const shop = useShop({ php: '8', workers: 3 });
  const { placeOrder, codeOf, waitForStatus, saveSettings, validSettings, postWebhook, runScheduledPoll } =
    shop;
  let merchantKey = '';

  /** The operator token the sandbox service generated in its data directory. */
  const operatorToken = () => readFileSync(join(shop.service.dataDir, 'operator-token'), 'utf8').trim();

  const service = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${shop.service.url}${path}`, init);
    return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
  };

  /** A paid order (webhook) of `total` EUR, with the buyer's billing e-mail. */
  const paidOrder = async (total = '25.00') => {
    const id = (await placeOrder(total, 2)).order_id;
    await shop.wp.run(
      `$order = wc_get_order(${id}); $order->set_billing_email(${lit(BUYER)}); $order->save();`,
    );
    await shop.service.pay(await codeOf(id), 'full');
    await waitForStatus(id, 'processing');
    return id;
  };

  /** WooCommerce's refund action: wc_create_refund with refund_payment, as the order screen's button. */
  const refund = (id: number, amount: string, reason = 'Returned one poster') =>
    shop.wp.json<{ refund_id?: number; error?: string }>(`
      $refund = wc_create_refund(['order_id' => ${id}, 'amount' => ${lit(amount)}, 'reason' => ${lit(reason)}, 'refund_payment' => true, 'line_items' => []]);
      echo json_encode(is_wp_error($refund) ? ['error' => $refund->get_error_message()] : ['refund_id' => $refund->get_id()]);
    `);

  const viewRefunds = (id: number) =>
    shop.wp.json<RefundedOrder>(`
      $order = new WC_Order(${id});
      $notes = array_map(static function ($comment) {
          return ['content' => $comment->comment_content, 'customer' => (bool) get_comment_meta($comment->comment_ID, 'is_customer_note', true)];
      }, get_comments(['post_id' => ${id}, 'type' => 'order_note', 'orderby' => 'comment_ID', 'order' => 'ASC', 'status' => 'approve']));
      $refunds = array_map(static function ($refund) {
          $meta = [];
          foreach ($refund->get_meta_data() as $row) { $meta[$row->key] = (string) $row->value; }
          return ['id' => $refund->get_id(), 'amount' => $refund->get_amount(), 'refunded_payment' => $refund->get_refunded_payment(), 'meta' => $meta];
      }, $order->get_refunds());
      $kernel = array_map(static function ($record) { return $record->toArray(); }, \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->refunds('${id}'));
      echo json_encode(['status' => $order->get_status(), 'notes' => $notes, 'refunds' => $refunds, 'kernel' => $kernel]);
    `);

  /** The order screen's Crypto Checkout box (opening it checks the open refunds). */
  const orderScreen = (id: number) =>
    shop.wp.json<string>(`echo json_encode(wc_harness_render_order_edit(${id}));`);

  const mails = () => shop.wp.json<Mail[]>(`echo json_encode(get_option('test_mails', []));`);

  /** The buyer on the service's claim page: the address typed twice, the review, the confirmation. */
  const confirmAddress = async (claimUrl: string) => {
    const form = (fields: Record<string, string>) =>
      fetch(claimUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
    const review = await form({ step: 'check', address: BUYER_ADDRESS, address_again: BUYER_ADDRESS });
    expect(review.status).toBe(200);
    expect(await review.text()).toContain('name="confirmed"');
    const confirmed = await form({ step: 'confirm', address: BUYER_ADDRESS, confirmed: 'yes' });
    expect(confirmed.status).toBe(303);
  };

  /** The merchant's wallet pays the refund (sandbox control). */
  const payRefund = async (refundId: string) => {
    const paid = await service('/api/sandbox/refunds/pay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refund_id: refundId }),
    });
    expect(paid.status).toBe(200);
    return paid.body.data as { tx_id: string; tx_url: string | null };
  };

  /** The refund.paid body the service sends, from its own record. */
  const paidWebhookBody = async (refundId: string) => {
    const refundRecord = (await service(`/api/refund?refund_id=${refundId}`)).body.data as Record<
      string,
      unknown
    >;
    return {
      event: 'refund.paid',
      ...Object.fromEntries(
        [
          'refund_id',
          'transaction_code',
          'external_reference',
          'reference',
          'amount',
          'asset',
          'network',
          'address',
          'tx_id',
        ].map((field) => [field, refundRecord[field]]),
      ),
      timestamp: Math.floor(Date.now() / 1000),
    };
  };

  /** Moves the kernel's time forward, so the scheduled poll finds the refund due a look. */
  const kernelTimeAhead = (seconds: number) =>
    shop.wp.run(`update_option('test_clock_ahead', (int) get_option('test_clock_ahead', 0) + ${seconds});`);

  const serviceRefunds = async (id: number) =>
    ((await service(`/api/refunds?transaction_code=${await codeOf(id)}`)).body.data as { refunds: unknown[] })
      .refunds;

  const setMerchantKey = async (key: string) => {
    const saved = await saveSettings({ ...validSettings(), merchant_key: key });
    expect(saved.errors).toEqual([]);
  };

  beforeAll(async () => {
    // Site-specific code the tests drive through options: the kernel's time, a service that cannot
    // be reached for refunds, a refund.paid webhook the shop never answers, and the e-mails sent.
    writeFileSync(
      join(shop.wp.contentDir, 'mu-plugins', 'test-refunds.php'),
      `<?php
add_filter('cryptocheckout_wc_clock', static function () {
    return new class implements \\CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\Clock {
        public function now(): int { return time() + (int) get_option('test_clock_ahead', 0); }
        public function sleep(int $microseconds): void { usleep($microseconds); }
    };
});
add_filter('pre_http_request', static function ($pre, $args, $url) {
    if (get_option('test_refunds_unreachable') === 'yes' && strpos((string) $url, '/api/refunds') !== false) {
        return new WP_Error('http_request_failed', 'cURL error 7: Failed to connect to the service (test)');
    }
    return $pre;
}, 10, 3);
add_filter('rest_pre_dispatch', static function ($result, $server, $request) {
    if (get_option('test_lose_refund_webhooks') === 'yes' && $request->get_route() === '/cryptocheckout/v1/webhook' && strpos((string) $request->get_body(), 'refund.paid') !== false) {
        return new WP_Error('lost', 'The webhook was lost (test).', ['status' => 503]);
    }
    return $result;
}, 10, 3);
add_filter('pre_wp_mail', static function ($sent, $mail) {
    $mails = get_option('test_mails', []);
    $mails[] = ['to' => is_array($mail['to']) ? implode(',', $mail['to']) : (string) $mail['to'], 'subject' => (string) $mail['subject'], 'message' => (string) $mail['message']];
    update_option('test_mails', $mails, false);
    return true;
}, 10, 2);
`,
    );
    await shop.activate();
    await shop.configure(100);
    const issued = await service('/api/operator/merchant-keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'WooCommerce test shop', wallet_addresses: [WALLET] }),
    });
    expect(issued.status).toBe(201);
    merchantKey = String(issued.body.data?.key);
    expect(merchantKey).toMatch(/^ccm_/);
  });

  describe('the merchant key setting', () => {
    it('is a password field that never shows the saved key, keeps it when left empty, and can be removed', async () => {
      await setMerchantKey(merchantKey);
      const form = await shop.wp.json<string>(`
        ob_start(); WC()->payment_gateways()->payment_gateways()['cryptocheckout']->admin_options(); echo json_encode(ob_get_clean());
      `);
      expect(form).toContain('type="password" name="woocommerce_cryptocheckout_merchant_key"');
      expect(form).not.toContain(merchantKey);
      expect(form).toContain(`${merchantKey.slice(0, 4)}…${merchantKey.slice(-4)}`);

      // Saved again with the field left empty (as the browser posts a password field): the key stays.
      let saved = await saveSettings({ ...validSettings(), merchant_key: '' });
      expect(saved.saved.merchant_key).toBe(merchantKey);
      saved = await saveSettings({ ...validSettings(), merchant_key: 'ccm_with a space' });
      expect(saved.errors).toEqual([
        expect.stringMatching(/^Merchant key: paste the key .* without spaces\. The saved key was kept\.$/),
      ]);
      expect(saved.saved.merchant_key).toBe(merchantKey);
      saved = await saveSettings({ ...validSettings(), merchant_key: '', merchant_key_remove: '1' });
      expect(saved.saved.merchant_key).toBe('');
      await setMerchantKey(merchantKey);
    });

    it('is masked by the REST API, and the masked value written back keeps the key', async () => {
      const answer = await shop.wp.json<{ shown: string; stored: string; refused: number }>(`
        wp_set_current_user(1);
        $get = rest_do_request(new WP_REST_Request('GET', '/wc/v3/payment_gateways/cryptocheckout'));
        $shown = $get->get_data()['settings']['merchant_key']['value'];
        $put = new WP_REST_Request('PUT', '/wc/v3/payment_gateways/cryptocheckout');
        $put->set_body_params(['settings' => ['merchant_key' => $shown]]);
        rest_do_request($put);
        $bad = new WP_REST_Request('PUT', '/wc/v3/payment_gateways/cryptocheckout');
        $bad->set_body_params(['settings' => ['merchant_key' => 'two words']]);
        $refused = rest_do_request($bad)->get_status();
        echo json_encode(['shown' => $shown, 'stored' => get_option('woocommerce_cryptocheckout_settings')['merchant_key'], 'refused' => $refused]);
      `);
      expect(answer.shown).toBe(`${merchantKey.slice(0, 4)}…${merchantKey.slice(-4)}`);
      expect(answer.stored).toBe(merchantKey);
      expect(answer.refused).toBe(400);
    });
  });

  describe('a refund from the order screen', () => {
    let id = 0;
    let wcRefundId = 0;
    let refundId = '';

    it('declares refunds and offers them for a paid Crypto Checkout order only', async () => {
      id = await paidOrder('25.00');
      const pending = (await placeOrder('10.00', 1)).order_id;
      const offered = await shop.wp.json<{ supports: boolean; paid: boolean; pending: boolean }>(`
        $gateway = WC()->payment_gateways()->payment_gateways()['cryptocheckout'];
        echo json_encode(['supports' => $gateway->supports('refunds'), 'paid' => $gateway->can_refund_order(wc_get_order(${id})), 'pending' => $gateway->can_refund_order(wc_get_order(${pending}))]);
      `);
      expect(offered).toEqual({ supports: true, paid: true, pending: false });
    });

    it('starts the service refund in the order currency: the buyer gets the claim link by e-mail, the owner a note', async () => {
      await shop.wp.run(`delete_option('test_mails');`);
      const made = await refund(id, '10.00');
      expect(made.error).toBeUndefined();
      wcRefundId = made.refund_id as number;
      const order = await viewRefunds(id);
      expect(order.status).toBe('processing');
      expect(order.refunds).toHaveLength(1);
      expect(order.refunds[0]).toMatchObject({ id: wcRefundId, amount: '10.00', refunded_payment: true });
      expect(order.kernel).toHaveLength(1);
      const started = order.kernel[0] as KernelRefund;
      refundId = started.refund_id;
      expect(started).toMatchObject({
        platform_refund_id: `wc-refund-${wcRefundId}`,
        status: 'awaiting_address',
        asset: 'USDC',
        fiat_amount: '10',
        claim_sent_at: expect.any(Number),
      });
      expect(order.refunds[0]?.meta._cryptocheckout_refund_id).toBe(refundId);
      const claimUrl = started.claim_url as string;
      expect(claimUrl).toMatch(new RegExp(`^${shop.service.url}/refund/[A-Za-z0-9_-]{43}$`));

      const customerNotes = order.notes.filter((note) => note.customer);
      expect(customerNotes).toHaveLength(1);
      expect(customerNotes[0]?.content).toContain(claimUrl);
      expect(customerNotes[0]?.content).toContain(`Your refund of ${started.amount} USDC (10 EUR)`);
      expect(
        count(
          order.notes.map((note) => note.content),
          `Crypto Checkout: Refund of ${started.amount} USDC requested; the buyer was sent the claim link.`,
        ),
      ).toBe(1);
      const sent = await mails();
      expect(sent).toHaveLength(1);
      expect(sent[0]?.to).toBe(BUYER);
      expect(sent[0]?.message).toContain(claimUrl);

      // The service holds it under the WooCommerce refund's reference, in EUR.
      const atService = (await service(`/api/refund?refund_id=${refundId}`)).body.data;
      expect(atService).toMatchObject({
        reference: `wc-refund-${wcRefundId}`,
        fiat_amount: '10',
        fiat_currency: 'EUR',
      });
      expect(await orderScreen(id)).toContain('waiting for the buyer&#039;s address');
    });

    it('asked again for the same WooCommerce refund, gets the same service refund and sends no second link', async () => {
      const again = await shop.wp.json<boolean | { error: string }>(`
        $result = wc_refund_payment(wc_get_order(${id}), '10.00', 'Returned one poster');
        echo json_encode(is_wp_error($result) ? ['error' => $result->get_error_message()] : $result);
      `);
      expect(again).toBe(true);
      const order = await viewRefunds(id);
      expect(order.kernel.map((row) => row.refund_id)).toEqual([refundId]);
      expect(order.notes.filter((note) => note.customer)).toHaveLength(1);
      expect(await mails()).toHaveLength(1);
      expect(await serviceRefunds(id)).toHaveLength(1);
    });

    it('shows the payment to send once the buyer confirmed an address, when the order screen is opened', async () => {
      const claimUrl = (await viewRefunds(id)).kernel[0]?.claim_url as string;
      await confirmAddress(claimUrl);
      const screen = await orderScreen(id);
      expect(screen).toContain(`Refund #${wcRefundId}`);
      expect(screen).toContain('the buyer confirmed an address; waiting for your payment');
      expect(screen).toMatch(
        new RegExp(`Send [\\d.]+ USDC on Polygon PoS to ${BUYER_ADDRESS} <a href="ethereum:0x`),
      );
      expect(screen).toContain('>Open in wallet</a>');
      const order = await viewRefunds(id);
      expect(order.kernel[0]?.status).toBe('awaiting_payment');
      expect(
        count(
          order.notes.map((note) => note.content),
          'The buyer confirmed the address for the refund',
        ),
      ).toBe(1);
    });

    it('records the paid refund once when refund.paid arrives: one note with the chain link, the WooCommerce refund marked paid', async () => {
      const paid = await payRefund(refundId);
      await expect
        .poll(async () => (await viewRefunds(id)).kernel[0]?.recorded_at ?? null, { interval: 250 })
        .not.toBeNull();
      const order = await viewRefunds(id);
      const paidNotes = order.notes.filter((note) => note.content.includes('was paid to'));
      expect(paidNotes).toHaveLength(1);
      expect(paidNotes[0]?.customer).toBe(false);
      expect(paidNotes[0]?.content).toContain(`Crypto Checkout: refund #${wcRefundId} of `);
      expect(paidNotes[0]?.content).toContain(paid.tx_id);
      if (paid.tx_url !== null) expect(paidNotes[0]?.content).toContain(`<a href="${paid.tx_url}"`);
      expect(order.refunds[0]?.meta).toMatchObject({
        _cryptocheckout_refund_id: refundId,
        _cryptocheckout_refund_status: 'paid',
        _cryptocheckout_refund_tx_id: paid.tx_id,
      });
      expect(order.status).toBe('processing');
      const screen = await orderScreen(id);
      expect(screen).toMatch(/Refund [\d.]+ USDC: paid/);
      expect(screen).toContain(paid.tx_id);

      // The webhook again, the poll, the order screen: nothing more.
      expect((await postWebhook(await paidWebhookBody(refundId))).json).toEqual({
        status: 'success',
        data: { result: 'unchanged' },
      });
      await kernelTimeAhead(PAST_RECHECK_SECONDS);
      await runScheduledPoll();
      await orderScreen(id);
      const after = await viewRefunds(id);
      expect(after.notes.filter((note) => note.content.includes('was paid to'))).toHaveLength(1);
      expect(after.status).toBe('processing');
    });
  });

  describe('a lost refund.paid webhook', () => {
    it('is caught by the scheduled poll, and a webhook racing the poll records it once', async () => {
      await shop.wp.run(`update_option('test_lose_refund_webhooks', 'yes');`);
      const id = await paidOrder('30.00');
      expect((await refund(id, '12.50')).error).toBeUndefined();
      let order = await viewRefunds(id);
      const refundId = order.kernel[0]?.refund_id as string;
      await confirmAddress(order.kernel[0]?.claim_url as string);
      await kernelTimeAhead(PAST_RECHECK_SECONDS * 4);
      await runScheduledPoll();
      expect((await viewRefunds(id)).kernel[0]?.status).toBe('awaiting_payment');

      await payRefund(refundId);
      // The service's delivery is refused by the shop (lost), so nothing is recorded until the poll.
      await shop.waitForDeliveryAnswer(await codeOf(id), 503);
      order = await viewRefunds(id);
      expect(order.kernel[0]?.status).toBe('awaiting_payment');
      expect(
        count(
          order.notes.map((note) => note.content),
          'was paid to',
        ),
      ).toBe(0);

      // Two copies of the webhook delivered by hand and the poll, at once.
      await shop.wp.run(`delete_option('test_lose_refund_webhooks');`);
      await kernelTimeAhead(PAST_RECHECK_SECONDS);
      const body = await paidWebhookBody(refundId);
      const [first, second, polled] = await Promise.all([
        postWebhook(body),
        postWebhook(body),
        runScheduledPoll(),
      ]);
      expect(polled).toContain('cryptocheckout_poll_open_orders');
      expect([first.status, second.status]).toEqual([200, 200]);
      order = await viewRefunds(id);
      expect(order.kernel[0]).toMatchObject({ status: 'paid', recorded_at: expect.any(Number) });
      expect(
        count(
          order.notes.map((note) => note.content),
          'was paid to',
        ),
      ).toBe(1);
      expect(order.refunds[0]?.meta._cryptocheckout_refund_status).toBe('paid');
      expect(order.status).toBe('processing');
    });
  });

  describe('the paid record', () => {
    it('links the transaction to its explorer page when the service gives one, and falls back to the order when the WooCommerce refund was deleted', async () => {
      const id = (await placeOrder('18.00', 1)).order_id;
      const result = await shop.wp.json<{
        before: boolean[];
        after: boolean[];
        kept: string;
        onOrder: string;
        notes: string[];
      }>(`
        use CryptoCheckout\\WooCommerce\\Order\\WooCommerceRefundPort;
        use CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\RefundRecord;
        $kept = wc_create_refund(['order_id' => ${id}, 'amount' => '3.00', 'refund_payment' => false]);
        $gone = wc_create_refund(['order_id' => ${id}, 'amount' => '2.00', 'refund_payment' => false]);
        $record = static function (string $refundId, int $wcRefundId, ?string $txUrl): RefundRecord {
            return RefundRecord::fromArray(['refund_id' => $refundId, 'order_id' => '${id}', 'transaction_code' => 'tx', 'platform_refund_id' => 'wc-refund-' . $wcRefundId, 'service_url' => 'http://127.0.0.1:9', 'amount' => '3.2535', 'asset' => 'USDC', 'network' => 'POLYGON', 'fiat_amount' => '3', 'fiat_currency' => 'EUR', 'status' => 'paid', 'address' => '${BUYER_ADDRESS}', 'tx_id' => '0xabc', 'tx_url' => $txUrl, 'created_at' => time()]);
        };
        $port = new WooCommerceRefundPort();
        $goneId = $gone->get_id();
        $gone->delete(true);
        $before = [$port->isRefundRecorded('${id}', 'refund-kept'), $port->isRefundRecorded('${id}', 'refund-gone')];
        $port->recordRefundPaid('${id}', $record('refund-kept', $kept->get_id(), 'https://polygonscan.com/tx/0xabc'));
        $port->recordRefundPaid('${id}', $record('refund-gone', $goneId, null));
        $after = [$port->isRefundRecorded('${id}', 'refund-kept'), $port->isRefundRecorded('${id}', 'refund-gone')];
        echo json_encode([
            'before' => $before, 'after' => $after,
            'kept' => (new WC_Order_Refund($kept->get_id()))->get_meta('_cryptocheckout_refund_tx_url'),
            'onOrder' => (new WC_Order(${id}))->get_meta('_cryptocheckout_refund_paid_refund-gone'),
            'notes' => wc_harness_order_notes(${id}),
        ]);
      `);
      expect(result.before).toEqual([false, false]);
      expect(result.after).toEqual([true, true]);
      expect(result.kept).toBe('https://polygonscan.com/tx/0xabc');
      expect(result.onOrder).toBe('0xabc');
      const paid = result.notes.filter((note) => note.includes('was paid to'));
      expect(paid).toHaveLength(2);
      expect(paid[0]).toMatch(
        /^Crypto Checkout: refund #\d+ of 3\.2535 USDC \(3 EUR\) was paid to 0x1{40} in transaction <a href="https:\/\/polygonscan\.com\/tx\/0xabc" target="_blank" rel="noopener noreferrer">0xabc<\/a>\.$/,
      );
      expect(paid[1]).toBe(
        `Crypto Checkout: the refund of 3.2535 USDC (3 EUR) was paid to ${BUYER_ADDRESS} in transaction 0xabc.`,
      );
    });
  });

  describe('when the refund cannot be made, WooCommerce keeps no refund and the admin reads why', () => {
    it('without a merchant key: names where to set it', async () => {
      const id = await paidOrder('20.00');
      await saveSettings({ ...validSettings(), merchant_key: '', merchant_key_remove: '1' });
      const notesBefore = (await viewRefunds(id)).notes.length;
      const made = await refund(id, '5.00');
      expect(made.error).toBe(
        'No merchant key is set, so Crypto Checkout cannot refund: enter the merchant key your Crypto Checkout operator issued for your wallet under WooCommerce > Settings > Payments > Crypto Checkout > Merchant key. Nothing was refunded.',
      );
      const order = await viewRefunds(id);
      expect(order.refunds).toEqual([]);
      expect(order.kernel).toEqual([]);
      expect(order.notes).toHaveLength(notesBefore);
      expect(await serviceRefunds(id)).toEqual([]);
      await setMerchantKey(merchantKey);
    });

    it('asked of the gateway without a WooCommerce refund of that amount: names the Refund button', async () => {
      const id = await paidOrder('20.00');
      const asked = await shop.wp.json<{ error?: string }>(`
        $result = wc_refund_payment(wc_get_order(${id}), '7.77', 'not from the Refund button');
        echo json_encode(is_wp_error($result) ? ['error' => $result->get_error_message()] : []);
      `);
      expect(asked.error).toBe(
        "Crypto Checkout refunds start from the order's Refund button: no WooCommerce refund of 7.77 EUR was found on this order. Nothing was refunded.",
      );
      expect(await serviceRefunds(id)).toEqual([]);
    });

    it('with the service unreachable: says nothing was refunded', async () => {
      const id = await paidOrder('20.00');
      await shop.wp.run(`update_option('test_refunds_unreachable', 'yes');`);
      const made = await refund(id, '5.00');
      await shop.wp.run(`delete_option('test_refunds_unreachable');`);
      expect(made.error).toMatch(
        /^The Crypto Checkout service could not be reached \(.*Failed to connect.*\)\. Nothing was refunded; try again in a few minutes\.$/,
      );
      const order = await viewRefunds(id);
      expect(order.refunds).toEqual([]);
      expect(order.kernel).toEqual([]);
      expect(await serviceRefunds(id)).toEqual([]);
    });

    it('when the service refuses (more than is left to refund): its message', async () => {
      const id = await paidOrder('20.00');
      // 15 EUR refunded from the dashboard (outside WooCommerce): WooCommerce still thinks 20 are left.
      const outside = await service('/api/refunds', {
        method: 'POST',
        headers: { authorization: `Bearer ${merchantKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ transaction_code: await codeOf(id), amount: '15.00', currency: 'EUR' }),
      });
      expect(outside.status).toBe(201);
      const made = await refund(id, '10.00');
      expect(made.error).toMatch(
        /^The Crypto Checkout service refused the refund: .*at most [\d.]+ USDC.* Nothing was refunded\.$/,
      );
      const order = await viewRefunds(id);
      expect(order.refunds).toEqual([]);
      expect(order.kernel).toEqual([]);
      expect(order.status).toBe('processing');
      expect(await serviceRefunds(id)).toHaveLength(1);
      expect(shop.wp.log()).toMatch(
        /WARNING Starting a refund failed; nothing was refunded: unprocessable .* \[field amount\] \(order \d+, transaction [0-9a-f-]+, platform_refund wc-refund-\d+\)/,
      );
    });
  });
});
