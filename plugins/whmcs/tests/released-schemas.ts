// The storage of the released module versions, reconstructed from git history
// (module/modules/gateways/cryptocheckout/lib/TransactionStore.php and the code that wrote its rows),
// for the upgrade tests on the harness's SQLite (gateway.test.ts) and on MariaDB (mariadb.test.ts).
// The PHP below makes the same Capsule calls those versions made, so the harness's Capsule writes
// each table as that version had it created: its SQLite spelling in php-wasm, Laravel 8/9's MySQL
// spelling in Capsule's MySQL mode.
//
// - Schema 1 (commits f82e298 and f639200, before the kernel): mod_cryptocheckout_transactions with
//   a "state" per checkout (the invoice state the module recorded: awaiting_payment, underpaid,
//   cancelled, paid, late_payment_review), expires_at as the service sent it (ISO 8601) and times
//   as "Y-m-d H:i:s" UTC; mod_cryptocheckout_settings, created by the schema builder, holding the
//   signing key and, from f639200, the pay button's "lock:pay:<invoice id>" markers.
// - Schema 2 (c3af3e9 and 448c059, the last release, a091d2f): the kernel's columns added
//   (service_url, watch_until, last_status, received_usd, applied_action, resolution,
//   notified_action), every time "Y-m-d H:i:s" UTC; mod_cryptocheckout_settings created first, with
//   its unique key, in one statement, holding schema_version 2, the signing key and the per-invoice
//   claims "claim:<invoice id>".

/** The tables as `released_schema(int $version)` creates them, and rows as each version wrote them. */
export const RELEASED_PHP = `
/** The module's tables as release schema $version created them (TransactionStore::ensure*()). */
function released_schema(int $version): void
{
    $schema = \\WHMCS\\Database\\Capsule::schema();
    if ($version === 2) {
        \\WHMCS\\Database\\Capsule::connection()->statement('CREATE TABLE IF NOT EXISTS mod_cryptocheckout_settings (setting VARCHAR(64) NOT NULL, value TEXT NOT NULL, CONSTRAINT mod_cryptocheckout_settings_setting_unique UNIQUE (setting))');
    }
    $schema->create('mod_cryptocheckout_transactions', static function ($table) use ($version): void {
        $table->increments('id');
        $table->integer('invoice_id')->index();
        $table->string('transaction_code', 64)->unique();
        $table->string('checkout_url', 2048);
        $table->string('fiat_amount', 32);
        $table->string('fiat_currency', 3);
        $table->string('invoice_amount', 32);
        $table->string('invoice_currency', 3);
        $table->string('wallet_address', 128);
        $table->string('wallet_currency', 16);
        $table->string('wallet_network', 16);
        $table->string('state', 32)->index();
        $table->text('note')->nullable();
        $table->string('expires_at', 32)->nullable();
        $table->string('checked_at', 32)->nullable();
        $table->string('created_at', 32);
        $table->string('updated_at', 32);
        if ($version === 2) {
            $lengths = ['service_url' => 2048, 'watch_until' => 32, 'last_status' => 32, 'received_usd' => 40, 'applied_action' => 32, 'resolution' => 16, 'notified_action' => 32];
            foreach ($lengths as $column => $length) {
                $definition = $table->string($column, $length)->nullable();
                if ($column === 'watch_until') {
                    $definition->index();
                }
            }
        }
    });
    if ($version === 1) {
        $schema->create('mod_cryptocheckout_settings', static function ($table): void {
            $table->string('setting', 64)->unique();
            $table->text('value');
        });
    } else {
        \\WHMCS\\Database\\Capsule::table('mod_cryptocheckout_settings')->insert(['setting' => 'schema_version', 'value' => '2']);
    }
}

/**
 * A row of mod_cryptocheckout_transactions as release schema $version wrote it for a checkout
 * expiring at $expiresAt (Unix seconds) whose invoice it left in $state, with what the last check
 * saw ($lastStatus, $receivedUsd; schema 2 only).
 */
function released_row(int $version, int $invoiceId, string $code, string $state, int $expiresAt, array $fields = []): array
{
    $time = static function (?int $unix): ?string {
        return $unix === null ? null : gmdate('Y-m-d H:i:s', $unix);
    };
    $row = $fields + [
        'invoice_id' => $invoiceId, 'transaction_code' => $code, 'checkout_url' => 'https://pay.example/pay/' . $code,
        'fiat_amount' => '25.00', 'fiat_currency' => 'EUR', 'invoice_amount' => '25.00', 'invoice_currency' => 'EUR',
        'wallet_address' => '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'wallet_currency' => 'USDC', 'wallet_network' => 'POLYGON',
        'state' => $state, 'note' => null, 'checked_at' => $time($expiresAt - 1800),
        'created_at' => $time($expiresAt - 3600), 'updated_at' => $time($expiresAt - 1800),
    ];
    if ($version === 1) {
        // The service's own expires_at, as PayEndpoint stored it.
        return $row + ['expires_at' => gmdate('Y-m-d\\\\TH:i:s.000\\\\Z', $expiresAt)];
    }
    // What the kernel of schema 2 recorded for each state (InvoicePort, Runner).
    $applied = [
        'awaiting_payment' => ['pending', null, null, null],
        'underpaid' => ['underpaid', 'hold_underpaid', null, null],
        'cancelled' => ['expired', 'cancel_expired', null, null],
        'paid' => ['settled', 'mark_paid', 'booked', null],
        'late_payment_review' => ['settled', 'hold_late_payment', 'flagged', 'hold_late_payment'],
    ][$state];
    return $row + [
        'service_url' => 'https://pay.example', 'expires_at' => $time($expiresAt), 'watch_until' => $time($expiresAt + 25 * 3600),
        'last_status' => $applied[0], 'received_usd' => null, 'applied_action' => $applied[1], 'resolution' => $applied[2],
        'notified_action' => $applied[3],
    ];
}
`;
