/**
 * The upgrade from 0.1.0 in place, as one scenario for every database the tests run it on (real
 * WordPress on SQLite in upgrade.test.ts, on MariaDB in mariadb.test.ts): the orders of both released
 * layouts (legacy-orders.ts) are on the site, the new plugin's files are in place, and the next
 * requests upgrade it. Each step is an `it` of the calling `describe`, in order.
 */
import type { SandboxService } from '@cryptocheckout/php-testkit';
import { expect, it } from 'vitest';
import type { LegacyOrder, LegacyOrderName, UpgradeSite } from './legacy-orders.js';
import { lit } from './shop.js';

/** Site code for the failure step: the ledger refuses to take in the order named by the option. */
export const FAIL_IMPORT_MU_PLUGIN = `<?php
add_filter('query', static function ($query) {
    global $wpdb;
    if (stripos($query, 'INSERT IGNORE INTO ' . $wpdb->prefix . 'cryptocheckout_checkouts') !== 0) {
        return $query;
    }
    $order = get_option('test_fail_import');
    return $order && strpos($query, "'" . $order . "'") !== false ? 'SELECT * FROM ' . $wpdb->prefix . 'cryptocheckout_test_refused' : $query;
});
`;

/** Orders whose checkouts were still watched when the new files came: imported by the first request. */
const WATCHED: LegacyOrderName[] = [
  'before-pending',
  'before-underpaid',
  'before-cancelled',
  'before-mismatch',
  'kernel-pending',
  'kernel-underpaid',
  'kernel-replaced',
];

interface LedgerCheckout {
  transaction_code: string;
  ordinal: number;
  applied_action: string | null;
  resolution: string | null;
  last_status: string | null;
  received_usd: string | null;
  notified: string | null;
  confirmed_at: number | null;
  watch_until: number;
}

interface LedgerOrder {
  checkouts: LedgerCheckout[];
  recorded_state: string | null;
  state: string;
}

/** What the ledger holds, by order id. */
const ledger = (site: UpgradeSite) =>
  site.json<Record<string, LedgerOrder>>(`
    $kernel = \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get();
    global $wpdb;
    $orders = [];
    foreach ($wpdb->get_col("SELECT DISTINCT order_id FROM {$wpdb->prefix}cryptocheckout_checkouts") as $id) {
        $orders[$id] = [
            'checkouts' => array_map(static function ($checkout) { return $checkout->toArray(); }, array_reverse($kernel->checkouts($id))),
            'recorded_state' => $kernel->ledger()->recordedState($id),
            'state' => $kernel->orderState($id),
        ];
    }
    echo json_encode((object) $orders);
  `);

const upgradeState = (site: UpgradeSite) =>
  site.json<string | false>(`echo json_encode(get_option('cryptocheckout_wc_ledger'));`);

/** Action Scheduler's queue runner, for the import's batches. */
const runActions = (site: UpgradeSite) =>
  site.json<string[]>(`echo json_encode(wc_harness_run_due_actions());`);

const orderView = (site: UpgradeSite, id: number) =>
  site.json<{ status: string; transaction_id: string; notes: string[] }>(`
    $order = wc_get_order(${id});
    echo json_encode(['status' => $order->get_status(), 'transaction_id' => $order->get_transaction_id(), 'notes' => wc_harness_order_notes(${id})]);
  `);

/**
 * The upgrade's steps. `context()` gives the site (the new plugin's files in place, not run yet),
 * the service, and the orders written before.
 */
export function upgradeScenario(
  context: () => { site: UpgradeSite; service: SandboxService; orders: Record<LegacyOrderName, LegacyOrder> },
): void {
  const named = (orders: Record<LegacyOrderName, LegacyOrder>, ids: string[]) =>
    (Object.keys(orders) as LegacyOrderName[]).filter((name) => ids.includes(String(orders[name].id))).sort();

  it('imports the orders still in their watch window on the first request, an order asked for on demand, and the rest in batches', async () => {
    const { site, orders } = context();
    const first = await ledger(site);
    expect(await upgradeState(site)).toBe('importing');
    expect(named(orders, Object.keys(first))).toEqual([...WATCHED].sort());

    // A buyer's page asks for a paid order before its batch: it is imported then.
    const paid = String(orders['before-paid'].id);
    const status = await site.json<{ state: string }>(
      `echo json_encode(\\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get('${paid}')->buyerStatus('${paid}'));`,
    );
    expect(status).toMatchObject({ state: 'paid', terminal: true });

    expect(await runActions(site)).toContain('cryptocheckout_import_legacy_orders');
    expect(await upgradeState(site)).toBe('done');
    expect(named(orders, Object.keys(await ledger(site)))).toEqual(Object.keys(orders).sort());
    // The claim rows of the version on the kernel are gone with it.
    expect(
      await site.json(
        `global $wpdb; echo json_encode((int) $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->options} WHERE option_name LIKE 'cryptocheckout\\\\_claim\\\\_%'"));`,
      ),
    ).toBe(0);
  });

  it('keeps what each order was: open ones watched, paid ones booked, holds with their kind, notices given once', async () => {
    const { site, orders } = context();
    const now = Math.floor(Date.now() / 1000);
    const all = await ledger(site);
    const view = (name: LegacyOrderName) => all[String(orders[name].id)] as LedgerOrder;
    const kept = (name: LegacyOrderName) =>
      view(name).checkouts.map((checkout) => [
        checkout.applied_action,
        checkout.resolution,
        checkout.notified,
      ]);
    expect(kept('before-pending')).toEqual([[null, null, null]]);
    expect(kept('before-paid')).toEqual([['mark_paid', 'booked', null]]);
    expect(kept('before-underpaid')).toEqual([['hold_underpaid', null, null]]);
    expect(kept('before-cancelled')).toEqual([['cancel_expired', null, null]]);
    expect(kept('before-late')).toEqual([['hold_late_payment', 'flagged', null]]);
    expect(kept('before-mismatch')).toEqual([['reject_mismatch', null, null]]);
    expect(kept('kernel-pending')).toEqual([[null, null, null]]);
    expect(kept('kernel-paid')).toEqual([['mark_paid', 'booked', null]]);
    expect(kept('kernel-underpaid')).toEqual([['hold_underpaid', null, 'hold_underpaid|underpaid']]);
    expect(kept('kernel-replaced')).toEqual([
      ['hold_late_payment', 'flagged', 'hold_late_payment|settled_replaced'],
      [null, null, null],
    ]);
    expect(
      view('kernel-replaced').checkouts.map((checkout) => [checkout.transaction_code, checkout.ordinal]),
    ).toEqual([
      [orders['kernel-replaced'].codes[0], 1],
      [orders['kernel-replaced'].codes[1], 2],
    ]);
    const states = Object.fromEntries(
      (Object.keys(orders) as LegacyOrderName[]).map((name) => [
        name,
        [view(name).recorded_state, view(name).state],
      ]),
    );
    expect(states).toEqual({
      'before-pending': [null, 'awaiting_payment'],
      'before-paid': ['paid', 'paid'],
      'before-underpaid': ['underpaid', 'underpaid'],
      'before-cancelled': ['cancelled', 'cancelled'],
      'before-late': ['late_payment_review', 'late_payment_review'],
      'before-mismatch': [null, 'awaiting_payment'],
      'kernel-pending': [null, 'awaiting_payment'],
      'kernel-paid': ['paid', 'paid'],
      'kernel-underpaid': ['underpaid', 'underpaid'],
      'kernel-replaced': ['late_payment_review', 'late_payment_review'],
    });
    // Open and held orders stay watched.
    for (const name of WATCHED) {
      expect(view(name).checkouts.at(-1)?.watch_until, name).toBeGreaterThan(now);
    }
    // A booked payment is looked at once more by the first poll (which repairs an order the earlier
    // version's defect left unpaid), then no more.
    expect(view('before-paid').checkouts[0]?.confirmed_at).toBeNull();
    expect(view('before-underpaid').checkouts[0]?.received_usd).toMatch(/^\d+\.\d+$/);
  });

  it('a second run of the upgrade changes nothing', async () => {
    const { site } = context();
    const before = await ledger(site);
    await site.json(`
      delete_option('cryptocheckout_wc_ledger');
      \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->ledger()->putValue('wc_legacy_import_cursor', '0');
      echo json_encode(true);
    `);
    expect(await upgradeState(site)).toBe('importing');
    await runActions(site);
    expect(await upgradeState(site)).toBe('done');
    expect(await ledger(site)).toEqual(before);
  });

  it('open orders keep being watched: a webhook, the poll and a top-up complete them; paid ones stay paid', async () => {
    const { site, service, orders } = context();
    const deliver = async (name: LegacyOrderName, code: string) => {
      const answer = await site.webhook(await service.settledWebhookBody(code));
      expect(answer, name).toEqual({ status: 200, json: { status: 'success', data: { result: 'applied' } } });
    };
    const [beforePending] = orders['before-pending'].codes as [string];
    await service.pay(beforePending, 'full');
    await deliver('before-pending', beforePending);

    const [beforeUnderpaid] = orders['before-underpaid'].codes as [string];
    await service.pay(beforeUnderpaid, 'full');
    await deliver('before-underpaid', beforeUnderpaid);

    const [, replacing] = orders['kernel-replaced'].codes as [string, string];
    await service.pay(replacing, 'full');
    await deliver('kernel-replaced', replacing);

    // A lost webhook: the poll finds the payment.
    const [kernelPending] = orders['kernel-pending'].codes as [string];
    await service.pay(kernelPending, 'full');
    await site.json(`do_action('cryptocheckout_poll_open_orders'); echo json_encode(true);`);

    for (const [name, code] of [
      ['before-pending', beforePending],
      ['before-underpaid', beforeUnderpaid],
      ['kernel-replaced', replacing],
      ['kernel-pending', kernelPending],
    ] as [LegacyOrderName, string][]) {
      const order = await orderView(site, orders[name].id);
      expect([name, order.status, order.transaction_id]).toEqual([name, 'processing', code]);
      expect(order.notes.filter((note) => note.includes(`(transaction ${code})`)).length, name).toBe(1);
    }
    for (const name of ['before-paid', 'kernel-paid'] as LegacyOrderName[]) {
      expect((await orderView(site, orders[name].id)).status, name).toBe('processing');
    }
    expect((await orderView(site, orders['before-cancelled'].id)).status).toBe('cancelled');
    expect((await orderView(site, orders['before-late'].id)).status).toBe('on-hold');
  });

  it('an order whose records cannot be imported keeps them, is named in the log and a notice, and is imported when the plugin is activated again', async () => {
    const { site, service } = context();
    const id = await site.json<number>(`
      $order = new WC_Order(); $order->set_currency('EUR'); $order->set_total('9.00'); $order->set_payment_method('cryptocheckout'); $order->set_created_via('checkout');
      echo json_encode($order->save());
    `);
    const code = (
      await (
        await fetch(`${service.url}/api/checkout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            fiat_amount: '9.00',
            fiat_currency: 'EUR',
            external_reference: String(id),
            customer: {
              wallet_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
              crypto_currency: 'USDC',
              crypto_currency_network: 'POLYGON',
            },
          }),
        })
      ).json()
    ).data.transaction_code as string;
    const metas = {
      transaction_code: code,
      fiat_amount: '9.00',
      fiat_currency: 'EUR',
      poll_until: '9999999999',
    };
    const oldRecords = await site.json<Record<string, string>>(`
      $order = wc_get_order(${id});
      foreach (json_decode(${lit(JSON.stringify(metas))}, true) as $key => $value) { $order->update_meta_data('_cryptocheckout_' . $key, $value); }
      $order->save();
      update_option('test_fail_import', '${id}');
      // The plugin's files are replaced again: the upgrade runs on the next request.
      delete_option('cryptocheckout_wc_ledger');
      \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->ledger()->putValue('wc_legacy_import_cursor', '0');
      $kept = [];
      foreach (wc_get_order(${id})->get_meta_data() as $meta) { $kept[$meta->key] = $meta->value; }
      echo json_encode($kept);
    `);
    await runActions(site);
    expect(await upgradeState(site)).toBe('failed');
    const after = await site.json<{ kernel: number; metas: Record<string, string>; notice: string }>(`
      $kept = [];
      foreach (wc_get_order(${id})->get_meta_data() as $meta) { $kept[$meta->key] = $meta->value; }
      wp_set_current_user(1);
      ob_start();
      do_action('admin_notices');
      echo json_encode(['kernel' => count(\\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->checkouts('${id}')), 'metas' => $kept, 'notice' => ob_get_clean()]);
    `);
    expect(after.kernel).toBe(0);
    expect(after.metas).toEqual(oldRecords);
    expect(after.notice).toContain(
      'Crypto Checkout could not move the payment records of every order into its own tables.',
    );
    expect(site.log()).toMatch(
      new RegExp(
        `ERROR The order's Crypto Checkout records could not be moved into the ledger; it keeps its earlier records: The database refused "INSERT IGNORE INTO wp_cryptocheckout_checkouts.*\\(order ${id}\\)`,
      ),
    );

    // Fixed, then the plugin is activated again: the import runs again and takes the order in.
    await site.json(`
      delete_option('test_fail_import');
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      deactivate_plugins('cryptocheckout-for-woocommerce/cryptocheckout-for-woocommerce.php');
      echo json_encode(activate_plugin('cryptocheckout-for-woocommerce/cryptocheckout-for-woocommerce.php'));
    `);
    await runActions(site);
    expect(await upgradeState(site)).toBe('done');
    expect(
      await site.json(
        `echo json_encode(count(\\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->checkouts('${id}')));`,
      ),
    ).toBe(1);
  });
}
