/**
 * Order flows around the checkout and the order (PHP 8, one WordPress boot): refusing a total no
 * rail takes, or an order whose settlement the service does not offer, what the buyer's status box
 * offers once the payment window closed, which orders the status endpoint answers for, the order
 * screen's Crypto Checkout box with "Check payment now", and the throttling of the public endpoints.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { count, lit, useShop } from './support/shop.js';

/** Longer than Runner::BUYER_CHECK_SECONDS, so the buyer's next page checks the service again. */
const BUYER_CHECK_PAUSE_SECONDS = 6;

describe('order flows on PHP 8', () => {
  const shop = useShop({ php: '8' });
  const { clock, placeOrder, viewOrder, codeOf, postWebhook, runScheduledPoll } = shop;

  beforeAll(() => {
    // Site-specific filters the tests drive through options: rate limits, a payment-options call
    // that fails, and the kernel's time (moved forward, or held inside one throttle window).
    writeFileSync(
      join(shop.wp.contentDir, 'mu-plugins', 'test-order-flows.php'),
      `<?php
add_filter('cryptocheckout_wc_clock', static function () {
    return new class implements \\CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\Clock {
        public function now(): int { $held = (int) get_option('test_clock_held', 0); return $held > 0 ? $held : time() + (int) get_option('test_clock_ahead', 0); }
        public function sleep(int $microseconds): void { usleep($microseconds); }
    };
});
add_filter('cryptocheckout_wc_webhook_rate_limit', static function ($limit) { $test = get_option('test_webhook_limit'); return $test === false ? $limit : (int) $test; });
add_filter('cryptocheckout_wc_status_rate_limit', static function ($limit) { $test = get_option('test_status_limit'); return $test === false ? $limit : (int) $test; });
add_filter('pre_http_request', static function ($pre, $args, $url) {
    if (get_option('test_fail_payment_options') === 'yes' && strpos((string) $url, '/api/payment_options') !== false) {
        return new WP_Error('http_request_failed', 'cURL error 7: Failed to connect (test)');
    }
    return $pre;
}, 10, 3);
// A server that does not offer some rails (a comma list of slugs, or * for all), with a reason.
add_filter('http_response', static function ($response, $args, $url) {
    $reason = (string) get_option('test_unavailable_reason', '');
    if ($reason !== '' && strpos((string) $url, '/api/payment_options?') !== false && is_array($response)) {
        $slugs = explode(',', (string) get_option('test_unavailable_slugs', '*'));
        $body = json_decode((string) $response['body'], true);
        foreach ($body['data']['payment_options'] as $i => $option) {
            if ($slugs === ['*'] || in_array($option['slug'], $slugs, true)) {
                $body['data']['payment_options'][$i]['available'] = false;
                $body['data']['payment_options'][$i]['unavailable_reason'] = $reason;
            }
        }
        $response['body'] = json_encode($body);
    }
    return $response;
}, 10, 3);
// A service from before the locked rate: its lookups answer without data.rate.
add_filter('http_response', static function ($response, $args, $url) {
    if (get_option('test_lookup_without_rate') === 'yes' && strpos((string) $url, '/api/transaction?') !== false && is_array($response)) {
        $body = json_decode((string) $response['body'], true);
        unset($body['data']['rate']);
        $response['body'] = json_encode($body);
    }
    return $response;
}, 10, 3);
`,
    );
  });

  /** Moves the kernel's time forward, as that many seconds passing would. */
  const kernelTimeAhead = (seconds: number) =>
    shop.wp.run(`update_option('test_clock_ahead', (int) get_option('test_clock_ahead', 0) + ${seconds});`);
  /** Holds the kernel's time 10 s into a throttle window, so a count cannot roll over however slow the requests. */
  const holdKernelTimeInOneWindow = () =>
    shop.wp.run(
      `$now = time() + (int) get_option('test_clock_ahead', 0); update_option('test_clock_held', $now - $now % 60 + 10);`,
    );

  /** The order-received page's HTML for the order (every payment method's hooks). */
  const orderReceived = (id: number) =>
    shop.wp.json<string>(`echo json_encode(wc_harness_render_order_received(${id}));`);
  const orderKey = (id: number) =>
    shop.wp.json<string>(`echo json_encode(wc_get_order(${id})->get_order_key());`);
  const statusUrl = async (id: number, key?: string) =>
    `${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/orders/${id}/status&key=${encodeURIComponent(key ?? (await orderKey(id)))}`;

  it('activates WooCommerce and the plugin, and configures the gateway', async () => {
    await shop.activate();
    await shop.configure(100);
  });

  describe('a total no payment option takes', () => {
    it('is refused at checkout with a notice naming the total; the order stays pending with a note, and nothing is created', async () => {
      const placed = await placeOrder('0.10', 1);
      expect(placed.result).toEqual({ result: 'failure' });
      expect(placed.notices.error?.map((notice) => notice.notice)).toEqual([
        "This order's total is below what crypto payment accepts (0.10 EUR is too small). Please choose another payment method.",
      ]);
      const order = await viewOrder(placed.order_id);
      expect(order.status).toBe('pending');
      expect(order.checkouts).toEqual([]);
      expect(order.stock).toBe(100);
      expect(
        count(order.notes, 'no payment option takes 0.10 EUR (the smallest accepted amount is 0.50 USD)'),
      ).toBe(1);
      expect(shop.wp.log()).toMatch(
        new RegExp(
          `WARNING Order ${placed.order_id}: No payment option of the service takes 0\\.10 EUR \\([\\d.]+ USD; the smallest rail minimum is 0\\.50 USD\\)`,
        ),
      );
    });

    it('a payment-options call that fails gets the same notice, note and log as a failed create', async () => {
      await shop.wp.run(`update_option('test_fail_payment_options', 'yes');`);
      try {
        const placed = await placeOrder('25.00', 1);
        expect(placed.result).toEqual({ result: 'failure' });
        expect(placed.notices.error?.[0]?.notice).toMatch(
          /payment service is not reachable right now\. Your order is saved/,
        );
        const order = await viewOrder(placed.order_id);
        expect(order.status).toBe('pending');
        expect(order.checkouts).toEqual([]);
        expect(order.notes.some((note) => note.includes('The order is still pending.'))).toBe(true);
        expect(shop.wp.log()).toMatch(
          new RegExp(`ERROR Order ${placed.order_id}: the checkout could not be created: .*NetworkException`),
        );
      } finally {
        await shop.wp.run(`delete_option('test_fail_payment_options');`);
      }
    });

    it('is not asked again when the order is paid on its open checkout for the same total', async () => {
      const placed = await placeOrder('25.00', 1);
      expect(placed.result.result).toBe('success');
      const code = await codeOf(placed.order_id);
      await shop.wp.run(`update_option('test_fail_payment_options', 'yes');`);
      try {
        const again = await shop.wp.json(
          `echo json_encode(wc_harness_pay_order(${placed.order_id}, 'cryptocheckout'));`,
        );
        expect(again).toMatchObject({
          result: { result: 'success', redirect: `${shop.service.url}/pay/${code}` },
        });
      } finally {
        await shop.wp.run(`delete_option('test_fail_payment_options');`);
      }
      // Paid while the service answers as one from before the locked rate: booked all the same,
      // with no price line.
      await shop.wp.run(`update_option('test_lookup_without_rate', 'yes');`);
      try {
        await shop.service.pay(code, 'full');
        // The webhook, not the poll: the buyer's return just checked the order, and the poll
        // leaves an open checkout checked in the last minute alone.
        expect((await postWebhook(await shop.service.settledWebhookBody(code))).status).toBe(200);
        const order = await viewOrder(placed.order_id);
        expect(order.status).toBe('processing');
        expect(count(order.notes, `settled (transaction ${code})`)).toBe(1);
        expect(count(order.notes, 'Priced')).toBe(0);
      } finally {
        await shop.wp.run(`delete_option('test_lookup_without_rate');`);
      }
    });
  });

  describe("a service that does not offer the shop's settlement (USDC on Polygon)", () => {
    /** Places a 42.00 EUR order while the service marks `slugs` unavailable for `reason`. */
    const placeWhileUnavailable = async (slugs: string, reason: string) => {
      await shop.wp.run(
        `update_option('test_unavailable_reason', ${lit(reason)}); update_option('test_unavailable_slugs', ${lit(slugs)});`,
      );
      try {
        return await placeOrder('42.00', 1);
      } finally {
        await shop.wp.run(
          `delete_option('test_unavailable_reason'); delete_option('test_unavailable_slugs');`,
        );
      }
    };
    const BUYER_NOTICE =
      'Payment in USDC on Polygon PoS is not available right now. Please try again later or choose another payment method.';

    it("is refused although other rails are offered: the buyer reads that payment in it is not available, the note and the log give the service's reason, nothing is created", async () => {
      const reason = 'Not offered: this server does not watch USDC on Polygon PoS.';
      const placed = await placeWhileUnavailable('usdc_polygon', reason);
      expect(placed.result).toEqual({ result: 'failure' });
      expect(placed.notices.error?.map((notice) => notice.notice)).toEqual([BUYER_NOTICE]);
      const order = await viewOrder(placed.order_id);
      expect(order.status).toBe('pending');
      expect(order.checkouts).toEqual([]);
      expect(
        count(
          order.notes,
          `Crypto Checkout: the service does not offer payment in USDC on Polygon PoS right now: ${reason} The buyer was asked to try again later or choose another payment method; the order is still pending.`,
        ),
      ).toBe(1);
      expect(shop.wp.log()).toContain(
        `ERROR Order ${placed.order_id}: The service does not offer payment in USDC on Polygon PoS for 42.00 EUR: ${reason} The buyer was asked to try again later or choose another payment method.`,
      );
    });

    it('says why when no rail is offered at all, not that the amount is outside what the service accepts', async () => {
      const reason = 'Not offered right now: Polygon PoS cannot be watched.';
      const placed = await placeWhileUnavailable('*', reason);
      expect(placed.result).toEqual({ result: 'failure' });
      expect(placed.notices.error?.map((notice) => notice.notice)).toEqual([BUYER_NOTICE]);
      const order = await viewOrder(placed.order_id);
      expect(order.checkouts).toEqual([]);
      expect(order.notes.some((note) => note.includes('no payment option takes'))).toBe(false);
      expect(count(order.notes, `right now: ${reason} The buyer was asked`)).toBe(1);
    });
  });

  describe('the status box once the payment window closed', () => {
    it('offers no payment page for a part-paid order whose transaction expired, and says the shop will be in touch', async () => {
      const underpaid = (await placeOrder('30.00', 1)).order_id;
      const underpaidCode = await codeOf(underpaid);
      await shop.service.pay(underpaidCode, 'partial');
      await runScheduledPoll();
      expect((await viewOrder(underpaid)).status).toBe('on-hold');
      let html = await orderReceived(underpaid);
      expect(html).toContain('data-state="underpaid"');
      expect(html).toContain(`href="${shop.service.url}/pay/${underpaidCode}"`);

      clock.advanceMinutes(61);
      expect((await shop.service.transaction(underpaidCode)).status).toBe('expired');
      await kernelTimeAhead(BUYER_CHECK_PAUSE_SECONDS);
      html = await orderReceived(underpaid);
      expect(html).toContain('data-state="underpaid"');
      expect(html).toContain('the payment window has closed. The shop will contact you about the rest.');
      expect(html).not.toContain('cryptocheckout-status__pay');
      expect(html).not.toContain('cryptocheckout-status__restart');
      const status = await fetch(await statusUrl(underpaid));
      expect((await status.json()).data).toMatchObject({
        state: 'underpaid',
        terminal: true,
        checkout_url: null,
      });
    });

    it("offers WooCommerce's pay-for-order page to an unpaid order whose window closed and that still needs payment", async () => {
      const placed = (await placeOrder('20.00', 1)).order_id;
      const code = await codeOf(placed);
      clock.advanceMinutes(61);
      await kernelTimeAhead(BUYER_CHECK_PAUSE_SECONDS);
      // Cancelled as the buyer looks (no restart for a cancelled order); the owner then reopens it.
      const cancelled = await orderReceived(placed);
      expect(cancelled).toContain('data-state="cancelled"');
      expect(cancelled).not.toContain('cryptocheckout-status__restart');
      await shop.wp.run(`wc_get_order(${placed})->update_status('pending', 'Reopened for the buyer.');`);

      const html = await orderReceived(placed);
      expect(html).toContain('data-state="awaiting_payment"');
      expect(html).toContain('The payment window has closed. Start a new payment');
      expect(html).not.toContain('cryptocheckout-status__pay');
      const payUrl = await shop.wp.json<string>(
        `echo json_encode(wc_get_order(${placed})->get_checkout_payment_url());`,
      );
      expect(payUrl).toMatch(new RegExp(`order-pay=${placed}.*pay_for_order=true.*key=wc_order_`));
      const restart = html.match(
        /<p class="cryptocheckout-status__restart"><a class="button" href="([^"]+)">([^<]+)<\/a>/,
      );
      expect(restart?.[1]?.replace(/&#038;|&amp;/g, '&')).toBe(payUrl);
      expect(restart?.[2]).toBe('Start a new payment');

      // Paying from there opens a new checkout; the box then offers it and no restart.
      const paid = await shop.wp.json<{ result: { result: string; redirect: string } }>(
        `echo json_encode(wc_harness_pay_order(${placed}, 'cryptocheckout'));`,
      );
      expect(paid.result.result).toBe('success');
      const order = await viewOrder(placed);
      expect(order.checkouts).toHaveLength(2);
      const newCode = order.checkouts[0]?.transaction_code as string;
      expect(newCode).not.toBe(code);
      expect(paid.result.redirect).toBe(`${shop.service.url}/pay/${newCode}`);
      const after = await orderReceived(placed);
      expect(after).toContain(`href="${shop.service.url}/pay/${newCode}"`);
      expect(after).not.toContain('cryptocheckout-status__restart');
    });
  });

  describe('orders of other payment methods', () => {
    it('get 404 from the status endpoint without a call to the service, and no status box', async () => {
      const id = await shop.wp.json<number>(`
        $order = new WC_Order(); $order->set_currency('EUR'); $order->set_total('18.00');
        $order->set_payment_method('bacs'); $order->set_payment_method_title('Direct bank transfer');
        echo json_encode($order->save());
      `);
      const response = await fetch(await statusUrl(id));
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        status: 'error',
        error: { code: 'not_found', message: 'This order has no Crypto Checkout payment.' },
      });
      const inside = await shop.wp.json<{ status: number; calls: string[]; html: string }>(`
        $calls = [];
        add_filter('pre_http_request', static function ($pre, $args, $url) use (&$calls) { $calls[] = $url; return $pre; }, 1, 3);
        $request = new WP_REST_Request('GET', '/cryptocheckout/v1/orders/${id}/status');
        $request->set_query_params(['key' => wc_get_order(${id})->get_order_key()]);
        $response = rest_do_request($request);
        $html = wc_harness_render_order_received(${id});
        echo json_encode(['status' => $response->get_status(), 'calls' => $calls, 'html' => $html]);
      `);
      expect(inside).toEqual({ status: 404, calls: [], html: '' });
    });

    it('an order whose method the Store API reset still answers, found by its stored checkout', async () => {
      const placed = (await placeOrder('12.50', 1)).order_id;
      const reset = await shop.wp.json(
        `echo json_encode(wc_harness_store_api_cart_updated(${placed}, 'bacs'));`,
      );
      expect(reset).toMatchObject({ updated: true, payment_method: 'bacs' });
      const response = await fetch(await statusUrl(placed));
      expect(response.status).toBe(200);
      expect((await response.json()).data).toMatchObject({ state: 'awaiting_payment' });
      expect(await orderReceived(placed)).toContain('data-cryptocheckout-status');
    });
  });

  describe('the order screen', () => {
    it('lists the transactions with labels, the payment page and "Check payment now", on the HPOS and legacy screens', async () => {
      const placed = (await placeOrder('30.00', 1)).order_id;
      const code = await codeOf(placed);
      await shop.service.pay(code, 'partial');
      await runScheduledPoll();
      // Each screen in its own request: meta boxes, once added, stay for the request.
      const screens = await shop.wp.json<{ screens: string[]; registered: string[] }>(`
        require_once ABSPATH . 'wp-admin/includes/admin.php';
        $order = wc_get_order(${placed});
        foreach (['shop_order', 'post', 'woocommerce_page_wc-orders'] as $screen) { do_action('add_meta_boxes', $screen, $order); }
        $registered = [];
        foreach ($GLOBALS['wp_meta_boxes'] as $screen => $contexts) { if (isset($contexts['normal']['default']['cryptocheckout-order-panel'])) { $registered[] = $screen; } }
        echo json_encode(['screens' => \\CryptoCheckout\\WooCommerce\\Admin\\OrderPanel::screens(), 'registered' => $registered]);
      `);
      expect(screens).toEqual({
        screens: ['woocommerce_page_wc-orders', 'shop_order'],
        registered: ['shop_order', 'woocommerce_page_wc-orders'],
      });
      const other = await shop.wp.json<string>(`
        wp_set_current_user(1);
        $other = new WC_Order(); $other->set_currency('EUR'); $other->set_total('5.00'); $other->set_payment_method('bacs'); $other->save();
        echo json_encode(wc_harness_render_order_edit($other->get_id()));
      `);
      expect(other).toContain('meta-box-sortables');
      expect(other).not.toContain('cryptocheckout-order-panel');
      const html = await shop.wp.json<string>(
        `wp_set_current_user(1); echo json_encode(wc_harness_render_order_edit(${placed}));`,
      );
      expect(html).toContain('id="cryptocheckout-order-panel"');
      const row = html.match(new RegExp(`<tr data-transaction="${code}">(.*?)</tr>`))?.[1] ?? '';
      expect(row).toContain(`<code>${code}</code>`);
      expect(row).toContain(`href="${shop.service.url}/pay/${code}"`);
      expect(row).toContain('<td>Part paid</td>');
      expect(row).toContain('<td>30.00 EUR</td>');
      expect(row).toMatch(/<td>\d+\.\d{2} USD<\/td>/);
      expect(row).toContain('<td>Order on hold for the rest</td>');
      expect(row).not.toMatch(/underpaid|hold_underpaid/);
      expect(html).toMatch(
        /admin-post\.php\?action=cryptocheckout_check_order(&#038;|&amp;|&)order_id=\d+(&#038;|&amp;|&)_wpnonce=[0-9a-f]+/,
      );
      expect(html).toContain('Check payment now');
    });

    it('"Check payment now" applies what the service says and comes back with the outcome; it needs the nonce and the capability', async () => {
      await shop.dropWebhooks(true);
      const placed = (await placeOrder('12.50', 1)).order_id;
      const code = await codeOf(placed);
      await shop.service.pay(code, 'full');
      await shop.dropWebhooks(false);
      expect((await viewOrder(placed)).status).toBe('pending');

      /** Runs the admin-post action as $user with $nonce; reports the redirect or the wp_die. */
      const check = (user: string, nonce: string) =>
        shop.wp.json<{ redirect?: string; died?: string; status?: number }>(`
          ${user}
          $_GET['order_id'] = $_REQUEST['order_id'] = '${placed}';
          $_GET['_wpnonce'] = $_REQUEST['_wpnonce'] = ${nonce};
          add_filter('wp_redirect', static function ($location) { throw new RuntimeException('redirect:' . $location); });
          add_filter('wp_die_handler', static function () { return static function ($message, $title, $args) { throw new RuntimeException('died:' . (is_array($args) ? ($args['response'] ?? 0) : 0) . ':' . (is_string($message) ? $message : '')); }; });
          try {
            do_action('admin_post_cryptocheckout_check_order');
            echo json_encode(['redirect' => 'none']);
          } catch (RuntimeException $e) {
            [$kind, $rest] = explode(':', $e->getMessage(), 2);
            echo json_encode($kind === 'redirect' ? ['redirect' => $rest] : ['died' => $rest]);
          }
        `);

      const forged = await check('wp_set_current_user(1);', "'0123456789'");
      expect(forged.died).toMatch(/^403:/);
      const customer = await check(
        `$user = wp_insert_user(['user_login' => 'buyer' . wp_rand(), 'user_pass' => wp_generate_password(), 'role' => 'subscriber']); wp_set_current_user($user);`,
        `wp_create_nonce('cryptocheckout_check_order_${placed}')`,
      );
      expect(customer.died).toMatch(/^403:You are not allowed to check the payment of this order\./);
      expect((await viewOrder(placed)).status).toBe('pending');

      const owner = await check(
        'wp_set_current_user(1);',
        `wp_create_nonce('cryptocheckout_check_order_${placed}')`,
      );
      expect(owner.redirect).toMatch(
        new RegExp(
          `/wp-admin/admin\\.php\\?page=wc-orders&action=edit&id=${placed}&cryptocheckout_checked=applied$`,
        ),
      );
      const order = await viewOrder(placed);
      expect(order.status).toBe('processing');
      expect(order.transaction_id).toBe(code);
      expect(shop.wp.log()).toMatch(
        new RegExp(
          `INFO Payment checked from the order screen\\. \\(order ${placed}, result applied, user 1\\)`,
        ),
      );

      const notices = await shop.wp.json<{ applied: string; unknown: string; anonymous: string }>(`
        $show = static function ($value) { $_GET['cryptocheckout_checked'] = $value; ob_start(); \\CryptoCheckout\\WooCommerce\\Admin\\OrderPanel::showOutcome(); return ob_get_clean(); };
        $anonymous = $show('applied');
        wp_set_current_user(1);
        echo json_encode(['applied' => $show('applied'), 'unknown' => $show('<b>x</b>'), 'anonymous' => $anonymous]);
      `);
      expect(notices.applied).toContain('notice-success');
      expect(notices.applied).toContain('the payment was checked and the order updated');
      expect(notices.unknown).toBe('');
      expect(notices.anonymous).toBe('');

      // Checked again: the booked payment is looked at until a poll has seen the order paid, and
      // the order already matches it.
      const again = await check(
        'wp_set_current_user(1);',
        `wp_create_nonce('cryptocheckout_check_order_${placed}')`,
      );
      expect(again.redirect).toMatch(/cryptocheckout_checked=unchanged$/);
      expect(count((await viewOrder(placed)).notes, 'to Processing')).toBe(1);
    });
  });

  describe('throttling of the public endpoints', () => {
    it('answers webhooks over the per-IP limit with 429 and Retry-After in the service envelope, on both routes', async () => {
      await holdKernelTimeInOneWindow();
      // The webhooks earlier tests sent from this IP in the same minute count too: start from zero
      // (the kernel counts them in its ledger's state table).
      await shop.wp.run(
        `global $wpdb; $wpdb->query("DELETE FROM {$wpdb->prefix}cryptocheckout_state WHERE state_key LIKE 'throttle:%'");`,
      );
      await shop.wp.run(`update_option('test_webhook_limit', '3');`);
      try {
        for (let i = 0; i < 3; i += 1) expect((await postWebhook({})).status).toBe(400);
        const refused = await fetch(`${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(refused.status).toBe(429);
        // The kernel's time is held 10 s into the minute: the window ends 50 s later.
        expect(refused.headers.get('retry-after')).toBe('50');
        expect(await refused.json()).toEqual({
          status: 'error',
          error: { code: 'rate_limited', message: 'Too many requests; try again later.' },
        });
        const legacy = await fetch(`${shop.wp.url}/?wc-api=cryptocheckout`, { method: 'POST', body: '{}' });
        expect(legacy.status).toBe(429);
        expect(legacy.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await legacy.json()).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
      } finally {
        await shop.wp.run(`update_option('test_webhook_limit', '0'); delete_option('test_clock_held');`);
      }
      // 0 turns the limit off.
      expect((await postWebhook({})).status).toBe(400);
      await shop.wp.run(`delete_option('test_webhook_limit');`);
    });

    it('answers an order status asked too often from one IP with 429; another order is counted apart', async () => {
      const first = (await placeOrder('12.50', 1)).order_id;
      const second = (await placeOrder('12.50', 1)).order_id;
      await holdKernelTimeInOneWindow();
      await shop.wp.run(`update_option('test_status_limit', '2');`);
      try {
        const url = await statusUrl(first);
        expect((await fetch(url)).status).toBe(200);
        expect((await fetch(url)).status).toBe(200);
        const refused = await fetch(url);
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('50');
        expect(refused.headers.get('cache-control')).toContain('no-store');
        expect(await refused.json()).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
        expect((await fetch(await statusUrl(second))).status).toBe(200);
        // A wrong key is refused before anything is counted or asked.
        expect([401, 403]).toContain((await fetch(await statusUrl(second, 'wc_order_wrong'))).status);
      } finally {
        await shop.wp.run(`delete_option('test_status_limit'); delete_option('test_clock_held');`);
      }
    });
  });
});
