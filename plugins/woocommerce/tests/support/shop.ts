/**
 * A shop for the WordPress suites: real WordPress with the WooCommerce harness and this plugin,
 * the reference server in sandbox mode on a clock the test moves, and the buyer's and owner's
 * actions as small helpers. `useShop()` boots both in the calling `describe`'s beforeAll.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_DEADLINE_MS, type SandboxService, startSandboxService } from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, expect } from 'vitest';
import { bootWordPress, PLUGIN_FILE, type WordPressPhp, type WordPressSite } from './wordpress.js';

export const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

/** PHP string literal. */
export const lit = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** How many notes contain the text. */
export const count = (notes: string[], text: string) => notes.filter((note) => note.includes(text)).length;

/** A checkout as the kernel's ledger keeps it (StoredCheckout::toArray()). */
export interface CheckoutView {
  transaction_code: string;
  checkout_url: string;
  service_url: string;
  fiat_amount: string;
  fiat_currency: string;
  wallet_address: string;
  wallet_currency: string;
  wallet_network: string;
  created_at: number;
  expires_at: number | null;
  watch_until: number;
  checked_at: number | null;
  last_status: string | null;
  received_usd: string | null;
  applied_action: string | null;
  resolution: string | null;
  notified: string | null;
  confirmed_at: number | null;
}

export interface OrderView {
  status: string;
  payment_method: string;
  payment_method_title: string;
  /** Newest first, from the kernel's ledger. */
  checkouts: CheckoutView[];
  /** The state the kernel last moved the order to (the ledger's record), or null. */
  recorded_state: string | null;
  notes: string[];
  transaction_id: string;
  date_paid: number | null;
  stock: number;
}

export interface PlacedOrder {
  order_id: number;
  result: { result: string; redirect?: string };
  notices: Record<string, { notice: string }[]>;
}

export interface Shop {
  wp: WordPressSite;
  service: SandboxService;
  clock: { now(): Date; advanceMinutes(minutes: number): void };
  /** The product placeOrder() buys; set by the test that creates it. */
  productId: number;
  validSettings(): Record<string, string>;
  /** Saves the settings form as WooCommerce's settings page does (POST + process_admin_options). */
  saveSettings(fields: Record<string, string | undefined>): Promise<{
    errors: string[];
    admin_errors: string[];
    /** WooCommerce's settings messages (WC_Admin_Settings::add_message()), shown as notices. */
    admin_messages: string[];
    saved: Record<string, string>;
  }>;
  /**
   * Activates WooCommerce and the plugin (after `before`: PHP run first in the same request) and
   * waits until every worker of the site serves the plugin's routes: the webhook answers `{}` with
   * 400 several times in a row.
   */
  activate(before?: string): Promise<void>;
  /** Configures the gateway, EUR and a product with stock; returns the product id. */
  configure(stock?: number): Promise<number>;
  /** A buyer checkout of `qty` × the product, with the order total given. */
  placeOrder(total?: string, qty?: number, productId?: number): Promise<PlacedOrder>;
  viewOrder(id: number): Promise<OrderView>;
  /** The order's newest checkout's transaction code. */
  codeOf(id: number): Promise<string>;
  postWebhook(body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Plays Action Scheduler's queue runner far enough ahead that the recurring poll is due. */
  runScheduledPoll(): Promise<string[]>;
  waitForStatus(id: number, status: string): Promise<void>;
  /** Points the service's webhooks at a dead address, as when the shop is unreachable. */
  dropWebhooks(drop: boolean): Promise<void>;
  /**
   * Waits until the service has recorded a delivery of the transaction's webhook answered with
   * `status`: it records the attempt once the shop's answer is in, which may be after the order changed.
   */
  waitForDeliveryAnswer(code: string, status: number): Promise<void>;
}

/** Boots the shop in the calling describe's beforeAll and disposes of it afterwards. */
export function useShop(options: { php?: WordPressPhp; workers?: number } = {}): Shop {
  const workers = options.workers ?? 2;
  let now = Date.now();
  let pollRound = 0;
  const shop: Shop = {
    wp: undefined as unknown as WordPressSite,
    service: undefined as unknown as SandboxService,
    clock: {
      now: () => new Date(now),
      advanceMinutes: (minutes: number) => {
        now += minutes * 60_000;
      },
    },
    productId: 0,
    validSettings: () => ({
      enabled: '1',
      title: 'Pay with crypto',
      description: 'USDC, USDT, BTC and more.',
      service_url: shop.service.url,
      wallet_network: 'POLYGON',
      wallet_currency: 'USDC',
      wallet_address: WALLET,
      checkout_display: 'redirect',
      debug: '1',
    }),
    async saveSettings(fields) {
      const post = Object.entries(fields)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `'woocommerce_cryptocheckout_${key}' => ${lit(value as string)}`)
        .join(', ');
      return shop.wp.json(`
        $_POST = [${post}];
        $gateway = WC()->payment_gateways()->payment_gateways()['cryptocheckout'];
        $gateway->process_admin_options();
        echo json_encode(['errors' => $gateway->get_errors(), 'admin_errors' => WC_Admin_Settings::get_errors(), 'admin_messages' => WC_Admin_Settings::get_messages(), 'saved' => get_option('woocommerce_cryptocheckout_settings')]);
      `);
    },
    async activate(before = '') {
      const activated = await shop.wp.json(`
        require_once ABSPATH . 'wp-admin/includes/plugin.php';
        ${before}
        echo json_encode([activate_plugin('woocommerce/woocommerce.php'), activate_plugin(${lit(PLUGIN_FILE)})]);
      `);
      expect(activated).toEqual([null, null]);
      const inARow = 3 * workers;
      const deadline = Date.now() + EVENT_DEADLINE_MS;
      let served = 0;
      while (served < inARow && Date.now() < deadline) {
        served = (await shop.postWebhook({})).status === 400 ? served + 1 : 0;
        if (served === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(served).toBe(inARow);
    },
    async configure(stock = 10) {
      const saved = await shop.saveSettings(shop.validSettings());
      expect(saved.errors).toEqual([]);
      shop.productId = await shop.wp.json<number>(
        `update_option('woocommerce_currency', 'EUR'); echo json_encode(wc_harness_create_product('Poster', '12.50', ${stock}));`,
      );
      return shop.productId;
    },
    async placeOrder(total = '25.00', qty = 2, productId = shop.productId) {
      return shop.wp.json<PlacedOrder>(
        `echo json_encode(wc_harness_checkout([${productId} => ${qty}], ${lit(total)}, 'EUR', 'cryptocheckout'));`,
      );
    },
    async viewOrder(id) {
      return shop.wp.json<OrderView>(`
        $order = wc_get_order(${id});
        $kernel = \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get();
        $checkouts = array_map(static function ($checkout) { return $checkout->toArray(); }, $kernel->checkouts('${id}'));
        $paid = $order->get_date_paid();
        $product = wc_get_product(${shop.productId});
        echo json_encode(['status' => $order->get_status(), 'payment_method' => $order->get_payment_method(), 'payment_method_title' => $order->get_payment_method_title(), 'checkouts' => $checkouts, 'recorded_state' => $kernel->ledger()->recordedState('${id}'), 'notes' => wc_harness_order_notes(${id}), 'transaction_id' => $order->get_transaction_id(), 'date_paid' => $paid ? $paid->getTimestamp() : null, 'stock' => $product ? $product->get_stock_quantity() : null]);
      `);
    },
    async codeOf(id) {
      return (await shop.viewOrder(id)).checkouts[0]?.transaction_code ?? '';
    },
    async postWebhook(body) {
      const response = await fetch(`${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    },
    async runScheduledPoll() {
      pollRound += 1;
      return shop.wp.json<string[]>(
        `echo json_encode(wc_harness_run_due_actions(time() + ${pollRound * 100_000}));`,
      );
    },
    async waitForStatus(id, status) {
      await expect.poll(async () => (await shop.viewOrder(id)).status, { interval: 250 }).toBe(status);
    },
    async waitForDeliveryAnswer(code, status) {
      await expect
        .poll(async () =>
          (await shop.service.deliveries(code)).flatMap((delivery) =>
            delivery.attempts.map((attempt) => attempt.http_status),
          ),
        )
        .toContain(status);
    },
    async dropWebhooks(drop) {
      await shop.wp.run(
        drop ? "update_option('test_drop_webhooks', 'yes');" : "delete_option('test_drop_webhooks');",
      );
    },
  };

  beforeAll(async () => {
    shop.service = await startSandboxService({ clock: shop.clock.now });
    shop.wp = await bootWordPress({ workers, php: options.php });
    // A site-specific filter (a merchant behind a proxy would use the same one) lets tests lose webhooks.
    writeFileSync(
      join(shop.wp.contentDir, 'mu-plugins', 'test-webhook-target.php'),
      `<?php\nadd_filter('cryptocheckout_wc_webhook_url', static function ($url) { return get_option('test_drop_webhooks') === 'yes' ? 'http://127.0.0.1:9/lost' : $url; });\n`,
    );
  });

  afterAll(async () => {
    await shop.wp?.dispose();
    await shop.service?.close();
  });

  return shop;
}
