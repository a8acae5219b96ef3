// PHP scenarios of the kernel's ledger, run on SQLite in php-wasm (ledger.test.ts) and on a real
// MariaDB through Debian's PHP (ledger-mariadb.test.ts): the same SQL must give the same answers.
// Each expects `$world` (a World over the database under test) and echoes JSON.
import fc from 'fast-check';

/** Checkouts in every poll situation, for comparing Ledger::due() with PollPolicy::select(). */
export function dueRows(seed: number) {
  const now = 1_793_527_200;
  const minute = 60;
  const time = fc.constantFrom(
    null,
    now - 5,
    now - 59,
    now - 60,
    now - 61,
    now - 599,
    now - 600,
    now - 601,
    now - 7200,
  );
  const row = fc.record({
    created_at: fc.integer({ min: now - 86_400, max: now }),
    checked_at: time,
    expires_at: fc.constantFrom(null, now - 10 * minute, now - 30, now, now + 30, now + 3600),
    watch_until: fc.constantFrom(now - 1, now, now + 90_000),
    resolution: fc.constantFrom(null, null, 'booked', 'flagged'),
    confirmed_at: fc.constantFrom(null, now - 100),
  });
  return { now, rows: fc.sample(fc.array(row, { minLength: 40, maxLength: 80 }), { numRuns: 6, seed }) };
}

/** Ledger::due() and PollPolicy::select() over the same checkouts: [query, reference] per sample. */
export const DUE_MATCHES_POLICY_PHP = (samples: string, now: number) => `
$out = [];
foreach (json_decode(${JSON.stringify(samples)}, true) as $sample => $rows) {
    $world = newWorld();
    $entries = [];
    foreach ($rows as $index => $row) {
        $orderId = 'o' . ($index % 7);
        $checkout = StoredCheckout::fromArray($row + ['transaction_code' => sprintf('%08d-0000-4000-8000-%012d', $sample, $index), 'service_url' => World::SERVICE, 'fiat_amount' => '1.00', 'fiat_currency' => 'EUR']);
        $world->ledger->add($orderId, $checkout);
        $entries[] = [$orderId, $checkout];
    }
    $policy = new PollPolicy(25);
    $out[] = [$world->ledger->due($policy, ${now}), $policy->select($entries, ${now})];
}
echo json_encode($out);
`;

/** The claim's compare-and-swap, its lease, and a late release that must not free another's claim. */
export const CLAIM_PHP = `
$world = newWorld();
$now = $world->clock->now;
$a = $world->ledger->claim('7', 'mark_paid', 'code-a', $now);
$b = $world->ledger->claim('7', 'mark_paid', 'code-b', $now + 30);
$c = $world->ledger->claim('7', 'hold_underpaid', 'code-c', $now + Claim::LEASE_SECONDS);
$world->ledger->release($a);                      // the first run wakes up late: its lease is gone
$stillHeld = $world->ledger->isClaimed('7', $now + Claim::LEASE_SECONDS);
$world->ledger->release($c);
echo json_encode([
    'first' => $a !== null,
    'second' => $b !== null,
    'takeover' => $c === null ? null : $c->tookOver,
    'heldAfterLateRelease' => $stillHeld,
    'freeAfterRelease' => !$world->ledger->isClaimed('7', $now + Claim::LEASE_SECONDS),
    'other' => $world->ledger->claim('8', 'run', 'x', $now) !== null,
]);
`;

/**
 * Rows of every released storage layout, through the one migration map: WooCommerce before the
 * kernel (one checkout in separate metas, an on-hold reason), PrestaShop 1.0 (one row per order
 * with its state), WHMCS schema 1 (a state per checkout row), and kernel-era rows.
 */
export const IMPORT_PHP = `
$world = newWorld();
$now = $world->clock->now;
$imported = [];
$imported[] = LegacyRecords::import($world->ledger, '101', [
    ['transaction_code' => 'AAAAAAAA-0000-4000-8000-000000000001', 'checkout_url' => 'https://pay.example.com/pay/a', 'service_url' => World::SERVICE, 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => '2026-11-01 09:00:00', 'received_usd' => '10.00', 'hold_reason' => 'underpaid', 'legacy_state' => 'underpaid'],
], $now);
$imported[] = LegacyRecords::import($world->ledger, '102', [
    ['transaction_code' => 'bbbbbbbb-0000-4000-8000-000000000002', 'checkout_url' => 'https://pay.example.com/pay/b', 'service_url' => World::SERVICE, 'fiat_amount' => '9.90', 'fiat_currency' => 'EUR', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $now - 7200, 'checked_at' => $now - 3600, 'last_status' => 'settled', 'legacy_state' => 'paid'],
], $now);
$imported[] = LegacyRecords::import($world->ledger, '103', [
    ['transaction_code' => 'cccccccc-0000-4000-8000-000000000003', 'checkout_url' => 'https://pay.example.com/pay/c', 'service_url' => World::SERVICE, 'fiat_amount' => '5.00', 'fiat_currency' => 'USD', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $now - 90000, 'expires_at' => $now - 86000, 'legacy_state' => 'cancelled'],
    ['transaction_code' => 'dddddddd-0000-4000-8000-000000000004', 'checkout_url' => 'https://pay.example.com/pay/d', 'service_url' => World::SERVICE, 'fiat_amount' => '5.00', 'fiat_currency' => 'USD', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $now - 600, 'expires_at' => $now + 3000, 'watch_until' => $now + 3000 + 90000, 'order_amount' => '4.20', 'order_currency' => 'GBP', 'legacy_state' => 'awaiting_payment'],
], $now);
$imported[] = LegacyRecords::import($world->ledger, '104', [
    ['transaction_code' => 'eeeeeeee-0000-4000-8000-000000000005', 'checkout_url' => 'https://pay.example.com/pay/e', 'service_url' => World::SERVICE, 'fiat_amount' => '12.00', 'fiat_currency' => 'EUR', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $now - 100, 'expires_at' => $now + 3500, 'watch_until' => $now + 93500, 'checked_at' => $now - 50, 'last_status' => 'settled', 'applied_action' => 'hold_late_payment', 'resolution' => 'flagged', 'notified' => 'hold_late_payment|settled_after_cancel'],
], $now);
// Two requests importing the same order at once: one inserted the first checkout when the
// other had already read the order's last ordinal; both agree on every ordinal.
$racing = [
    ['transaction_code' => 'ffffffff-0000-4000-8000-000000000006', 'checkout_url' => 'f', 'service_url' => World::SERVICE, 'fiat_amount' => '7.00', 'fiat_currency' => 'EUR', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $now - 300],
    ['transaction_code' => 'ffffffff-0000-4000-8000-000000000007', 'checkout_url' => 'g', 'service_url' => World::SERVICE, 'fiat_amount' => '8.00', 'fiat_currency' => 'EUR', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'created_at' => $now - 300],
];
$imported[] = LegacyRecords::import($world->ledger, '105', [$racing[0]], $now);
$imported[] = LegacyRecords::import($world->ledger, '105', $racing, $now);
// A second run of the same migration adds nothing.
$again = LegacyRecords::import($world->ledger, '101', [
    ['transaction_code' => 'aaaaaaaa-0000-4000-8000-000000000001', 'checkout_url' => 'x', 'service_url' => World::SERVICE, 'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'wallet_address' => World::WALLET, 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON', 'legacy_state' => 'paid'],
], $now);
$describe = static function (string $orderId) use ($world): array {
    $out = ['recorded' => $world->ledger->recordedState($orderId), 'checkouts' => []];
    foreach ($world->ledger->checkouts($orderId) as $checkout) {
        $out['checkouts'][] = [
            'code' => $checkout->transactionCode, 'ordinal' => $checkout->ordinal, 'applied' => $checkout->appliedAction,
            'resolution' => $checkout->resolution, 'watched' => $checkout->isWatched($world->clock->now),
            'confirmed' => $checkout->confirmedAt !== null, 'order_amount' => $checkout->orderAmount, 'notified' => $checkout->notified,
        ];
    }
    return $out;
};
echo json_encode([
    'imported' => $imported,
    'again' => $again,
    'found' => $world->ledger->orderOf('AAAAAAAA-0000-4000-8000-000000000001'),
    'orders' => ['101' => $describe('101'), '102' => $describe('102'), '103' => $describe('103'), '104' => $describe('104'), '105' => $describe('105')],
    'due' => array_column($world->ledger->due(new PollPolicy(), $now), 1),
]);
`;

/** The kernel's small state: values once, values that expire, exact counters, clearing. */
export const STATE_PHP = `
$world = newWorld();
$ledger = $world->ledger;
$first = $ledger->valueOnce('signing_key', 'k1');
$second = $ledger->valueOnce('signing_key', 'k2');
$ledger->putValue('probe', 'cached', 1000);
$counts = [];
for ($i = 0; $i < 5; $i++) {
    $counts[] = $ledger->countUpTo('throttle:x', 3, 1000);
}
$ledger->install();                                // a second install changes nothing
echo json_encode([
    'once' => [$first, $second],
    'before' => $ledger->value('probe', 999),
    'after' => $ledger->value('probe', 1000),
    'counts' => $counts,
    'forgotten' => $ledger->forgetExpired(1000),
    'keyKept' => $ledger->value('signing_key', 5000),
    'installed' => $ledger->isInstalled(),
]);
`;
