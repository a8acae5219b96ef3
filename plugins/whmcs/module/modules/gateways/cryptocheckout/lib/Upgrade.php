<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Clock;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Ledger\LegacyRecords;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\SettingsRules;
use WHMCS\Database\Capsule;

/**
 * The first use after an install or an upgrade (WHMCS gives gateway modules no upgrade hook): the
 * kernel's ledger is installed and what the released versions stored moves into it: every row of
 * mod_cryptocheckout_transactions in either layout (schema 1: a "state" per checkout, expires_at as
 * the service sent it; schema 2: the kernel's columns added) through the kernel's one migration map;
 * the pay buttons' signing key; a saved display mode "embedded", now "modal". The old tables are
 * only read: a failure leaves them as they were, says so in the Gateway Log, and the next request
 * tries again. Every step may run again, from many requests at once; a marker ends the work.
 */
final class Upgrade
{
    /** The pay buttons' HMAC key, in the ledger's state. */
    public const SIGNING_KEY = 'whmcs_signing_key';
    /** In the ledger's state once the upgrade is complete: when it completed. */
    public const DONE = 'whmcs_upgraded_at';
    public const TRANSACTIONS = 'mod_cryptocheckout_transactions';
    public const SETTINGS = 'mod_cryptocheckout_settings';
    /** How long an import waits for another request moving the same invoice. */
    private const IMPORT_WAIT_SECONDS = 10;

    /** Found complete in this PHP process. */
    private static bool $done = false;

    /** @throws \Exception what failed (logged); the old tables are untouched */
    public static function ensure(Ledger $ledger, InvoicePort $invoices, string $serviceUrl, Clock $clock): void
    {
        self::$done = self::$done || ($ledger->isInstalled() && $ledger->value(self::DONE, 0) !== null);
        if (self::$done) {
            return;
        }
        $now = $clock->now();
        try {
            $ledger->install();
            $moved = self::importReleasedRecords($ledger, $serviceUrl, $clock);
            Capsule::table('tblpaymentgateways')->where('gateway', Settings::GATEWAY)->where('setting', 'displayMode')
                ->where('value', 'embedded')->update(['value' => SettingsRules::DISPLAY_MODAL]);
            $ledger->valueOnce(self::DONE, (string) $now);
        } catch (\Exception $error) {
            $invoices->gatewayLog('Error', ['message' => 'Moving the module\'s records into the Crypto Checkout ledger failed: ' . $error->getMessage()
                . '. The tables ' . self::TRANSACTIONS . ' and ' . self::SETTINGS . ' are left as they were; the next request tries again.']);
            throw $error;
        }
        if ($moved > 0) {
            $invoices->gatewayLog('Upgraded', ['message' => sprintf('Moved %d checkouts from %s into the Crypto Checkout ledger; the old tables are kept as they were.', $moved, self::TRANSACTIONS)]);
        }
        self::$done = true;
    }

    /** @return int the checkouts added to the ledger */
    private static function importReleasedRecords(Ledger $ledger, string $serviceUrl, Clock $clock): int
    {
        $schema = Capsule::schema();
        $key = $schema->hasTable(self::SETTINGS) ? (string) Capsule::table(self::SETTINGS)->where('setting', 'signing_key')->value('value') : '';
        if ($key !== '') {
            $ledger->valueOnce(self::SIGNING_KEY, $key);
        }
        $rows = $schema->hasTable(self::TRANSACTIONS) ? Capsule::table(self::TRANSACTIONS)->orderBy('id')->get() : [];
        return self::import($ledger, $rows, $serviceUrl, $clock);
    }

    /**
     * The invoice of a transaction code the ledger does not know, when the released version's table
     * holds it: a checkout that version wrote after the upgrade had moved the rest (a request still
     * running the old files). Its invoice's rows are imported then, so its payment is booked.
     *
     * @return string|null the invoice id, null when the old table has no such code
     */
    public static function importLate(Ledger $ledger, string $transactionCode, string $serviceUrl, Clock $clock): ?string
    {
        if (!Capsule::schema()->hasTable(self::TRANSACTIONS)) {
            return null;
        }
        $invoiceId = Capsule::table(self::TRANSACTIONS)->where('transaction_code', $transactionCode)->value('invoice_id');
        if ($invoiceId === null) {
            return null;
        }
        self::import($ledger, Capsule::table(self::TRANSACTIONS)->where('invoice_id', $invoiceId)->orderBy('id')->get(), $serviceUrl, $clock);
        return (string) $invoiceId;
    }

    /**
     * Rows of mod_cryptocheckout_transactions into the ledger, by invoice, each under the invoice's
     * claim: two requests importing one invoice at once would number its checkouts out of order
     * (the MariaDB suite's eight concurrent importers showed it); the second waits, then finds
     * nothing left to add.
     *
     * @param iterable<object> $oldRows
     * @return int the checkouts added
     * @throws \RuntimeException when another request holds an invoice longer than the wait
     */
    private static function import(Ledger $ledger, iterable $oldRows, string $serviceUrl, Clock $clock): int
    {
        $byInvoice = [];
        foreach ($oldRows as $row) {
            $old = get_object_vars($row);
            $byInvoice[(string) $old['invoice_id']][] = [
                // Schema 1 kept no service URL: its checkouts were made with the configured one.
                'service_url' => (string) ($old['service_url'] ?? '') !== '' ? $old['service_url'] : $serviceUrl,
                'order_amount' => $old['invoice_amount'],
                'order_currency' => $old['invoice_currency'],
                'legacy_state' => $old['state'],
                'notified' => $old['notified_action'] ?? null,
            ] + $old;
        }
        $added = 0;
        $now = $clock->now();
        foreach ($byInvoice as $invoiceId => $rows) {
            $claim = $ledger->claimWaiting((string) $invoiceId, 'import', '-', self::IMPORT_WAIT_SECONDS, $clock);
            if ($claim === null) {
                throw new \RuntimeException('another request is moving invoice #' . $invoiceId);
            }
            try {
                $added += LegacyRecords::import($ledger, (string) $invoiceId, $rows, $now);
            } finally {
                $ledger->release($claim);
            }
        }
        return $added;
    }
}
