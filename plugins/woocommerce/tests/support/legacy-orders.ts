/**
 * Orders as the released versions of the plugin left them, for the upgrade tests: each one's
 * records written exactly as that version's code wrote them through the order CRUD API, its
 * checkouts real ones at the sandbox service. Read from git history:
 *
 * - 0.1.0 before the kernel (d17af44: src/Gateway/CheckoutStarter.php writes the checkout's metas
 *   and the code as transaction id; src/Gateway/OrderSync.php applies a decision: paid deletes
 *   _hold_reason and _poll_until, holds set _hold_reason and _received_usd, a late hold deletes
 *   _poll_until, a mismatch sets _mismatch_noted once);
 * - 0.1.0 on the kernel (2b3e982 to 0398709: src/Order/CheckoutStore.php keeps the terms in
 *   _cryptocheckout_checkouts as StoredCheckout::toArray() JSON, a _check_<code> and an
 *   _applied_<code> per checkout, one _transaction_code row per code and the poll index;
 *   src/Order/WooCommerceOrderPort.php writes _hold_reason and _notified ("code|action|reason");
 *   src/Order/ClaimStore.php the claim rows cryptocheckout_claim_<order id> in wp_options).
 */
import type { SandboxService } from '@cryptocheckout/php-testkit';
import { lit } from './shop.js';

/** A WordPress site the upgrade scenario runs on (real WordPress on SQLite, or on MariaDB). */
export interface UpgradeSite {
  /** Runs PHP after loading WordPress; the code must `echo json_encode(...)` one document. */
  json<T = unknown>(code: string): Promise<T>;
  /** Delivers a transaction.settled body to the shop's webhook; its HTTP status and JSON answer. */
  webhook(body: unknown): Promise<{ status: number; json: unknown }>;
  /** The plugin's log. */
  log(): string;
}

export const LEGACY_WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const LOST_WEBHOOKS = 'http://127.0.0.1:9/lost';

/** The orders the scenario writes: name → [layout, state]. */
export const LEGACY_ORDERS = {
  'before-pending': ['before', 'pending'],
  'before-paid': ['before', 'paid'],
  'before-underpaid': ['before', 'underpaid'],
  'before-cancelled': ['before', 'cancelled'],
  'before-late': ['before', 'late'],
  'before-mismatch': ['before', 'mismatch'],
  'kernel-pending': ['kernel', 'pending'],
  'kernel-paid': ['kernel', 'paid'],
  'kernel-underpaid': ['kernel', 'underpaid'],
  'kernel-replaced': ['kernel', 'replaced'],
} as const;
export type LegacyOrderName = keyof typeof LEGACY_ORDERS;

export interface LegacyOrder {
  id: number;
  /** Oldest first. */
  codes: string[];
}

interface Created {
  transaction_code: string;
  checkout_url: string;
  expires_at: string;
  amount_in_usd: number | string;
}

/** A checkout at the service, as the plugin asked for it; its webhooks go nowhere (the tests deliver them). */
export async function createCheckout(
  service: SandboxService,
  amount: string,
  reference: string,
): Promise<Created> {
  const response = await fetch(`${service.url}/api/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fiat_amount: amount,
      fiat_currency: 'EUR',
      external_reference: reference,
      webhook_url: LOST_WEBHOOKS,
      customer: {
        wallet_address: LEGACY_WALLET,
        crypto_currency: 'USDC',
        crypto_currency_network: 'POLYGON',
      },
    }),
  });
  return ((await response.json()) as { data: Created }).data;
}

/** A new pending crypto order of `amount` EUR, as the checkout makes it; returns its id. */
const newOrder = (site: UpgradeSite, amount: string) =>
  site.json<number>(`
    $order = new WC_Order();
    $order->set_currency('EUR');
    $order->set_total(${lit(amount)});
    $order->set_payment_method('cryptocheckout');
    $order->set_payment_method_title('Pay with crypto');
    $order->set_created_via('checkout');
    echo json_encode($order->save());
  `);

/** An order of the version before the kernel, in `state`, as its CheckoutStarter and OrderSync left it. */
async function beforeTheKernel(
  site: UpgradeSite,
  service: SandboxService,
  state: string,
): Promise<LegacyOrder> {
  const amount = '12.50';
  const id = await newOrder(site, amount);
  const created = await createCheckout(service, amount, String(id));
  const code = created.transaction_code;
  if (state === 'paid' || state === 'late') await service.pay(code, 'full');
  if (state === 'underpaid') await service.pay(code, 'partial');
  const received = String((await service.transaction(code)).received_usd);
  await site.json(`
    $order = wc_get_order(${id});
    $expires = strtotime(${lit(created.expires_at)});
    // CheckoutStarter::start()
    foreach ([
        '_cryptocheckout_transaction_code' => ${lit(code)},
        '_cryptocheckout_checkout_url' => ${lit(created.checkout_url)},
        '_cryptocheckout_amount_in_usd' => ${lit(String(created.amount_in_usd))},
        '_cryptocheckout_fiat_amount' => ${lit(amount)},
        '_cryptocheckout_fiat_currency' => 'EUR',
        '_cryptocheckout_wallet_address' => ${lit(LEGACY_WALLET)},
        '_cryptocheckout_wallet_currency' => 'USDC',
        '_cryptocheckout_wallet_network' => 'POLYGON',
        '_cryptocheckout_service_url' => ${lit(service.url)},
        '_cryptocheckout_expires_at' => (string) $expires,
        '_cryptocheckout_poll_until' => (string) ($expires + 25 * HOUR_IN_SECONDS),
    ] as $key => $value) {
        $order->update_meta_data($key, $value);
    }
    $order->delete_meta_data('_cryptocheckout_hold_reason');
    $order->set_transaction_id(${lit(code)});
    $order->add_order_note('Crypto Checkout: transaction ${code} created for ${created.amount_in_usd} USD; awaiting payment.');
    $order->save();
    // OrderSync::apply()
    switch (${lit(state)}) {
        case 'paid':
            $order->update_meta_data('_cryptocheckout_received_usd', ${lit(received)});
            $order->delete_meta_data('_cryptocheckout_hold_reason');
            $order->delete_meta_data('_cryptocheckout_poll_until');
            $order->save();
            $order->payment_complete(${lit(code)});
            break;
        case 'underpaid':
        case 'late':
            $order->update_meta_data('_cryptocheckout_hold_reason', ${lit(state === 'late' ? 'late_payment' : 'underpaid')});
            $order->update_meta_data('_cryptocheckout_received_usd', ${lit(received)});
            if (${lit(state)} === 'late') { $order->delete_meta_data('_cryptocheckout_poll_until'); }
            $order->save();
            $order->update_status('on-hold', 'Crypto Checkout: held.');
            break;
        case 'cancelled':
            $order->update_status('cancelled', 'Crypto Checkout: the checkout ${code} expired without payment.');
            break;
        case 'mismatch':
            $order->update_meta_data('_cryptocheckout_mismatch_noted', 'fiat_amount');
            $order->save();
            break;
    }
    echo json_encode(true);
  `);
  return { id, codes: [code] };
}

/** An order of the version on the kernel, in `state`, as its CheckoutStore and WooCommerceOrderPort left it. */
async function onTheKernel(site: UpgradeSite, service: SandboxService, state: string): Promise<LegacyOrder> {
  const amounts = state === 'replaced' ? ['20.00', '24.00'] : ['12.50'];
  const id = await newOrder(site, amounts.at(-1) as string);
  const checkouts: {
    amount: string;
    created: Created;
    check: Record<string, unknown>;
    applied: Record<string, unknown> | null;
  }[] = [];
  for (const [index, amount] of amounts.entries()) {
    const created = await createCheckout(service, amount, String(id));
    const code = created.transaction_code;
    const paidHere = state === 'paid' || (state === 'replaced' && index === 0);
    if (paidHere) await service.pay(code, 'full');
    if (state === 'underpaid') await service.pay(code, 'partial');
    const looked = await service.transaction(code);
    const checked = paidHere || state === 'underpaid' || state === 'pending';
    checkouts.push({
      amount,
      created,
      check: checked
        ? { last_status: looked.status, received_usd: String(looked.received_usd) }
        : { last_status: 'pending', received_usd: null },
      applied:
        state === 'paid'
          ? { applied_action: 'mark_paid', resolution: 'booked' }
          : state === 'underpaid'
            ? { applied_action: 'hold_underpaid', resolution: null }
            : state === 'replaced' && index === 0
              ? { applied_action: 'hold_late_payment', resolution: 'flagged' }
              : null,
    });
  }
  const codes = checkouts.map(({ created }) => created.transaction_code);
  const watched = state !== 'paid';
  const notified =
    state === 'underpaid'
      ? [`${codes[0]}|hold_underpaid|underpaid`]
      : state === 'replaced'
        ? [`${codes[0]}|hold_late_payment|settled_replaced`]
        : [];
  await site.json(`
    $order = wc_get_order(${id});
    $now = time();
    $rows = [];
    $checks = [];
    foreach (json_decode(${lit(JSON.stringify(checkouts))}, true) as $i => $checkout) {
        $created = $checkout['created'];
        $expires = strtotime($created['expires_at']);
        $code = strtolower($created['transaction_code']);
        // StoredCheckout::fromCreated()->toArray(), as CheckoutStore::add() keeps it
        $row = [
            'transaction_code' => $code, 'checkout_url' => $created['checkout_url'], 'service_url' => ${lit(service.url)},
            'fiat_amount' => $checkout['amount'], 'fiat_currency' => 'EUR',
            'wallet_address' => ${lit(LEGACY_WALLET)}, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON',
            'created_at' => $now - 60 + $i, 'expires_at' => $expires, 'watch_until' => $expires + 25 * HOUR_IN_SECONDS,
            'checked_at' => null, 'last_status' => 'pending', 'received_usd' => null, 'applied_action' => null, 'resolution' => null,
        ];
        $rows[] = $row;
        $order->add_meta_data('_cryptocheckout_transaction_code', $code, false);
        // OrderPort::recordCheck() and recordApplied()
        $check = ['expires_at' => $expires, 'watch_until' => $row['watch_until'], 'checked_at' => $checkout['check']['last_status'] === 'pending' && $i > 0 ? null : $now - 300, 'last_status' => $checkout['check']['last_status'], 'received_usd' => $checkout['check']['received_usd']];
        $checks[] = $check;
        $order->update_meta_data('_cryptocheckout_check_' . $code, wp_json_encode($check, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE));
        if ($checkout['applied'] !== null) {
            $order->update_meta_data('_cryptocheckout_applied_' . $code, wp_json_encode($checkout['applied'], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE));
        }
    }
    $order->update_meta_data('_cryptocheckout_checkouts', wp_json_encode($rows, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE));
    // CheckoutStore::refreshPollIndex(): only while a checkout is watched
    if (${watched ? 'true' : 'false'}) {
        $order->update_meta_data('_cryptocheckout_poll_due', (string) ($now + 30));
        $order->update_meta_data('_cryptocheckout_poll_until', (string) max(array_column($rows, 'watch_until')));
        $order->update_meta_data('_cryptocheckout_poll_checked', (string) min(array_map(static function ($check) { return (int) $check['checked_at']; }, $checks)));
    }
    $notified = json_decode(${lit(JSON.stringify(notified))}, true);
    if ($notified !== []) {
        $order->update_meta_data('_cryptocheckout_notified', wp_json_encode($notified));
    }
    $order->save();
    switch (${lit(state)}) {
        case 'paid':
            $order->payment_complete($rows[0]['transaction_code']);
            break;
        case 'underpaid':
        case 'replaced':
            $order->update_meta_data('_cryptocheckout_hold_reason', ${lit(state === 'replaced' ? 'late_payment' : 'underpaid')});
            $order->save();
            $order->update_status('on-hold', 'Crypto Checkout: held.');
            break;
        case 'pending':
            // A run that died holding the order left its claim row (ClaimStore).
            add_option('cryptocheckout_claim_${id}', 'run|' . $rows[0]['transaction_code'] . '|' . ($now - 600) . '|deadbeef', '', 'no');
            break;
    }
    echo json_encode(true);
  `);
  return { id, codes };
}

/** Writes every order of LEGACY_ORDERS; the plugin must not be active yet (only its settings stored). */
export async function writeLegacyOrders(
  site: UpgradeSite,
  service: SandboxService,
): Promise<Record<LegacyOrderName, LegacyOrder>> {
  const orders = {} as Record<LegacyOrderName, LegacyOrder>;
  for (const [name, [layout, state]] of Object.entries(LEGACY_ORDERS) as [
    LegacyOrderName,
    [string, string],
  ][]) {
    orders[name] =
      layout === 'before'
        ? await beforeTheKernel(site, service, state)
        : await onTheKernel(site, service, state);
  }
  return orders;
}

/** The settings the plugin stored, as its settings form saved them. */
export const storeSettings = (site: UpgradeSite, service: SandboxService) =>
  site.json(`
    update_option('woocommerce_currency', 'EUR');
    update_option('woocommerce_cryptocheckout_settings', ['enabled' => 'yes', 'title' => 'Pay with crypto', 'description' => '', 'service_url' => ${lit(service.url)}, 'wallet_network' => 'POLYGON', 'wallet_currency' => 'USDC', 'wallet_address' => ${lit(LEGACY_WALLET)}, 'checkout_display' => 'redirect', 'debug' => 'yes']);
    echo json_encode(true);
  `);
