/**
 * A paid order stays paid (issue 27), in real WordPress with the WooCommerce 10.0.2 harness in its
 * compatibility mode (HPOS authoritative, posts kept in sync, as the real shop that showed the
 * defect), PHP 8, one boot with three workers (a webhook, a buyer's page and the test at once).
 *
 * - What WooCommerce itself does: an order object that did not see the payment (read before it, or
 *   migrated on read from an older posts copy) writes the unpaid status back when it is saved, with
 *   the status change's stock hooks and note. The harness reproduces it; the first test pins it on an
 *   order of another payment method, where the plugin does nothing.
 * - What the plugin does: such a save never undoes a booked payment, a merchant's deliberate change
 *   stands, and an order put back to unpaid behind WooCommerce's back is repaired by the kernel.
 * - The buyer never reads "the payment window has closed" while the payment is being booked, a
 *   payment that does not match its order is an error in the log, and the poll keeps its promise.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PLUGIN_DIR } from '../scripts/build.mjs';
import { count, lit, useShop } from './support/shop.js';

const REVERTED = 'Order status changed from Processing to Pending payment.';
const KEPT = 'tried to set the order to';

describe('paid orders stay paid, on PHP 8', () => {
  const shop = useShop({ php: '8', workers: 3 });
  const { placeOrder, viewOrder, codeOf, waitForStatus } = shop;

  /** The order as the authoritative storage holds it now, for a stale posts copy later. */
  const record = (id: number) => shop.wp.json<unknown>(`echo json_encode(wc_harness_order_record(${id}));`);
  /** The posts copy gets `snapshot`, written after the order's last write in the same second. */
  const writeStaleCopy = (id: number, snapshot: unknown) =>
    shop.wp.run(
      `wc_harness_write_stale_post_copy(${id}, json_decode(${lit(JSON.stringify(snapshot))}, true));`,
    );
  const orderKey = (id: number) =>
    shop.wp.json<string>(`echo json_encode(wc_get_order(${id})->get_order_key());`);
  const buyerStatus = async (id: number) => {
    const response = await fetch(
      `${shop.wp.url}/index.php?rest_route=/cryptocheckout/v1/orders/${id}/status&key=${encodeURIComponent(await orderKey(id))}`,
    );
    return (
      (await response.json()) as {
        data: { state: string; message: string; terminal: boolean; checkout_url: string | null };
      }
    ).data;
  };
  const orderReceived = (id: number) =>
    shop.wp.json<string>(`echo json_encode(wc_harness_render_order_received(${id}));`);
  /** A paid crypto order (webhook), and its order as a request that read it before the payment saw it. */
  const paidOrder = async () => {
    const id = (await placeOrder('12.50', 1)).order_id;
    const code = await codeOf(id);
    const before = await record(id);
    await shop.service.pay(code, 'full');
    await waitForStatus(id, 'processing');
    return { id, code, before };
  };

  beforeAll(async () => {
    // Site-specific code the tests drive through options: a booking held up while the test looks,
    // and a service answer that does not match the order.
    writeFileSync(
      join(shop.wp.contentDir, 'mu-plugins', 'test-paid-orders.php'),
      `<?php
add_action('woocommerce_pre_payment_complete', static function () {
    global $wpdb;
    $flag = static function () use ($wpdb) { return $wpdb->get_var("SELECT option_value FROM {$wpdb->options} WHERE option_name = 'test_hold_booking'"); };
    if ($flag() !== 'yes') { return; }
    update_option('test_booking_held', 'yes');
    while ($flag() === 'yes') { usleep(50000); }
});
add_action('woocommerce_payment_complete', static function ($orderId) {
    $plan = json_decode((string) get_option('test_read_during_booking'), true);
    if (!is_array($plan) || (int) $plan['id'] !== (int) $orderId) { return; }
    delete_option('test_read_during_booking');
    // WooCommerce wrote the payment; the posts copy is still the one from before it (its backfill
    // is late), and another request reads the order for the first time.
    wc_harness_write_stale_post_copy((int) $orderId, $plan['record']);
    wc_harness_new_request();
    $read = new WC_Order((int) $orderId);
    update_option('test_read_saw', $read->get_status('edit') . ' ' . $read->get_transaction_id('edit'));
});
add_filter('http_response', static function ($response, $args, $url) {
    $code = (string) get_option('test_mismatch');
    if ($code === '' || strpos((string) $url, '/api/transaction?') === false || strpos((string) $url, $code) === false || !is_array($response)) { return $response; }
    $body = json_decode((string) $response['body'], true);
    $body['data']['fiat_amount'] = 999;
    $response['body'] = json_encode($body);
    return $response;
}, 10, 3);
`,
    );
    await shop.activate("update_option('woocommerce_custom_orders_table_data_sync_enabled', 'yes');");
    await shop.configure(100);
  });

  describe('the harness, as WooCommerce 10.0.2 behaves', () => {
    it("copies an older posts copy written in the paid order's last second over it on the next request's first read; saving that object reverts the order and gives its stock back", async () => {
      const id = await shop.wp.json<number>(`
        $order = new WC_Order(); $order->set_currency('EUR'); $order->set_total('12.50');
        $order->add_harness_item(${shop.productId}, 1); $order->set_created_via('checkout'); $order->set_payment_method('bacs');
        echo json_encode($order->save());
      `);
      const before = await record(id);
      await shop.wp.run(`wc_get_order(${id})->payment_complete('bank-transfer-1');`);
      const paid = await viewOrder(id);
      expect(paid.status).toBe('processing');

      // A posts copy one second older than the order is left alone.
      await shop.wp.run(
        `wc_harness_write_stale_post_copy(${id}, json_decode(${lit(JSON.stringify(before))}, true), 1);`,
      );
      expect((await viewOrder(id)).status).toBe('processing');

      await writeStaleCopy(id, before);
      const read = await shop.wp.json<{ status: string; transaction: string; changes: string[] }>(`
        $order = wc_get_order(${id});
        $stored = new WC_Order(${id});
        echo json_encode(['status' => $stored->get_status(), 'transaction' => $stored->get_transaction_id(), 'changes' => array_keys($order->get_changes())]);
        $order->update_meta_data('_another_plugin', 'seen');
        $order->save();
      `);
      // Migrated at once (no note), the object keeps the change and its status transition.
      expect(read).toEqual({
        status: 'pending',
        transaction: '',
        changes: expect.arrayContaining(['status', 'transaction_id']),
      });
      const reverted = await viewOrder(id);
      expect(reverted.status).toBe('pending');
      expect(reverted.stock).toBe(paid.stock + 1);
      expect(reverted.notes.slice(-2)).toEqual([
        `Stock levels increased: Poster (#${shop.productId}) ${paid.stock}&rarr;${paid.stock + 1}`,
        REVERTED,
      ]);
    });
  });

  describe('a save that did not see the payment', () => {
    it("is repaired where WooCommerce's sync on read copies an older posts copy over the paid order: it stays paid, its stock taken, with one note", async () => {
      const { id, code, before } = await paidOrder();
      const paid = await viewOrder(id);
      await writeStaleCopy(id, before);
      // The next request reads the order, and saves it as any code would.
      await shop.wp.run(
        `$order = wc_get_order(${id}); $order->update_meta_data('_another_plugin', 'seen'); $order->save();`,
      );
      const order = await viewOrder(id);
      expect(order).toMatchObject({ status: 'processing', transaction_id: code, stock: paid.stock });
      expect(order.date_paid).toBe(paid.date_paid);
      expect(count(order.notes, REVERTED)).toBe(0);
      expect(count(order.notes, 'Stock levels increased')).toBe(0);
      expect(count(order.notes, KEPT)).toBe(1);
      expect(shop.wp.log()).toMatch(
        new RegExp(
          `WARNING A save that had not seen the booked payment tried to set the order to "pending"; the payment was kept\\. \\(order ${id}, transaction ${code}\\)`,
        ),
      );
    });

    it('is repaired where the sync on read comes while the payment is being booked (after WooCommerce wrote it, before the plugin recorded it): one change to Processing, one stock change', async () => {
      const id = (await placeOrder('12.50', 1)).order_id;
      const code = await codeOf(id);
      const stock = (await viewOrder(id)).stock;
      await shop.wp.run(
        `update_option('test_read_during_booking', ${lit(JSON.stringify({ id, record: await record(id) }))});`,
      );
      await shop.service.pay(code, 'full');
      // The other request read the order paid. Wait for it through the option alone: a read of the
      // order meanwhile would be a third request syncing the same stale copy.
      await expect
        .poll(() => shop.wp.json<string | false>(`echo json_encode(get_option('test_read_saw'));`), {
          interval: 250,
        })
        .toBe(`processing ${code}`);
      await waitForStatus(id, 'processing');
      const order = await viewOrder(id);
      expect(order).toMatchObject({ status: 'processing', transaction_id: code, stock: stock - 1 });
      expect(order.date_paid).not.toBeNull();
      expect(count(order.notes, 'to Processing')).toBe(1);
      expect(
        count(order.notes, `the payment of transaction ${code} tried to set the order to "Pending payment"`),
      ).toBe(1);
      expect(shop.wp.log()).not.toMatch(new RegExp(`did not complete the payment.*order ${id},`));
    });

    it("keeps the payment when an order object read before the booking is saved with an unpaid status after it (WooCommerce's unpaid-order cancel)", async () => {
      await shop.dropWebhooks(true);
      try {
        const id = (await placeOrder('12.50', 1)).order_id;
        const code = await codeOf(id);
        const stock = (await viewOrder(id)).stock;
        await shop.service.pay(code, 'full');
        const body = await shop.service.settledWebhookBody(code);
        const answer = await shop.wp.json<{ webhook: unknown }>(`
          $stale = wc_get_order(${id});
          // Meanwhile another request books the payment: the webhook.
          $request = new WP_REST_Request('POST', '/cryptocheckout/v1/webhook');
          $request->set_header('content-type', 'application/json');
          $request->set_body(${lit(JSON.stringify(body))});
          $webhook = rest_do_request($request)->get_data();
          // Then the cancel goes on with the copy it read.
          $stale->update_status('cancelled', 'Unpaid order cancelled - time limit reached.');
          echo json_encode(['webhook' => $webhook]);
        `);
        expect(answer.webhook).toEqual({ status: 'success', data: { result: 'applied' } });
        const order = await viewOrder(id);
        expect(order).toMatchObject({ status: 'processing', transaction_id: code, stock: stock - 1 });
        expect(count(order.notes, 'to Cancelled')).toBe(0);
        expect(count(order.notes, 'Stock levels increased')).toBe(0);
        expect(
          count(order.notes, `the payment of transaction ${code} tried to set the order to "Cancelled"`),
        ).toBe(1);
      } finally {
        await shop.dropWebhooks(false);
      }
    });

    it("never blocks a merchant's deliberate change: a cancel or a hold made on the order screen stands, runs included", async () => {
      for (const [status, state] of [
        ['cancelled', 'cancelled'],
        ['on-hold', 'late_payment_review'],
      ] as const) {
        const { id } = await paidOrder();
        const after = await shop.wp.json<{ status: string; state: string; run: string }>(`
          $order = wc_get_order(${id});
          $order->set_transaction_id('');
          $order->set_status('${status}', 'Changed by the shop manager.', true);
          $order->save();
          $kernel = \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get('${id}');
          $run = $kernel->check('${id}')->result;
          echo json_encode(['status' => (new WC_Order(${id}))->get_status(), 'state' => $kernel->orderState('${id}'), 'run' => $run]);
        `);
        expect(after).toEqual({ status, state, run: 'unchanged' });
        expect(count((await viewOrder(id)).notes, KEPT)).toBe(0);
      }
    });

    it("an order put back to unpaid behind WooCommerce's back (a direct database write) is repaired by the buyer's page and by the poll, and never reads closed", async () => {
      const putBack = (id: number) =>
        shop.wp.run(`
          global $wpdb;
          $wpdb->update($wpdb->prefix . 'wc_orders', ['status' => 'wc-pending'], ['id' => ${id}]);
          $wpdb->update($wpdb->posts, ['post_status' => 'wc-pending'], ['ID' => ${id}]);
        `);
      const shown = await paidOrder();
      const stock = (await viewOrder(shown.id)).stock;
      await putBack(shown.id);
      // The page polls: "confirming" until its next check repairs the order.
      const answers: { state: string; terminal: boolean; message: string }[] = [];
      await expect
        .poll(
          async () => {
            answers.push(await buyerStatus(shown.id));
            return answers.at(-1)?.state;
          },
          { interval: 1_000 },
        )
        .toBe('paid');
      for (const answer of answers.slice(0, -1)) {
        expect(answer).toMatchObject({
          state: 'awaiting_payment',
          terminal: false,
          message: 'Payment received. Confirming it with the shop; this page updates by itself.',
        });
      }
      let order = await viewOrder(shown.id);
      expect(order).toMatchObject({ status: 'processing', transaction_id: shown.code, stock });
      expect(count(order.notes, 'was booked, but the order was later saved as unpaid')).toBe(1);

      const polled = await paidOrder();
      await putBack(polled.id);
      // A minute later, the poll's look at the booked payment repairs the order; later polls leave it as it is.
      const pollAMinuteLater = async () => {
        await shop.wp.run(
          `global $wpdb; $wpdb->query($wpdb->prepare("UPDATE {$wpdb->prefix}cryptocheckout_checkouts SET checked_at = checked_at - 120 WHERE transaction_code = %s", ${lit(polled.code)}));`,
        );
        await shop.runScheduledPoll();
        order = await viewOrder(polled.id);
        expect(order.status).toBe('processing');
        expect(count(order.notes, 'was booked, but the order was later saved as unpaid')).toBe(1);
      };
      await pollAMinuteLater();
      await pollAMinuteLater();
    });
  });

  describe('while the payment is being booked', () => {
    it('the buyer reads "confirming", never "the payment window has closed", and is offered no new payment', async () => {
      const id = (await placeOrder('12.50', 1)).order_id;
      const code = await codeOf(id);
      await shop.wp.run(`update_option('test_hold_booking', 'yes'); delete_option('test_booking_held');`);
      try {
        await shop.service.pay(code, 'full');
        // The service's webhook is booking the payment now, holding the order.
        await expect
          .poll(() => shop.wp.json<string | false>(`echo json_encode(get_option('test_booking_held'));`), {
            interval: 200,
          })
          .toBe('yes');
        expect(await buyerStatus(id)).toEqual({
          state: 'awaiting_payment',
          message: 'Payment received. Confirming it with the shop; this page updates by itself.',
          terminal: false,
          checkout_url: null,
        });
        const html = await orderReceived(id);
        expect(html).toContain('Payment received. Confirming it with the shop');
        expect(html).not.toContain('payment window has closed');
        expect(html).not.toContain('cryptocheckout-status__restart');
        expect(html).not.toContain('cryptocheckout-status__pay');
      } finally {
        await shop.wp.run(`update_option('test_hold_booking', 'no');`);
      }
      await waitForStatus(id, 'processing');
      expect(await buyerStatus(id)).toMatchObject({ state: 'paid', terminal: true });
    });
  });

  describe('a status payment_complete() does not take', () => {
    it('books the payment all the same: transaction id and date paid, Processing, one note, and a later poll adds nothing', async () => {
      const id = (await placeOrder('12.50', 1)).order_id;
      const code = await codeOf(id);
      // A draft (block checkout's, or another plugin's status): not among WooCommerce's valid
      // statuses for payment_complete().
      await shop.wp.run(
        `$order = wc_get_order(${id}); $order->set_status('checkout-draft'); $order->save();`,
      );
      await shop.service.pay(code, 'full');
      await waitForStatus(id, 'processing');
      const booked = await viewOrder(id);
      expect(booked.transaction_id).toBe(code);
      expect(booked.date_paid).not.toBeNull();
      await shop.runScheduledPoll();
      await shop.runScheduledPoll();
      const after = await viewOrder(id);
      expect(after.status).toBe('processing');
      expect(count(after.notes, `settled (transaction ${code})`)).toBe(1);
      expect(shop.wp.log()).toMatch(
        new RegExp(`did not complete the payment.*order ${id}, transaction ${code}`),
      );
    });
  });

  describe('the log and the schedule', () => {
    it('logs a payment that does not match its order as an error', async () => {
      await shop.dropWebhooks(true);
      const id = (await placeOrder('12.50', 1)).order_id;
      const code = await codeOf(id);
      await shop.service.pay(code, 'full');
      await shop.wp.run(`update_option('test_mismatch', ${lit(code)});`);
      try {
        await shop.runScheduledPoll();
      } finally {
        await shop.wp.run(`delete_option('test_mismatch');`);
        await shop.dropWebhooks(false);
      }
      expect((await viewOrder(id)).status).toBe('pending');
      expect(shop.wp.log()).toMatch(
        new RegExp(
          `ERROR Crypto Checkout: ignored a transaction whose amount does not match this order\\. \\(order ${id}, transaction ${code}, trigger poll`,
        ),
      );
    });

    it('polls every five minutes, and the README says what each poll looks at', async () => {
      const interval = await shop.wp.json<number>(`
        foreach (wc_harness_as_actions() as $action) {
          if ($action['hook'] === 'cryptocheckout_poll_open_orders' && $action['status'] === 'pending') { echo json_encode($action['interval']); return; }
        }
        echo json_encode(null);
      `);
      expect(interval).toBe(300);
      const readme = readFileSync(join(PLUGIN_DIR, 'README.md'), 'utf8').replace(/\s+/g, ' ');
      for (const promise of [
        "runs the kernel's poll every five minutes",
        'at every poll while it can be paid (at most once a minute)',
        'at the first poll after its expiry (so an expired order is cancelled and its stock freed within one poll interval)',
        'then every ten minutes through the 24-hour late window',
        'a booked payment is looked at once more by a later poll, which repairs an order that a stale save put back to unpaid',
      ]) {
        expect(readme).toContain(promise);
      }
    });
  });
});
