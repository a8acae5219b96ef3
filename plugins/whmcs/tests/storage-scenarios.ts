// Storage scenarios shared by the SQLite tests (gateway.test.ts, php-wasm) and the MariaDB tests
// (mariadb.test.ts, Debian's PHP): the same PHP against the module's TransactionStore on both.

/**
 * PHP that fills `$store` (a TransactionStore) at time `$now` with 30 checkouts over every mix of
 * last check, expiry and resolution, and sets `$entries` to all stored checkouts in the form the
 * kernel's `PollPolicy::select()` takes: the reference the store's `due()` query must agree with.
 * Needs `use` lines for TransactionStore and StoredCheckout.
 */
export const DUE_SCENARIO_PHP = `
$checked = [null, $now - 30, $now - 120, $now - 900, $now - 5000];
$expires = [$now + 1800, $now - 1800, $now - 30 * 3600];
$resolutions = [null, null, null, 'booked', 'flagged'];
$n = 0;
foreach ($checked as $c) {
    foreach ($expires as $e) {
        foreach ([0, 1] as $r) {
            $n++;
            $store->insert([
                'invoice_id' => 1000 + $n, 'transaction_code' => sprintf('00000000-0000-4000-8000-%012d', $n),
                'checkout_url' => 'x', 'service_url' => 'x', 'fiat_amount' => '1.00', 'fiat_currency' => 'EUR',
                'invoice_amount' => '1.00', 'invoice_currency' => 'EUR', 'wallet_address' => 'x', 'wallet_currency' => 'USDC',
                'wallet_network' => 'POLYGON', 'state' => 'awaiting_payment',
                'expires_at' => TransactionStore::time($e), 'watch_until' => TransactionStore::time(StoredCheckout::watchDeadline($e)),
                'checked_at' => TransactionStore::time($c), 'resolution' => $resolutions[($n * 7) % 5],
                'created_at' => TransactionStore::time($now - 7200 + $n * 60),
            ]);
        }
    }
}
$entries = [];
foreach (WHMCS\\Database\\Capsule::table(TransactionStore::TABLE)->get() as $row) {
    $entries[] = [(string) $row->invoice_id, StoredCheckout::fromArray($row)];
}
`;
