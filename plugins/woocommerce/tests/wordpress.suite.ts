/**
 * The plugin in real WordPress 6.5 (SQLite) with the WooCommerce 10.0 harness, against the real
 * reference server in sandbox mode, on the oldest PHP the plugin supports (7.4) and a current PHP 8
 * (support/wordpress.ts says which). One WordPress boot per PHP version: wordpress-php7.4.test.ts
 * and wordpress-php8.test.ts each run this suite on one, so the two run side by side.
 */
import { expectedPriceLine } from '@cryptocheckout/php-testkit';
import { describe, expect, it } from 'vitest';
import { count, lit, useShop, WALLET } from './support/shop.js';
import { PLUGIN_FILE, type WordPressPhp } from './support/wordpress.js';

/** The suite on PHP `php`, as its own test file runs it. */
export function wordpressSuite(php: WordPressPhp): void {
  // The longest scenarios run on PHP 8 only. On 7.4 WordPress runs in php-wasm, where each of them
  // takes 6–22 s, and what they add beyond the entry points 7.4 still runs here (checkout, webhook,
  // race, poll, return page, upgrade, removal) is the kernel's logic, which php-client's suites run
  // on PHP 7.4 too (docs/testing.md "Speed").
  const itOnPhp8 = php === '7.4' ? it.skip : it;
  describe(`WordPress on PHP ${php}`, () => {
    const shop = useShop({ php });
    const {
      clock,
      saveSettings,
      validSettings,
      placeOrder,
      viewOrder,
      codeOf,
      postWebhook,
      runScheduledPoll,
      waitForStatus,
      dropWebhooks,
    } = shop;

    describe('installation', () => {
      it('runs on the PHP version under test', async () => {
        expect(await shop.wp.json<string>('echo json_encode(PHP_VERSION);')).toMatch(
          new RegExp(`^${php.replace('.', '\\.')}\\.`),
        );
      });

      it('refuses to activate without WooCommerce, then activates with it (Requires Plugins)', async () => {
        const result = await shop.wp.json<[string, null, null]>(`
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      $first = activate_plugin(${lit(PLUGIN_FILE)});
      $woocommerce = activate_plugin('woocommerce/woocommerce.php');
      $second = activate_plugin(${lit(PLUGIN_FILE)});
      echo json_encode([is_wp_error($first) ? $first->get_error_code() : 'activated', $woocommerce, is_wp_error($second) ? $second->get_error_message() : $second]);
    `);
        expect(result).toEqual(['plugin_missing_dependencies', null, null]);
        // Every worker of the site serves the plugin's routes from now on.
        await expect.poll(async () => (await postWebhook({})).status, { interval: 100 }).toBe(400);
        for (let i = 0; i < 4; i += 1) expect((await postWebhook({})).status).toBe(400);
      });

      it('declares HPOS and block checkout compatibility, registers the gateway and schedules the poll', async () => {
        const state = await shop.wp.json(`
      use Automattic\\WooCommerce\\Utilities\\FeaturesUtil;
      echo json_encode([
        'hpos' => FeaturesUtil::get_compatible_plugins_for_feature('custom_order_tables')['compatible'],
        'blocks' => FeaturesUtil::get_compatible_plugins_for_feature('cart_checkout_blocks')['compatible'],
        'gateways' => array_keys(WC()->payment_gateways()->payment_gateways()),
        'next_poll' => as_next_scheduled_action('cryptocheckout_poll_open_orders', [], 'cryptocheckout') !== false,
        'textdomain' => is_textdomain_loaded('cryptocheckout-for-woocommerce') || has_action('init', ['CryptoCheckout\\\\WooCommerce\\\\Plugin', 'loadTextDomain']) !== false,
      ]);
    `);
        expect(state).toEqual({
          hpos: [PLUGIN_FILE],
          blocks: [PLUGIN_FILE],
          gateways: ['cryptocheckout'],
          next_poll: true,
          textdomain: true,
        });
      });

      it('is not offered at checkout until it is configured', async () => {
        const available = await shop.wp.json(
          `echo json_encode(array_keys(WC()->payment_gateways()->get_available_payment_gateways()));`,
        );
        expect(available).toEqual([]);
      });
    });

    describe('settings', () => {
      it('refuses an invalid wallet address, naming the field and the fix, and keeps the previous value', async () => {
        const saved = await saveSettings({
          ...validSettings(),
          wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3358',
        });
        expect(saved.errors).toHaveLength(1);
        expect(saved.errors[0]).toMatch(/^Wallet address \(POLYGON\): /);
        expect(saved.errors[0]).toMatch(/checksum/i);
        expect(saved.admin_errors).toContain(saved.errors[0]);
        expect(saved.saved.wallet_address).toBe('');
        expect(saved.saved.service_url).toBe(shop.service.url);
      });

      it('refuses an address of another chain, an asset the network does not settle, and a bad service URL', async () => {
        const saved = await saveSettings({
          ...validSettings(),
          service_url: 'ftp://pay.example.com',
          wallet_network: 'BITCOIN',
          wallet_currency: 'USDC',
        });
        expect(saved.errors).toEqual([
          expect.stringMatching(
            /^Service URL: enter the address of your Crypto Checkout service, starting with https:\/\//,
          ),
          expect.stringMatching(/^Settlement asset: USDC is not settled on BITCOIN; choose one of BTC/),
          expect.stringMatching(
            /^Wallet address \(BITCOIN\): This is an EVM address .* but the network is BITCOIN/,
          ),
        ]);
        expect(saved.saved.service_url).toBe(shop.service.url);
      });

      it('stores a valid configuration, with the address in its checksummed form and the service origin', async () => {
        const saved = await saveSettings({
          ...validSettings(),
          service_url: `${shop.service.url}/api/`,
          wallet_address: WALLET.toLowerCase(),
        });
        expect(saved.errors).toEqual([]);
        expect(saved.saved).toMatchObject({
          enabled: 'yes',
          service_url: shop.service.url,
          wallet_network: 'POLYGON',
          wallet_currency: 'USDC',
          wallet_address: WALLET,
          checkout_display: 'redirect',
          debug: 'yes',
        });
        shop.productId = await shop.wp.json<number>(
          `update_option('woocommerce_currency', 'EUR'); echo json_encode(wc_harness_create_product('Poster', '12.50', 100));`,
        );
      });

      it('renders the settings form with USDC on Polygon as defaults and loads the settings script for shop managers only', async () => {
        const page = await shop.wp.json<{
          html: string;
          anonymous: boolean;
          script: string | null;
          inline: string;
        }>(`
      $_GET['section'] = 'cryptocheckout';
      $gateway = WC()->payment_gateways()->payment_gateways()['cryptocheckout'];
      $fields = $gateway->get_form_fields();
      \\CryptoCheckout\\WooCommerce\\Helper\\Assets::enqueueSettingsScript('woocommerce_page_wc-settings');
      $anonymous = wp_script_is('cryptocheckout-admin-settings', 'enqueued');
      wp_set_current_user(1);
      \\CryptoCheckout\\WooCommerce\\Helper\\Assets::enqueueSettingsScript('woocommerce_page_wc-settings');
      $script = wp_script_is('cryptocheckout-admin-settings', 'enqueued') ? wp_scripts()->registered['cryptocheckout-admin-settings'] : null;
      echo json_encode([
        'html' => $gateway->generate_settings_html($fields, false) . json_encode([$fields['wallet_network']['default'], $fields['wallet_currency']['default']]),
        'anonymous' => $anonymous,
        'script' => $script ? $script->src : null,
        'inline' => $script ? implode('', (array) $script->extra['before']) : '',
      ]);
    `);
        expect(page.html).toContain('["POLYGON","USDC"]');
        expect(page.html).toContain('id="woocommerce_cryptocheckout_wallet_address"');
        expect(page.anonymous).toBe(false);
        expect(page.script).toMatch(/\/cryptocheckout-for-woocommerce\/build\/admin-settings\.js$/);
        expect(page.inline).toContain('"assetsByNetwork":{"POLYGON":["USDC","USDT","POL"]');
      });
    });

    describe('block checkout', () => {
      it('registers the payment method type with its script and settings', async () => {
        const data = await shop.wp.json(`echo json_encode(wc_harness_blocks_checkout_data());`);
        expect(data).toMatchObject({
          registered: ['cryptocheckout'],
          active: ['cryptocheckout'],
          settings: {
            paymentMethodData: {
              cryptocheckout: {
                title: 'Pay with crypto',
                description: 'USDC, USDT, BTC and more.',
                isConfigured: true,
                supports: ['products', 'refunds'],
                checkoutDisplay: 'redirect',
                settlement: { asset: 'USDC', network: 'POLYGON' },
              },
            },
          },
        });
        const script = (data as { scripts: Record<string, { src: string; deps: string[] }> }).scripts[
          'cryptocheckout-blocks'
        ];
        expect(script?.src).toMatch(/\/build\/blocks\.js$/);
        expect(script?.deps).toEqual(
          expect.arrayContaining(['wc-blocks-registry', 'wc-settings', 'wp-element']),
        );
        expect(script?.deps).not.toContain('react-jsx-runtime');
        const { supportedCurrencies } = (
          data as { settings: { paymentMethodData: { cryptocheckout: { supportedCurrencies: string[] } } } }
        ).settings.paymentMethodData.cryptocheckout;
        expect(supportedCurrencies).toEqual(expect.arrayContaining(['EUR', 'USD', 'JPY']));
      });
    });

    describe('order claim', () => {
      it("is a compare-and-swap through the site's database: one caller wins, a live claim holds the order, a released or lapsed one is taken", async () => {
        const result = await shop.wp.json(`
      $ledger = \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->ledger();
      $now = time();
      $first = $ledger->claim('900', 'run', 'a', $now);
      $second = $ledger->claim('900', 'run', 'b', $now);
      $held = $ledger->isClaimed('900', $now);
      $ledger->release(new \\CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\Claim('900', 'not-the-holder', 'run', 'b', $now + 60));
      $stillHeld = $ledger->isClaimed('900', $now);
      $ledger->release($first);
      $free = !$ledger->isClaimed('900', $now);
      $third = $ledger->claim('900', 'run', 'c', $now);
      $lapsed = $ledger->claim('900', 'run', 'd', $now + 61);
      global $wpdb;
      echo json_encode([$first !== null, $second === null, $held, $stillHeld, $free, $third !== null, $lapsed !== null ? $lapsed->tookOver : null,
        (int) $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->prefix}cryptocheckout_orders WHERE order_id = '900'")]);
    `);
        expect(result).toEqual([true, true, true, true, true, true, 'run c', 1]);
      });
    });

    describe('paying an order', () => {
      let orderId = 0;
      let code = '';

      it('creates the checkout for the order and redirects the buyer to the hosted page', async () => {
        const placed = await placeOrder('25.00', 2);
        orderId = placed.order_id;
        expect(Object.keys(placed.notices)).toEqual([]);
        expect(placed.result.result).toBe('success');
        const order = await viewOrder(orderId);
        code = order.checkouts[0]?.transaction_code ?? '';
        expect(placed.result.redirect).toBe(`${shop.service.url}/pay/${code}`);
        expect(order.status).toBe('pending');
        expect(order.checkouts).toEqual([
          expect.objectContaining({
            checkout_url: `${shop.service.url}/pay/${code}`,
            fiat_amount: '25.00',
            fiat_currency: 'EUR',
            wallet_address: WALLET,
            wallet_currency: 'USDC',
            wallet_network: 'POLYGON',
            service_url: shop.service.url,
            last_status: 'pending',
            resolution: null,
          }),
        ]);
        // The transaction id is the payment's, set when the payment is booked.
        expect(order.transaction_id).toBe('');
        expect(order.stock).toBe(100);
        expect(count(order.notes, `transaction ${code} created for 25.00 EUR`)).toBe(1);
        const data = await shop.service.transaction(code);
        expect(data).toMatchObject({
          status: 'pending',
          external_reference: String(orderId),
          fiat_currency: 'EUR',
          wallet_address: WALLET,
        });
      });

      it('reuses the open transaction when the buyer places the order again', async () => {
        const again = await shop.wp.json(
          `echo json_encode(wc_harness_pay_order(${orderId}, 'cryptocheckout'));`,
        );
        expect(again).toMatchObject({
          result: { result: 'success', redirect: `${shop.service.url}/pay/${code}` },
        });
        const order = await viewOrder(orderId);
        expect(order.checkouts.map((checkout) => checkout.transaction_code)).toEqual([code]);
        expect(count(order.notes, 'created for')).toBe(1);
        expect(order.stock).toBe(100);
      });

      it('ignores a forged webhook: an unknown code, and a body claiming a payment the service does not know', async () => {
        const forged = await postWebhook(await shop.service.settledWebhookBody(code, { received_usd: 999 }));
        expect(forged).toEqual({ status: 200, json: { status: 'success', data: { result: 'unchanged' } } });
        const other = await postWebhook(
          await shop.service.settledWebhookBody(code, {
            transaction_code: '00000000-0000-4000-8000-000000000000',
          }),
        );
        expect(other).toEqual({ status: 200, json: { status: 'success', data: { result: 'ignored' } } });
        const order = await viewOrder(orderId);
        expect(order.status).toBe('pending');
        expect(order.notes.filter((note) => /settled|Processing/.test(note))).toEqual([]);
        expect(shop.wp.log()).toMatch(
          /WARNING Webhook for a transaction no order of this shop holds; ignored\. \(transaction 00000000-0000-4000-8000-000000000000/,
        );
      });

      it('refuses a body that is not a settlement webhook with 400, and other methods with 405', async () => {
        const notJson = await postWebhook('not json');
        expect(notJson.status).toBe(400);
        expect(notJson.json).toMatchObject({
          status: 'error',
          error: { code: 'invalid_request', field: 'body' },
        });
        const partial = await postWebhook({ event: 'transaction.settled' });
        expect(partial.status).toBe(400);
        expect(partial.json).toMatchObject({ status: 'error', error: { code: 'invalid_request' } });
        const get = await fetch(`${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/webhook`);
        expect(get.status).toBe(405);
        expect(get.headers.get('allow')).toBe('POST');
        expect(await get.json()).toMatchObject({ status: 'error', error: { code: 'method_not_allowed' } });
      });

      it('completes the order once when the webhook races with copies of itself', async () => {
        await shop.service.pay(code, 'full');
        const body = await shop.service.settledWebhookBody(code);
        const concurrent = await Promise.all([postWebhook(body), postWebhook(body), postWebhook(body)]);
        for (const response of concurrent) expect(response.status).toBe(200);
        await waitForStatus(orderId, 'processing');
        for (let i = 0; i < 3; i += 1) {
          expect((await postWebhook(body)).json).toEqual({
            status: 'success',
            data: { result: 'unchanged' },
          });
        }
        await runScheduledPoll();
        const order = await viewOrder(orderId);
        expect(order.status).toBe('processing');
        expect(count(order.notes, 'Order status changed from Pending payment to Processing')).toBe(1);
        expect(count(order.notes, `settled (transaction ${code})`)).toBe(1);
        // The payment's note carries the rate the checkout locked, once however many runs raced.
        const line = expectedPriceLine(await shop.service.transaction(code));
        expect(order.notes.filter((note) => note.includes('Priced'))).toEqual([
          expect.stringMatching(new RegExp(`settled \\(transaction ${code}\\)\\. `)),
        ]);
        expect(count(order.notes, line)).toBe(1);
        expect(order.transaction_id).toBe(code);
        expect(order.date_paid).not.toBeNull();
        expect(order.checkouts[0]).toMatchObject({
          last_status: 'settled',
          received_usd: String((await shop.service.transaction(code)).amount_in_usd),
          applied_action: 'mark_paid',
          resolution: 'booked',
        });
        expect(order.stock).toBe(98);
        // No claim is left behind.
        expect(
          await shop.wp.json(
            `echo json_encode(\\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->ledger()->isClaimed('${orderId}', time()));`,
          ),
        ).toBe(false);
        // The service's own delivery was answered with 2xx.
        await shop.waitForDeliveryAnswer(code, 200);
      });

      it('shows the paid status on the order-received page and through the status endpoint', async () => {
        const html = await shop.wp.json<string>(
          `echo json_encode(wc_harness_render_order_received(${orderId}));`,
        );
        expect(html).toContain('data-cryptocheckout-status');
        expect(html).toContain('data-state="paid"');
        expect(html).toContain('Payment received. Thank you!');
        expect(html).not.toContain('cryptocheckout-status__pay');
        const key = await shop.wp.json<string>(
          `echo json_encode(wc_get_order(${orderId})->get_order_key());`,
        );
        const status = await fetch(
          `${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/orders/${orderId}/status&key=${encodeURIComponent(key)}`,
        );
        expect(status.headers.get('cache-control')).toContain('no-store');
        expect(await status.json()).toEqual({
          status: 'success',
          data: {
            state: 'paid',
            message: 'Payment received. Thank you!',
            terminal: true,
            checkout_url: null,
          },
        });
        const denied = await fetch(
          `${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/orders/${orderId}/status&key=wc_order_wrong`,
        );
        expect([401, 403]).toContain(denied.status);
      });
    });

    describe('reconciliation without the webhook', () => {
      it('a missed webhook is caught by the scheduled poll', async () => {
        await dropWebhooks(true);
        const placed = await placeOrder('12.50', 1);
        const code = await codeOf(placed.order_id);
        await shop.service.pay(code, 'full');
        expect((await shop.service.transaction(code)).status).toBe('settled');
        expect((await viewOrder(placed.order_id)).status).toBe('pending');
        expect(await runScheduledPoll()).toContain('cryptocheckout_poll_open_orders');
        const order = await viewOrder(placed.order_id);
        expect(order.status).toBe('processing');
        expect(count(order.notes, 'Order status changed from Pending payment to Processing')).toBe(1);
        await dropWebhooks(false);
      });

      itOnPhp8(
        'an underpaid order goes on hold with a note, and completes when the rest arrives',
        async () => {
          const placed = await placeOrder('30.00', 1);
          const code = await codeOf(placed.order_id);
          await shop.service.pay(code, 'partial');
          await runScheduledPoll();
          let order = await viewOrder(placed.order_id);
          expect(order.status).toBe('on-hold');
          expect(order.recorded_state).toBe('underpaid');
          expect(
            order.notes.some((note) =>
              /received [\d.]+ USD of [\d.]+ USD; [\d.]+ USD is still due/.test(note),
            ),
          ).toBe(true);
          // Polling again changes nothing.
          await runScheduledPoll();
          expect(count((await viewOrder(placed.order_id)).notes, 'is still due')).toBe(1);
          await shop.service.pay(code, 'full');
          await waitForStatus(placed.order_id, 'processing');
          order = await viewOrder(placed.order_id);
          expect(order.recorded_state).toBe('paid');
        },
      );

      itOnPhp8(
        'an expired checkout cancels the order and restores its stock; a late payment then puts it on hold',
        async () => {
          const stockBefore = await shop.wp.json<number>(
            `echo json_encode(wc_get_product(${shop.productId})->get_stock_quantity());`,
          );
          const orderId = (await placeOrder('20.00', 3)).order_id;
          const placed = await viewOrder(orderId);
          expect(placed.stock).toBe(stockBefore);
          const code = placed.checkouts[0]?.transaction_code as string;
          clock.advanceMinutes(61);
          expect((await shop.service.transaction(code)).status).toBe('expired');
          await runScheduledPoll();
          let order = await viewOrder(orderId);
          expect(order.status).toBe('cancelled');
          expect(
            order.notes.some((note) => note.includes(`the checkout ${code} expired without payment`)),
          ).toBe(true);
          expect(order.stock).toBe(stockBefore);

          await shop.service.pay(code, 'full');
          expect(await shop.service.transaction(code)).toMatchObject({ status: 'settled', late: true });
          await waitForStatus(orderId, 'on-hold');
          order = await viewOrder(orderId);
          expect(order.recorded_state).toBe('late_payment_review');
          // One note: the hold's note is the owner's notice too.
          expect(count(order.notes, 'after the order was cancelled. Review it')).toBe(1);
          expect(count(order.notes, 'to Processing')).toBe(0);
          // Never completed by later polls or webhooks either.
          await runScheduledPoll();
          await postWebhook(await shop.service.settledWebhookBody(code));
          expect((await viewOrder(orderId)).status).toBe('on-hold');
        },
      );
    });

    describe('orders are found by the transaction codes they hold', () => {
      itOnPhp8(
        'the Store API resetting the payment method loses nothing: the order is still paid, and its method restored',
        async () => {
          const placed = await placeOrder('14.00', 1);
          const code = await codeOf(placed.order_id);
          const reset = await shop.wp.json(
            `echo json_encode(wc_harness_store_api_cart_updated(${placed.order_id}, 'cod'));`,
          );
          expect(reset).toEqual({
            updated: true,
            payment_method: 'cod',
            payment_method_title: 'Pay with crypto',
          });
          // The order-received page still shows the payment (WooCommerce fires woocommerce_thankyou_cod there now).
          const html = await shop.wp.json<string>(
            `echo json_encode(wc_harness_render_order_received(${placed.order_id}));`,
          );
          expect(html).toContain('data-state="awaiting_payment"');

          await shop.service.pay(code, 'full');
          await waitForStatus(placed.order_id, 'processing');
          const order = await viewOrder(placed.order_id);
          expect(order).toMatchObject({
            payment_method: 'cryptocheckout',
            payment_method_title: 'Pay with crypto',
            transaction_id: code,
          });
          expect(
            count(
              order.notes,
              'changed to "cod" after the checkout was created) is set back to Crypto Checkout',
            ),
          ).toBe(1);
          expect(count(order.notes, `settled (transaction ${code})`)).toBe(1);
          await shop.waitForDeliveryAnswer(code, 200);
        },
      );

      itOnPhp8('the scheduled poll finds such an order too when its webhook is lost', async () => {
        await dropWebhooks(true);
        const placed = await placeOrder('9.00', 1);
        const code = await codeOf(placed.order_id);
        await shop.wp.json(`echo json_encode(wc_harness_store_api_cart_updated(${placed.order_id}, 'cod'));`);
        await shop.service.pay(code, 'full');
        await runScheduledPoll();
        expect(await viewOrder(placed.order_id)).toMatchObject({
          status: 'processing',
          payment_method: 'cryptocheckout',
          transaction_id: code,
        });
        await dropWebhooks(false);
      });

      itOnPhp8(
        'a replaced transaction paid for the old amount is recorded and put before the owner, never lost',
        async () => {
          const orderId = (await placeOrder('20.00', 1)).order_id;
          const first = await codeOf(orderId);
          // The owner changes the total; the buyer then pays from the "pay for order" page.
          await shop.wp.run(`$order = wc_get_order(${orderId}); $order->set_total('24.00'); $order->save();`);
          const again = await shop.wp.json<{ result: { redirect: string } }>(
            `echo json_encode(wc_harness_pay_order(${orderId}, 'cryptocheckout'));`,
          );
          let order = await viewOrder(orderId);
          const second = order.checkouts[0]?.transaction_code as string;
          expect(second).not.toBe(first);
          expect(again.result.redirect).toBe(`${shop.service.url}/pay/${second}`);
          expect(
            order.checkouts.map((checkout) => [checkout.transaction_code, checkout.fiat_amount]),
          ).toEqual([
            [second, '24.00'],
            [first, '20.00'],
          ]);
          expect(count(order.notes, `Transaction ${first} (20.00 EUR) stays payable until it expires`)).toBe(
            1,
          );

          // The first transaction is still open at the service, and the buyer pays it.
          await shop.service.pay(first, 'full');
          await waitForStatus(orderId, 'on-hold');
          order = await viewOrder(orderId);
          expect(order.recorded_state).toBe('late_payment_review');
          expect(order.transaction_id).toBe('');
          expect(count(order.notes, `transaction ${first} settled`)).toBe(1);
          expect(count(order.notes, `now asks 24.00 EUR (transaction ${second})`)).toBe(1);
          expect(order.checkouts.find((checkout) => checkout.transaction_code === first)).toMatchObject({
            last_status: 'settled',
            applied_action: 'hold_late_payment',
            resolution: 'flagged',
          });
          // Neither later polls nor the webhook again change it or note it twice.
          await runScheduledPoll();
          await postWebhook(await shop.service.settledWebhookBody(first));
          order = await viewOrder(orderId);
          expect(order.status).toBe('on-hold');
          expect(count(order.notes, 'was changed since')).toBe(1);
          const html = await shop.wp.json<string>(
            `echo json_encode(wc_harness_render_order_received(${orderId}));`,
          );
          expect(html).toContain('data-state="late_payment_review"');

          // The buyer then pays the current transaction as well: that pays the order; the first payment stays flagged.
          await shop.service.pay(second, 'full');
          await waitForStatus(orderId, 'processing');
          order = await viewOrder(orderId);
          expect(order.transaction_id).toBe(second);
          expect(count(order.notes, `(transaction ${second}), the order's current amount in full`)).toBe(1);
          expect(order.checkouts.find((checkout) => checkout.transaction_code === first)?.resolution).toBe(
            'flagged',
          );
        },
      );

      it('an order of the version before the kernel (one code in the old metas) is imported by the upgrade, found and reconciled', async () => {
        /** An order as version 0.1.0 left it: its one checkout in separate metas, the code as transaction id. */
        const legacyOrder = async (amount: string, webhookUrl: string) => {
          const id = await shop.wp.json<number>(
            `$order = new WC_Order(); $order->set_currency('EUR'); $order->set_total(${lit(amount)}); $order->set_payment_method(WC()->payment_gateways()->payment_gateways()['cryptocheckout']); echo json_encode($order->save());`,
          );
          const response = await fetch(`${shop.service.url}/api/checkout`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              fiat_amount: amount,
              fiat_currency: 'EUR',
              external_reference: String(id),
              webhook_url: webhookUrl,
              customer: {
                wallet_address: WALLET,
                crypto_currency: 'USDC',
                crypto_currency_network: 'POLYGON',
              },
            }),
          });
          const created = ((await response.json()) as { data: Record<string, string> }).data;
          const expires = Math.floor(Date.parse(String(created.expires_at)) / 1000);
          const metas: Record<string, string> = {
            transaction_code: String(created.transaction_code),
            checkout_url: String(created.checkout_url),
            amount_in_usd: String(created.amount_in_usd),
            fiat_amount: amount,
            fiat_currency: 'EUR',
            wallet_address: WALLET,
            wallet_currency: 'USDC',
            wallet_network: 'POLYGON',
            service_url: shop.service.url,
            expires_at: String(expires),
            poll_until: String(expires + 25 * 3600),
          };
          await shop.wp.run(`
          $order = wc_get_order(${id});
          foreach (json_decode(${lit(JSON.stringify(metas))}, true) as $key => $value) { $order->update_meta_data('_cryptocheckout_' . $key, $value); }
          $order->set_transaction_id(${lit(String(created.transaction_code))});
          $order->save();
        `);
          return { id, code: String(created.transaction_code) };
        };
        const byWebhook = await legacyOrder(
          '11.00',
          `${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/webhook`,
        );
        const byPoll = await legacyOrder('13.00', 'http://127.0.0.1:9/lost');
        // The plugin is upgraded over them: the next request imports them into the ledger.
        await shop.wp.run(`delete_option('cryptocheckout_wc_ledger');`);
        expect((await viewOrder(byWebhook.id)).checkouts).toEqual([
          expect.objectContaining({
            transaction_code: byWebhook.code,
            fiat_amount: '11.00',
            service_url: shop.service.url,
          }),
        ]);

        await shop.service.pay(byWebhook.code, 'full');
        await waitForStatus(byWebhook.id, 'processing');
        await shop.service.pay(byPoll.code, 'full');
        await runScheduledPoll();
        for (const { id, code } of [byWebhook, byPoll]) {
          const order = await viewOrder(id);
          expect(order.status).toBe('processing');
          expect(order.transaction_id).toBe(code);
          expect(order.date_paid).not.toBeNull();
          expect(count(order.notes, `settled (transaction ${code})`)).toBe(1);
        }
      });
    });

    describe('service trouble', () => {
      it('keeps the order pending and tells the buyer and the merchant when the service is down', async () => {
        await saveSettings({ ...validSettings(), service_url: 'http://127.0.0.1:9' });
        const placed = await placeOrder('10.00', 1);
        expect(placed.result).toEqual({ result: 'failure' });
        expect(placed.notices.error?.[0]?.notice).toMatch(
          /payment service is not reachable right now\. Your order is saved/,
        );
        const order = await viewOrder(placed.order_id);
        expect(order.status).toBe('pending');
        expect(order.checkouts).toEqual([]);
        expect(shop.wp.log()).toMatch(
          new RegExp(`ERROR Order ${placed.order_id}: the checkout could not be created: .*NetworkException`),
        );
        await saveSettings(validSettings());
      });

      it("shows the buyer a plain notice and logs the service's refusal with its field", async () => {
        // A webhook URL the service refuses, from a site's filter gone wrong (settings the service
        // would refuse never get this far: they are checked on every write, and the method is not
        // offered with them, see settings.test.ts).
        const placed = await shop.wp.json<{
          order_id: number;
          result: unknown;
          notices: Record<string, { notice: string }[]>;
        }>(`
        add_filter('cryptocheckout_wc_webhook_url', static function () { return 'not-a-url'; }, 99);
        echo json_encode(wc_harness_checkout([${shop.productId} => 1], '10.00', 'EUR', 'cryptocheckout'));
      `);
        expect(placed.result).toEqual({ result: 'failure' });
        expect(placed.notices.error?.[0]?.notice).toBe(
          'Crypto payment is not available for this order right now. Please choose another payment method or contact the shop.',
        );
        expect(shop.wp.log()).toMatch(
          new RegExp(
            `ERROR Order ${placed.order_id}: the checkout could not be created: invalid_request .*\\[field webhook_url\\]`,
          ),
        );
        const order = await viewOrder(placed.order_id);
        expect(order.status).toBe('pending');
        expect(order.notes.some((note) => note.includes('The order is still pending.'))).toBe(true);
        await saveSettings(validSettings());
      });

      it('is not offered for a currency the service does not support', async () => {
        await shop.wp.run(`update_option('woocommerce_currency', 'XTS');`);
        const available = await shop.wp.json(
          `echo json_encode(array_keys(WC()->payment_gateways()->get_available_payment_gateways()));`,
        );
        expect(available).toEqual([]);
        await shop.wp.run(`update_option('woocommerce_currency', 'EUR');`);
      });
    });

    describe('payment window display', () => {
      it('sends the buyer to the order-received page, which opens the hosted page in a window and polls', async () => {
        await saveSettings({ ...validSettings(), checkout_display: 'modal' });
        const placed = await placeOrder('15.00', 1);
        expect(placed.result.redirect).toMatch(/order-received=\d+&key=wc_order_[^&]+&cryptocheckout-pay=1$/);
        const html = await shop.wp.json<string>(
          `$_GET['cryptocheckout-pay'] = '1'; $html = wc_harness_render_order_received(${placed.order_id}); echo json_encode($html . (wp_script_is('cryptocheckout-thankyou', 'enqueued') ? '[enqueued]' : ''));`,
        );
        expect(html).toContain('data-state="awaiting_payment"');
        expect(html).toContain('[enqueued]');
        const config = JSON.parse(
          (html.match(/data-config="([^"]*)"/)?.[1] ?? '').replace(/&quot;/g, '"').replace(/&amp;/g, '&'),
        );
        expect(config).toMatchObject({
          openModal: true,
          status: { state: 'awaiting_payment', terminal: false },
        });
        expect(config.status.checkout_url).toMatch(new RegExp(`^${shop.service.url}/pay/`));
        expect(config.statusUrl).toContain(`/cryptocheckout/v1/orders/${placed.order_id}/status`);
        const status = await fetch(config.statusUrl);
        expect(await status.json()).toMatchObject({
          status: 'success',
          data: { state: 'awaiting_payment', terminal: false },
        });
        await saveSettings(validSettings());
      });
    });

    describe('legacy wc-api route', () => {
      it('routes ?wc-api=cryptocheckout to the same webhook handler', async () => {
        const response = await fetch(`${shop.wp.url}/?wc-api=cryptocheckout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ status: 'error', error: { code: 'invalid_request' } });
      });
    });

    describe('the scheduled poll', () => {
      it("selects the due checkouts as PollPolicy::select does, in the ledger's query on the site's database, and lets resolved ones go", async () => {
        const result = await shop.wp.json<{
          query: string[][];
          reference: string[][];
          batch: string[][];
          after: string[][];
        }>(`
      use CryptoCheckout\\WooCommerce\\Helper\\Kernel;
      use CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\PollPolicy;
      use CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\StoredCheckout;
      $ledger = Kernel::get()->ledger();
      // Far enough ahead that no other order of this site is still watched.
      $now = time() + 40 * DAY_IN_SECONDS;
      $entries = [];
      $orders = [];
      $add = static function (string $name, array $checkouts) use ($ledger, &$entries, &$orders): void {
        $order = new WC_Order();
        $order->set_currency('EUR');
        $order->set_total('1.00');
        $id = (string) $order->save();
        $orders[$name] = $id;
        foreach ($checkouts as $i => $fields) {
          $checkout = StoredCheckout::fromArray($fields + ['transaction_code' => 'poll-' . $name . '-' . $i, 'service_url' => 'http://127.0.0.1:9', 'fiat_amount' => '1.00', 'fiat_currency' => 'EUR']);
          $ledger->add($id, $checkout);
          $entries[] = [$id, $checkout];
        }
      };
      $open = $now + 1800;
      $add('never-old', [['created_at' => $now - 900, 'expires_at' => $open]]);
      $add('never-new', [['created_at' => $now - 60, 'expires_at' => $open]]);
      $add('open-checked-long-ago', [['created_at' => $now - 1000, 'expires_at' => $open, 'checked_at' => $now - 300]]);
      $add('open-checked-just-now', [['created_at' => $now - 1000, 'expires_at' => $open, 'checked_at' => $now - 20]]);
      $add('late-checked-5-min-ago', [['created_at' => $now - 7200, 'expires_at' => $now - 3600, 'checked_at' => $now - 300]]);
      $add('late-checked-11-min-ago', [['created_at' => $now - 7200, 'expires_at' => $now - 3600, 'checked_at' => $now - 660]]);
      $add('expired-while-checked', [['created_at' => $now - 3600, 'expires_at' => $now - 30, 'checked_at' => $now - 120]]);
      $add('past-watch', [['created_at' => $now - 3 * DAY_IN_SECONDS, 'expires_at' => $now - 3 * DAY_IN_SECONDS + 3600, 'checked_at' => $now - 7200]]);
      $add('booked-seen', [['created_at' => $now - 900, 'expires_at' => $open, 'checked_at' => $now - 600, 'resolution' => 'booked', 'confirmed_at' => $now - 600]]);
      // Booked and never checked (imported from 0.1.0): looked at once.
      $add('booked-unchecked', [['created_at' => $now - 500, 'expires_at' => $open, 'resolution' => 'booked']]);
      $add('two-both-due', [
        ['created_at' => $now - 5000, 'expires_at' => $now - 1400, 'checked_at' => $now - 1200],
        ['created_at' => $now - 2000, 'expires_at' => $open, 'checked_at' => $now - 100],
      ]);
      $add('two-one-due', [
        ['created_at' => $now - 5000, 'expires_at' => $now - 1400, 'checked_at' => $now - 400],
        ['created_at' => $now - 2000, 'expires_at' => $open, 'checked_at' => $now - 500],
      ]);
      $names = array_flip($orders);
      $named = static function (array $pairs) use ($names): array {
        return array_map(static function (array $pair) use ($names): array { return [$names[$pair[0]], $pair[1]]; }, $pairs);
      };
      $policy = new PollPolicy();
      $result = [
        'query' => $named($ledger->due($policy, $now)),
        'reference' => $named($policy->select($entries, $now)),
        'batch' => $named($ledger->due(new PollPolicy(3), $now)),
      ];
      // Resolved checkouts leave the poll.
      foreach ($entries as [$id, $checkout]) {
        $checkout->resolution = StoredCheckout::RESOLUTION_FLAGGED;
        $ledger->record($id, $checkout);
      }
      $result['after'] = $named($ledger->due($policy, $now));
      echo json_encode($result);
    `);
        expect(result.query).toEqual(result.reference);
        expect(result.query.map(([order]) => order)).toEqual([
          'never-new',
          'booked-unchecked',
          'never-old',
          'two-both-due',
          'late-checked-11-min-ago',
          'two-one-due',
          'open-checked-long-ago',
          'expired-while-checked',
          'two-both-due',
        ]);
        expect(result.batch).toEqual(result.query.slice(0, 3));
        expect(result.after).toEqual([]);
      });

      itOnPhp8('reaches a new order behind 60 stale watched ones', async () => {
        await dropWebhooks(true);
        const stale = await shop.wp.json<number[]>(`
        $ids = [];
        for ($i = 0; $i < 60; $i++) { $ids[] = wc_harness_checkout([], '5.00', 'EUR', 'cryptocheckout')['order_id']; }
        echo json_encode($ids);
      `);
        expect(stale).toHaveLength(60);
        // Each stale order is looked at once; then none is due again within the minute.
        await runScheduledPoll();
        await runScheduledPoll();
        const unchecked = await shop.wp.json<number>(`
        $kernel = \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get();
        echo json_encode(count(array_filter(json_decode(${lit(JSON.stringify(stale))}), static function ($id) use ($kernel) { return $kernel->checkouts((string) $id)[0]->checkedAt === null; })));
      `);
        expect(unchecked).toBe(0);

        const placed = await placeOrder('7.00', 1);
        const code = await codeOf(placed.order_id);
        await shop.service.pay(code, 'full');
        await runScheduledPoll();
        expect((await viewOrder(placed.order_id)).status).toBe('processing');
        await dropWebhooks(false);
      });
    });

    describe('removal', () => {
      it('deactivation stops the scheduled poll; uninstalling removes the settings but keeps the orders', async () => {
        const result = await shop.wp.json(`
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      deactivate_plugins(${lit(PLUGIN_FILE)});
      $scheduled = as_next_scheduled_action('cryptocheckout_poll_open_orders', [], 'cryptocheckout');
      define('WP_UNINSTALL_PLUGIN', ${lit(PLUGIN_FILE)});
      include WP_PLUGIN_DIR . '/cryptocheckout-for-woocommerce/uninstall.php';
      echo json_encode([
        'scheduled' => $scheduled,
        'settings' => get_option('woocommerce_cryptocheckout_settings', 'deleted'),
        'orders' => count(wc_get_orders(['payment_method' => 'cryptocheckout', 'limit' => -1, 'return' => 'ids'])) > 0,
      ]);
    `);
        expect(result).toEqual({ scheduled: false, settings: 'deleted', orders: true });
      });
    });
  });
}
