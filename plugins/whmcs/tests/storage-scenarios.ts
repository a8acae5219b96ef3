// Storage scenarios shared by the SQLite tests (gateway.test.ts, php-wasm) and the MariaDB tests
// (mariadb.test.ts, Debian's PHP): the same PHP against the kernel's ledger through the module's
// database port (CapsuleSql) on both.

/**
 * PHP that fills `$ledger` (the kernel's Ledger) at time `$now` with 40 checkouts over every mix of
 * last check, expiry and resolution (a booked one confirmed or not), and sets `$entries` to all of
 * them in the form the kernel's `PollPolicy::select()` takes: the reference the ledger's `due()`
 * query must agree with. Needs a `use` line for StoredCheckout.
 */
export const DUE_SCENARIO_PHP = `
$checked = [null, $now - 30, $now - 120, $now - 900, $now - 5000];
$expires = [$now + 1800, $now - 1800, $now - 30 * 3600, $now - 100];
$resolutions = [[null, null], [null, null], [null, null], ['booked', null], ['booked', $now - 10], ['flagged', null]];
$n = 0;
$entries = [];
foreach ($checked as $c) {
    foreach ($expires as $e) {
        foreach ([0, 1] as $r) {
            $n++;
            $checkout = StoredCheckout::fromArray([
                'transaction_code' => sprintf('00000000-0000-4000-8000-%012d', $n), 'checkout_url' => 'x', 'service_url' => 'x',
                'fiat_amount' => '1.00', 'fiat_currency' => 'EUR', 'order_amount' => '1.00', 'order_currency' => 'EUR',
                'wallet_address' => 'x', 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON',
                'expires_at' => $e, 'watch_until' => StoredCheckout::watchDeadline($e), 'checked_at' => $c,
                'resolution' => $resolutions[($n * 7) % 6][0], 'confirmed_at' => $resolutions[($n * 7) % 6][1],
                'created_at' => $now - 7200 + $n * 60,
            ]);
            $ledger->add((string) (1000 + $n % 13), $checkout);
            $entries[] = [(string) (1000 + $n % 13), $checkout];
        }
    }
}
`;
