/**
 * The oldest PHP the plugin supports, end to end: WordPress 6.5 on PHP 7.4 with the WooCommerce
 * harness; configure, pay an order through the real reference server, and let its webhook
 * complete the order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '@cryptocheckout/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bootWordPress, PLUGIN_FILE, type WordPressSite } from './support/wordpress.js';

let wp: WordPressSite;
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-wc74-server-'));
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir, mode: 'sandbox', logLevel: 'silent' });
  wp = await bootWordPress({ php: '7.4' });
}, 180_000);

afterAll(async () => {
  await wp?.dispose();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('installs, validates its settings, and completes a paid order on PHP 7.4', async () => {
  const setup = await wp.json<{
    version: string;
    activated: unknown;
    errors: string[];
    saved: Record<string, string>;
  }>(`
    require_once ABSPATH . 'wp-admin/includes/plugin.php';
    activate_plugin('woocommerce/woocommerce.php');
    $activated = activate_plugin('${PLUGIN_FILE}');
    echo json_encode(['version' => PHP_VERSION, 'activated' => $activated]);
  `);
  expect(setup.version).toMatch(/^7\.4\./);
  expect(setup.activated).toBeNull();

  const saved = await wp.json<{ errors: string[]; saved: Record<string, string> }>(`
    update_option('woocommerce_currency', 'USD');
    $_POST = [
      'woocommerce_cryptocheckout_enabled' => '1',
      'woocommerce_cryptocheckout_service_url' => '${server.url}',
      'woocommerce_cryptocheckout_wallet_network' => 'TRON',
      'woocommerce_cryptocheckout_wallet_currency' => 'USDT',
      'woocommerce_cryptocheckout_wallet_address' => 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      'woocommerce_cryptocheckout_checkout_display' => 'redirect',
    ];
    $gateway = WC()->payment_gateways()->payment_gateways()['cryptocheckout'];
    $gateway->process_admin_options();
    echo json_encode(['errors' => $gateway->get_errors(), 'saved' => get_option('woocommerce_cryptocheckout_settings')]);
  `);
  expect(saved.errors).toEqual([]);
  expect(saved.saved).toMatchObject({ wallet_network: 'TRON', wallet_currency: 'USDT', enabled: 'yes' });

  const placed = await wp.json<{ order_id: number; result: { result: string; redirect: string } }>(`
    $product = wc_harness_create_product('Mug', '9.99', 5);
    echo json_encode(wc_harness_checkout([$product => 1], '9.99', 'USD', 'cryptocheckout'));
  `);
  expect(placed.result.result).toBe('success');
  const code = placed.result.redirect.split('/pay/')[1] as string;
  const pay = await fetch(`${server.url}/api/sandbox/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ transaction_code: code, payment_method: 'usdt_tron', size: 'over' }),
  });
  expect(pay.status).toBeLessThan(300);
  await expect
    .poll(async () => wp.json<string>(`echo json_encode(wc_get_order(${placed.order_id})->get_status());`), {
      timeout: 15_000,
      interval: 250,
    })
    .toBe('processing');
});
