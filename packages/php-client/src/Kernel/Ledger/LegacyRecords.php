<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel\Ledger;

use CryptoCheckout\Client\Kernel\Decision;
use CryptoCheckout\Client\Kernel\OrderState;
use CryptoCheckout\Client\Kernel\StoredCheckout;

/**
 * The one migration map: what earlier plugin versions stored, as ledger checkouts. Each plugin's
 * upgrade step only reads its old storage (order meta, module tables) into rows with the ledger's
 * column names and hands them to Ledger::import() through here; what the old values mean is
 * decided once, in this class.
 *
 * A row may carry, besides StoredCheckout::toArray()'s keys:
 * - legacy_state: the order state the versions before the kernel recorded per order or checkout
 *   (awaiting_payment, underpaid, cancelled, paid, late_payment_review); used when the row has no
 *   applied_action of its own;
 * - hold_reason: WooCommerce's earlier on-hold reason (underpaid, late_payment).
 */
final class LegacyRecords
{
    /** A legacy order state, as the kernel would have recorded it: [applied action, resolution]. */
    public const APPLIED_BY_STATE = [
        OrderState::AWAITING_PAYMENT => [null, null],
        OrderState::UNDERPAID => [Decision::HOLD_UNDERPAID, null],
        OrderState::CANCELLED => [Decision::CANCEL_EXPIRED, null],
        OrderState::PAID => [Decision::MARK_PAID, StoredCheckout::RESOLUTION_BOOKED],
        OrderState::LATE_PAYMENT_REVIEW => [Decision::HOLD_LATE_PAYMENT, StoredCheckout::RESOLUTION_FLAGGED],
    ];

    /** WooCommerce's earlier on-hold reasons, as order states. */
    public const HOLD_REASONS = ['underpaid' => OrderState::UNDERPAID, 'late_payment' => OrderState::LATE_PAYMENT_REVIEW];

    /** States a recorded state is taken from, strongest first (an order held for review stays held). */
    private const RECORDED_ORDER = [OrderState::PAID, OrderState::LATE_PAYMENT_REVIEW, OrderState::UNDERPAID, OrderState::CANCELLED];

    private function __construct()
    {
    }

    /**
     * A ledger checkout from one stored row of an earlier version, as of $now (Unix seconds).
     *
     * @param array<string, mixed> $row
     */
    public static function checkout(array $row, int $now): StoredCheckout
    {
        $legacyState = is_string($row['legacy_state'] ?? null) ? $row['legacy_state'] : null;
        if (($row['applied_action'] ?? null) === null && $legacyState !== null && isset(self::APPLIED_BY_STATE[$legacyState])) {
            [$row['applied_action'], $row['resolution']] = self::APPLIED_BY_STATE[$legacyState];
        }
        $checkout = StoredCheckout::fromArray($row);
        if ($checkout->resolution === null && !isset($row['watch_until'])) {
            // Versions that kept no expiry: the poll gets at least one look, and that lookup brings
            // the real expiry and watch window.
            $checkout->watchUntil = max($checkout->watchUntil, $now + StoredCheckout::WATCH_MARGIN_SECONDS);
        }
        // A payment booked before the ledger existed is not taken as confirmed: the first poll looks
        // once more while the checkout is in its watch window, and repairs an order an earlier
        // version's defect left unpaid with its payment booked.
        return $checkout;
    }

    /**
     * The state the kernel had moved the order to, from what the rows of one order say: a hold
     * reason, or the strongest legacy state or applied action among its rows; null when none.
     *
     * @param list<array<string, mixed>> $rows
     */
    public static function recordedState(array $rows): ?string
    {
        $states = [];
        foreach ($rows as $row) {
            $reason = $row['hold_reason'] ?? null;
            if (is_string($reason) && isset(self::HOLD_REASONS[$reason])) {
                $states[] = self::HOLD_REASONS[$reason];
            }
            $legacy = $row['legacy_state'] ?? null;
            if (is_string($legacy)) {
                $states[] = $legacy;
            }
            foreach (self::APPLIED_BY_STATE as $state => [$action]) {
                if ($action !== null && ($row['applied_action'] ?? null) === $action) {
                    $states[] = $state;
                }
            }
        }
        foreach (self::RECORDED_ORDER as $state) {
            if (in_array($state, $states, true)) {
                return $state;
            }
        }
        return null;
    }

    /**
     * Imports one order's rows into the ledger (oldest first); returns how many were added.
     *
     * @param list<array<string, mixed>> $rows
     */
    public static function import(Ledger $ledger, string $orderId, array $rows, int $now): int
    {
        usort($rows, static function (array $a, array $b): int {
            return [StoredCheckout::parseTime($a['created_at'] ?? null) ?? 0, (string) ($a['transaction_code'] ?? '')]
                <=> [StoredCheckout::parseTime($b['created_at'] ?? null) ?? 0, (string) ($b['transaction_code'] ?? '')];
        });
        $checkouts = [];
        foreach ($rows as $row) {
            if (trim((string) ($row['transaction_code'] ?? '')) !== '') {
                $checkouts[] = self::checkout($row, $now);
            }
        }
        return $ledger->import($orderId, $checkouts, self::recordedState($rows));
    }
}
