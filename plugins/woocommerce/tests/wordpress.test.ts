/**
 * The plugin in real WordPress 6.5 (SQLite) with the WooCommerce 10.0 harness, against the real
 * reference server in sandbox mode, on the oldest PHP the plugin supports (7.4) and a current one
 * (8.3). One WordPress boot per PHP version.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '@cryptocheckout/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootWordPress, PLUGIN_FILE, type WordPressSite } from './support/wordpress.js';

const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

describe.each(['7.4', '8.3'] as const)('WordPress on PHP %s', (php) => {
  let wp: WordPressSite;
  let server: RunningServer;
  let dataDir: string;
  let now = Date.now();
  const clock = {
    now: () => new Date(now),
    advanceMinutes: (minutes: number) => {
      now += minutes * 60_000;
    },
  };

  /** PHP string literal. */
  const lit = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

  interface OrderView {
    status: string;
    meta: Record<string, string>;
    notes: string[];
    transaction_id: string;
    stock: number;
  }

  async function saveSettings(fields: Record<string, string | undefined>) {
    const post = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `'woocommerce_cryptocheckout_${key}' => ${lit(value as string)}`)
      .join(', ');
    return wp.json<{ errors: string[]; admin_errors: string[]; saved: Record<string, string> }>(`
    $_POST = [${post}];
    $gateway = WC()->payment_gateways()->payment_gateways()['cryptocheckout'];
    $gateway->process_admin_options();
    echo json_encode(['errors' => $gateway->get_errors(), 'admin_errors' => WC_Admin_Settings::get_errors(), 'saved' => get_option('woocommerce_cryptocheckout_settings')]);
  `);
  }

  const validSettings = () => ({
    enabled: '1',
    title: 'Pay with crypto',
    description: 'USDC, USDT, BTC and more.',
    service_url: server.url,
    wallet_network: 'POLYGON',
    wallet_currency: 'USDC',
    wallet_address: WALLET,
    checkout_display: 'redirect',
    debug: '1',
  });

  let productId = 0;

  async function placeOrder(total = '25.00', qty = 2) {
    return wp.json<{
      order_id: number;
      result: { result: string; redirect?: string };
      notices: Record<string, { notice: string }[]>;
    }>(
      `echo json_encode(wc_harness_checkout([${productId} => ${qty}], ${lit(total)}, 'EUR', 'cryptocheckout'));`,
    );
  }

  async function viewOrder(id: number): Promise<OrderView> {
    return wp.json<OrderView>(`
    $order = wc_get_order(${id});
    $meta = [];
    foreach ($order->get_meta() as $key => $value) { if (strpos($key, '_cryptocheckout_') === 0) { $meta[substr($key, 16)] = (string) $value; } }
    echo json_encode(['status' => $order->get_status(), 'meta' => $meta, 'notes' => wc_harness_order_notes(${id}), 'transaction_id' => $order->get_transaction_id(), 'stock' => wc_get_product(${productId})->get_stock_quantity()]);
  `);
  }

  async function sandboxPay(code: string, size: 'full' | 'partial' | 'over' = 'full') {
    const response = await fetch(`${server.url}/api/sandbox/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_code: code, payment_method: 'usdc_polygon', size }),
    });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
  }

  async function postWebhook(body: unknown) {
    const response = await fetch(`${wp.url}/index.php?rest_route=/cryptocheckout/v1/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  async function lookup(code: string) {
    const response = await fetch(`${server.url}/api/transaction?transaction_code=${code}`);
    return ((await response.json()) as { data: Record<string, unknown> }).data;
  }

  /** The body the service sends, built from the authoritative lookup. */
  async function settledBody(code: string, overrides: Record<string, unknown> = {}) {
    const data = await lookup(code);
    return {
      event: 'transaction.settled',
      transaction_code: code,
      external_reference: data.external_reference,
      fiat_amount: data.fiat_amount,
      fiat_currency: data.fiat_currency,
      received_usd: data.received_usd,
      wallet_address: data.wallet_address,
      wallet_currency: data.wallet_currency,
      wallet_network: data.wallet_network,
      payout_dispatched: data.payout_dispatched,
      timestamp: Math.floor(now / 1000),
      ...overrides,
    };
  }

  let pollRound = 0;
  /** Plays Action Scheduler's queue runner far enough ahead that the recurring poll is due. */
  async function runScheduledPoll() {
    pollRound += 1;
    return wp.json<string[]>(
      `echo json_encode(wc_harness_run_due_actions(time() + ${pollRound * 100_000}));`,
    );
  }

  async function waitForStatus(id: number, status: string) {
    await expect
      .poll(async () => (await viewOrder(id)).status, { timeout: 15_000, interval: 250 })
      .toBe(status);
  }

  /** Points the service's webhooks at a dead address, as when the shop is unreachable. */
  async function dropWebhooks(drop: boolean) {
    await wp.run(
      drop ? "update_option('test_drop_webhooks', 'yes');" : "delete_option('test_drop_webhooks');",
    );
  }

  const count = (notes: string[], text: string) => notes.filter((note) => note.includes(text)).length;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-wc-server-'));
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      mode: 'sandbox',
      logLevel: 'silent',
      clock: clock.now,
    });
    wp = await bootWordPress({ workers: 2, php });
    // A site-specific filter (a merchant behind a proxy would use the same one) lets tests lose webhooks.
    writeFileSync(
      join(wp.contentDir, 'mu-plugins', 'test-webhook-target.php'),
      `<?php\nadd_filter('cryptocheckout_wc_webhook_url', static function ($url) { return get_option('test_drop_webhooks') === 'yes' ? 'http://127.0.0.1:9/lost' : $url; });\n`,
    );
  }, 180_000);

  afterAll(async () => {
    await wp?.dispose();
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  describe('installation', () => {
    it('runs on the PHP version under test', async () => {
      expect(await wp.json<string>('echo json_encode(PHP_VERSION);')).toMatch(
        new RegExp(`^${php.replace('.', '\\.')}\\.`),
      );
    });

    it('refuses to activate without WooCommerce, then activates with it (Requires Plugins)', async () => {
      const result = await wp.json<[string, null, null]>(`
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      $first = activate_plugin(${lit(PLUGIN_FILE)});
      $woocommerce = activate_plugin('woocommerce/woocommerce.php');
      $second = activate_plugin(${lit(PLUGIN_FILE)});
      echo json_encode([is_wp_error($first) ? $first->get_error_code() : 'activated', $woocommerce, is_wp_error($second) ? $second->get_error_message() : $second]);
    `);
      expect(result).toEqual(['plugin_missing_dependencies', null, null]);
      // Every worker of the site serves the plugin's routes from now on.
      await expect
        .poll(async () => (await postWebhook({})).status, { timeout: 10_000, interval: 100 })
        .toBe(400);
      for (let i = 0; i < 4; i += 1) expect((await postWebhook({})).status).toBe(400);
    });

    it('declares HPOS and block checkout compatibility, registers the gateway and schedules the poll', async () => {
      const state = await wp.json(`
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
      const available = await wp.json(
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
      expect(saved.saved.service_url).toBe(server.url);
    });

    it('refuses an address of another chain, an asset the network does not settle, and a bad service URL', async () => {
      const saved = await saveSettings({
        ...validSettings(),
        service_url: 'ftp://pay.example.com',
        wallet_network: 'BITCOIN',
        wallet_currency: 'USDC',
      });
      expect(saved.errors).toEqual([
        expect.stringMatching(/^Service URL: enter a full http:\/\/ or https:\/\/ address/),
        expect.stringMatching(/^Settlement asset: USDC is not settled on BITCOIN\. Choose one of BTC/),
        expect.stringMatching(
          /^Wallet address \(BITCOIN\): This is an EVM address .* but the network is BITCOIN/,
        ),
      ]);
      expect(saved.saved.service_url).toBe(server.url);
    });

    it('stores a valid configuration, with the address in its checksummed form and the service origin', async () => {
      const saved = await saveSettings({
        ...validSettings(),
        service_url: `${server.url}/api/`,
        wallet_address: WALLET.toLowerCase(),
      });
      expect(saved.errors).toEqual([]);
      expect(saved.saved).toMatchObject({
        enabled: 'yes',
        service_url: server.url,
        wallet_network: 'POLYGON',
        wallet_currency: 'USDC',
        wallet_address: WALLET,
        checkout_display: 'redirect',
        debug: 'yes',
      });
      productId = await wp.json<number>(
        `update_option('woocommerce_currency', 'EUR'); echo json_encode(wc_harness_create_product('Poster', '12.50', 10));`,
      );
    });

    it('renders the settings form with USDC on Polygon as defaults and loads the settings script for shop managers only', async () => {
      const page = await wp.json<{
        html: string;
        anonymous: boolean;
        script: string | null;
        inline: string;
      }>(`
      $_GET['section'] = 'cryptocheckout';
      $gateway = WC()->payment_gateways()->payment_gateways()['cryptocheckout'];
      $fields = $gateway->get_form_fields();
      \\CryptoCheckout\\WooCommerce\\Admin\\SettingsScript::enqueue('woocommerce_page_wc-settings');
      $anonymous = wp_script_is('cryptocheckout-admin-settings', 'enqueued');
      wp_set_current_user(1);
      \\CryptoCheckout\\WooCommerce\\Admin\\SettingsScript::enqueue('woocommerce_page_wc-settings');
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
      const data = await wp.json(`echo json_encode(wc_harness_blocks_checkout_data());`);
      expect(data).toMatchObject({
        registered: ['cryptocheckout'],
        active: ['cryptocheckout'],
        settings: {
          paymentMethodData: {
            cryptocheckout: {
              title: 'Pay with crypto',
              description: 'USDC, USDT, BTC and more.',
              isConfigured: true,
              supports: ['products'],
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

  describe('order lock', () => {
    it('lets one holder in at a time, through the database, and takes over an expired lock', async () => {
      const result = await wp.json(`
      use CryptoCheckout\\WooCommerce\\Helper\\Lock;
      $first = new Lock('test');
      $second = new Lock('test');
      $steps = [$first->acquire(30), $second->acquire(30)];
      $first->release();
      $steps[] = $second->acquire(30);
      $second->release();
      // A holder that crashed: its lock expired a minute ago.
      global $wpdb;
      $wpdb->insert($wpdb->options, ['option_name' => 'cryptocheckout_lock_stale', 'option_value' => (time() - 60) . ':crashed', 'autoload' => 'no']);
      $stale = new Lock('stale');
      $steps[] = $stale->acquire(30);
      $stale->release();
      $steps[] = $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->options} WHERE option_name LIKE 'cryptocheckout_lock_%'");
      echo json_encode($steps);
    `);
      expect(result).toEqual([true, false, true, true, '0']);
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
      code = order.meta.transaction_code ?? '';
      expect(placed.result.redirect).toBe(`${server.url}/pay/${code}`);
      expect(order.status).toBe('pending');
      expect(order.meta).toMatchObject({
        checkout_url: `${server.url}/pay/${code}`,
        fiat_amount: '25.00',
        fiat_currency: 'EUR',
        wallet_address: WALLET,
        wallet_currency: 'USDC',
        wallet_network: 'POLYGON',
        service_url: server.url,
      });
      expect(order.meta.amount_in_usd).toMatch(/^\d+\.\d{1,2}$/);
      expect(order.stock).toBe(8);
      const data = await lookup(code);
      expect(data).toMatchObject({
        status: 'pending',
        external_reference: String(orderId),
        fiat_currency: 'EUR',
        wallet_address: WALLET,
      });
      expect(data.amount_in_usd).toBe(Number(order.meta.amount_in_usd));
    });

    it('reuses the open transaction when the buyer places the order again', async () => {
      const again = await wp.json(`echo json_encode(wc_harness_pay_order(${orderId}, 'cryptocheckout'));`);
      expect(again).toMatchObject({ result: { result: 'success', redirect: `${server.url}/pay/${code}` } });
      const order = await viewOrder(orderId);
      expect(order.meta.transaction_code).toBe(code);
      expect(count(order.notes, 'created for')).toBe(1);
      expect(order.stock).toBe(8);
    });

    it('ignores a forged webhook for the unpaid transaction', async () => {
      const forged = await postWebhook(await settledBody(code, { received_usd: 999 }));
      expect(forged, JSON.stringify(forged)).toMatchObject({ status: 200 });
      const other = await postWebhook(
        await settledBody(code, { transaction_code: '00000000-0000-4000-8000-000000000000' }),
      );
      expect(other).toEqual({ status: 200, json: { received: true, result: 'ignored' } });
      const order = await viewOrder(orderId);
      expect(order.status).toBe('pending');
      expect(order.notes.filter((note) => /settled|Processing/.test(note))).toEqual([]);
    });

    it('refuses a body that is not a settlement webhook with 400', async () => {
      expect((await postWebhook('not json')).status).toBe(400);
      expect((await postWebhook({ event: 'transaction.settled' })).status).toBe(400);
    });

    it('completes the order once when the webhook races with copies of itself', async () => {
      await sandboxPay(code, 'full');
      const body = await settledBody(code);
      const concurrent = await Promise.all([postWebhook(body), postWebhook(body), postWebhook(body)]);
      for (const response of concurrent) expect(response.status).toBe(200);
      await waitForStatus(orderId, 'processing');
      for (let i = 0; i < 3; i += 1) {
        expect((await postWebhook(body)).json).toMatchObject({ received: true, result: 'unchanged' });
      }
      await runScheduledPoll();
      const order = await viewOrder(orderId);
      expect(order.status).toBe('processing');
      expect(count(order.notes, 'Order status changed from Pending payment to Processing')).toBe(1);
      expect(count(order.notes, `settled (transaction ${code})`)).toBe(1);
      expect(order.transaction_id).toBe(code);
      expect(order.meta.received_usd).toBe(order.meta.amount_in_usd);
      expect(order.stock).toBe(8);
      // The service's own delivery was answered with 2xx.
      const deliveries = await (
        await fetch(`${server.url}/api/sandbox/webhooks?transaction_code=${code}`)
      ).text();
      expect(deliveries).toMatch(/"http_status":200/);
    });

    it('shows the paid status on the order-received page and through the status endpoint', async () => {
      const html = await wp.json<string>(`echo json_encode(wc_harness_render_order_received(${orderId}));`);
      expect(html).toContain('data-state="paid"');
      expect(html).toContain('Payment received. Thank you!');
      expect(html).not.toContain('cryptocheckout-status__pay');
      const key = await wp.json<string>(`echo json_encode(wc_get_order(${orderId})->get_order_key());`);
      const status = await fetch(
        `${wp.url}/index.php?rest_route=/cryptocheckout/v1/orders/${orderId}/status&key=${encodeURIComponent(key)}`,
      );
      expect(await status.json()).toEqual({
        state: 'paid',
        message: 'Payment received. Thank you!',
        terminal: true,
        checkout_url: null,
      });
      const denied = await fetch(
        `${wp.url}/index.php?rest_route=/cryptocheckout/v1/orders/${orderId}/status&key=wc_order_wrong`,
      );
      expect([401, 403]).toContain(denied.status);
    });
  });

  describe('reconciliation without the webhook', () => {
    it('a missed webhook is caught by the scheduled poll', async () => {
      await dropWebhooks(true);
      const placed = await placeOrder('12.50', 1);
      const code = (await viewOrder(placed.order_id)).meta.transaction_code as string;
      await sandboxPay(code, 'full');
      expect((await lookup(code)).status).toBe('settled');
      expect((await viewOrder(placed.order_id)).status).toBe('pending');
      expect(await runScheduledPoll()).toContain('cryptocheckout_poll_open_orders');
      const order = await viewOrder(placed.order_id);
      expect(order.status).toBe('processing');
      expect(count(order.notes, 'Order status changed from Pending payment to Processing')).toBe(1);
      await dropWebhooks(false);
    });

    it('an underpaid order goes on hold with a note, and completes when the rest arrives', async () => {
      const placed = await placeOrder('30.00', 1);
      const code = (await viewOrder(placed.order_id)).meta.transaction_code as string;
      await sandboxPay(code, 'partial');
      await runScheduledPoll();
      let order = await viewOrder(placed.order_id);
      expect(order.status).toBe('on-hold');
      expect(order.meta.hold_reason).toBe('underpaid');
      expect(
        order.notes.some((note) => /received [\d.]+ USD of [\d.]+ USD; [\d.]+ USD is still due/.test(note)),
      ).toBe(true);
      // Polling again changes nothing.
      await runScheduledPoll();
      expect(count((await viewOrder(placed.order_id)).notes, 'is still due')).toBe(1);
      await sandboxPay(code, 'full');
      await waitForStatus(placed.order_id, 'processing');
      order = await viewOrder(placed.order_id);
      expect(order.meta.hold_reason).toBeUndefined();
    });

    it('an expired checkout cancels the order and restores its stock; a late payment then puts it on hold', async () => {
      const stockBefore = await wp.json<number>(
        `echo json_encode(wc_get_product(${productId})->get_stock_quantity());`,
      );
      const orderId = (await placeOrder('20.00', 3)).order_id;
      const placed = await viewOrder(orderId);
      expect(placed.stock).toBe(stockBefore - 3);
      const code = placed.meta.transaction_code as string;
      clock.advanceMinutes(61);
      expect((await lookup(code)).status).toBe('expired');
      await runScheduledPoll();
      let order = await viewOrder(orderId);
      expect(order.status).toBe('cancelled');
      expect(order.notes.some((note) => note.includes(`the checkout ${code} expired without payment`))).toBe(
        true,
      );
      expect(order.stock).toBe(stockBefore);

      await sandboxPay(code, 'full');
      expect(await lookup(code)).toMatchObject({ status: 'settled', late: true });
      await waitForStatus(orderId, 'on-hold');
      order = await viewOrder(orderId);
      expect(order.meta.hold_reason).toBe('late_payment');
      expect(order.notes.some((note) => note.includes('after the order was cancelled. Review it'))).toBe(
        true,
      );
      expect(count(order.notes, 'to Processing')).toBe(0);
      // Never completed by later polls or webhooks either.
      await runScheduledPoll();
      await postWebhook(await settledBody(code));
      expect((await viewOrder(orderId)).status).toBe('on-hold');
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
      expect(order.meta.transaction_code).toBeUndefined();
      expect(wp.log()).toMatch(
        new RegExp(`ERROR Order ${placed.order_id}: the checkout could not be created: .*NetworkException`),
      );
      await saveSettings(validSettings());
    });

    it("shows the buyer a plain notice and logs the service's refusal with its field", async () => {
      // A wallet stored behind the settings form's back (the form itself refuses it).
      await wp.run(
        `$s = get_option('woocommerce_cryptocheckout_settings'); $s['wallet_address'] = '0x0000000000000000000000000000000000000001x'; update_option('woocommerce_cryptocheckout_settings', $s);`,
      );
      const placed = await placeOrder('10.00', 1);
      expect(placed.result).toEqual({ result: 'failure' });
      expect(placed.notices.error?.[0]?.notice).toBe(
        'Crypto payment is not available for this order right now. Please choose another payment method or contact the shop.',
      );
      expect(wp.log()).toMatch(
        new RegExp(
          `ERROR Order ${placed.order_id}: the checkout could not be created: invalid_request .*\\[field customer\\.wallet_address\\]`,
        ),
      );
      const order = await viewOrder(placed.order_id);
      expect(order.status).toBe('pending');
      expect(order.notes.some((note) => note.includes('The order is still pending.'))).toBe(true);
      await saveSettings(validSettings());
    });

    it('is not offered for a currency the service does not support', async () => {
      await wp.run(`update_option('woocommerce_currency', 'XTS');`);
      const available = await wp.json(
        `echo json_encode(array_keys(WC()->payment_gateways()->get_available_payment_gateways()));`,
      );
      expect(available).toEqual([]);
      await wp.run(`update_option('woocommerce_currency', 'EUR');`);
    });
  });

  describe('payment window display', () => {
    it('sends the buyer to the order-received page, which opens the hosted page in a window and polls', async () => {
      await saveSettings({ ...validSettings(), checkout_display: 'modal' });
      const placed = await placeOrder('15.00', 1);
      expect(placed.result.redirect).toMatch(/order-received=\d+&key=wc_order_[^&]+&cryptocheckout-pay=1$/);
      const html = await wp.json<string>(
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
      expect(config.status.checkout_url).toMatch(new RegExp(`^${server.url}/pay/`));
      expect(config.statusUrl).toContain(`/cryptocheckout/v1/orders/${placed.order_id}/status`);
      const status = await fetch(config.statusUrl);
      expect(await status.json()).toMatchObject({ state: 'awaiting_payment', terminal: false });
      await saveSettings(validSettings());
    });
  });

  describe('legacy wc-api route', () => {
    it('routes ?wc-api=cryptocheckout to the same webhook handler', async () => {
      const response = await fetch(`${wp.url}/?wc-api=cryptocheckout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ received: false });
    });
  });

  describe('removal', () => {
    it('deactivation stops the scheduled poll; uninstalling removes the settings but keeps the orders', async () => {
      const result = await wp.json(`
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
