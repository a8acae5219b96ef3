<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StoredCheckout;

/**
 * Every checkout created for an order, kept in the order's meta through the order CRUD API only
 * (HPOS and legacy storage alike). WooCommerce writes each changed meta row on its own, so the
 * layout gives every writer its own rows and no request overwrites what another one wrote:
 *
 * - _cryptocheckout_transaction_code: one row per code (not unique), so the order is found by any
 *   code it ever had, whatever its payment method says now;
 * - _cryptocheckout_checkouts: the checkouts' terms (StoredCheckout::toArray() when created), JSON,
 *   oldest first; written only when a checkout is added, under the order's claim;
 * - _cryptocheckout_check_<code> and _cryptocheckout_applied_<code>: the check fields and the applied
 *   fields of one checkout, JSON (OrderPort::recordCheck() and recordApplied());
 * - _cryptocheckout_poll_due / _poll_until / _poll_checked: the order's place in the poll (see
 *   refreshPollIndex()), numbers a meta query can compare and sort.
 *
 * Orders of the previous version hold one code with its terms in separate metas; they are read as
 * one checkout, and adopt() writes them in this layout.
 */
final class CheckoutStore
{
    public const CODE = '_cryptocheckout_transaction_code';
    public const CHECKOUTS = '_cryptocheckout_checkouts';
    public const CHECK_PREFIX = '_cryptocheckout_check_';
    public const APPLIED_PREFIX = '_cryptocheckout_applied_';
    /** When the order's next checkout is due for a poll (Unix seconds). */
    public const POLL_DUE = '_cryptocheckout_poll_due';
    /** Until when the poll watches the order; the previous version kept its watch deadline under the same key. */
    public const POLL_UNTIL = '_cryptocheckout_poll_until';
    /** The least recent check of a watched checkout (0: one was never checked), for the poll's order. */
    public const POLL_CHECKED = '_cryptocheckout_poll_checked';

    public const CHECK_FIELDS = ['expires_at', 'watch_until', 'checked_at', 'last_status', 'received_usd'];
    public const APPLIED_FIELDS = ['applied_action', 'resolution'];

    /** The previous version's metas of its one checkout. */
    private const LEGACY = [
        'checkout_url' => '_cryptocheckout_checkout_url',
        'service_url' => '_cryptocheckout_service_url',
        'fiat_amount' => '_cryptocheckout_fiat_amount',
        'fiat_currency' => '_cryptocheckout_fiat_currency',
        'wallet_address' => '_cryptocheckout_wallet_address',
        'wallet_currency' => '_cryptocheckout_wallet_currency',
        'wallet_network' => '_cryptocheckout_wallet_network',
        'expires_at' => '_cryptocheckout_expires_at',
        'watch_until' => self::POLL_UNTIL,
        'received_usd' => '_cryptocheckout_received_usd',
    ];

    private PollPolicy $policy;

    public function __construct(PollPolicy $policy)
    {
        $this->policy = $policy;
    }

    /** @return list<StoredCheckout> newest first */
    public function checkouts(\WC_Order $order): array
    {
        $checkouts = [];
        foreach ($this->termRows($order) as $row) {
            $code = strtolower((string) ($row['transaction_code'] ?? ''));
            if ($code === '') {
                continue;
            }
            $row = array_merge($row, self::fields(self::readJson($order, self::CHECK_PREFIX . $code), self::CHECK_FIELDS));
            $row = array_merge($row, self::fields(self::readJson($order, self::APPLIED_PREFIX . $code), self::APPLIED_FIELDS));
            $checkouts[] = StoredCheckout::fromArray($row);
        }
        usort($checkouts, static function (StoredCheckout $a, StoredCheckout $b): int {
            return [$b->createdAt, $b->transactionCode] <=> [$a->createdAt, $a->transactionCode];
        });
        return $checkouts;
    }

    public function add(\WC_Order $order, StoredCheckout $checkout, int $now): void
    {
        $rows = $this->termRows($order);
        $rows[] = $checkout->toArray();
        $order->update_meta_data(self::CHECKOUTS, self::json(array_values($rows)));
        $codes = array_map(static function ($meta) {
            return is_object($meta) ? strtolower((string) $meta->value) : strtolower((string) $meta);
        }, (array) $order->get_meta(self::CODE, false));
        if (!in_array($checkout->transactionCode, $codes, true)) {
            $order->add_meta_data(self::CODE, $checkout->transactionCode, false);
        }
        $this->putJson($order, self::CHECK_PREFIX . $checkout->transactionCode, self::fields($checkout->toArray(), self::CHECK_FIELDS));
        $order->save();
        $this->refreshPollIndex($order, $now);
    }

    public function writeCheck(\WC_Order $order, StoredCheckout $checkout, int $now): void
    {
        $this->putJson($order, self::CHECK_PREFIX . $checkout->transactionCode, self::fields($checkout->toArray(), self::CHECK_FIELDS));
        $order->save();
        $this->refreshPollIndex($order, $now);
    }

    public function writeApplied(\WC_Order $order, StoredCheckout $checkout, int $now): void
    {
        $this->putJson($order, self::APPLIED_PREFIX . $checkout->transactionCode, self::fields($checkout->toArray(), self::APPLIED_FIELDS));
        $order->save();
        $this->refreshPollIndex($order, $now);
    }

    /** Writes an order of the previous version in this layout, so the poll finds it. */
    public function adopt(\WC_Order $order, int $now): void
    {
        if ($order->get_meta(self::CHECKOUTS) === '') {
            $rows = $this->termRows($order);
            if ($rows === []) {
                return;
            }
            $order->update_meta_data(self::CHECKOUTS, self::json($rows));
            $order->save();
        }
        $this->refreshPollIndex($order, $now);
    }

    /**
     * Sets the order's place in the poll from its checkouts that are neither resolved nor past
     * their watch at $now: due at the earliest time one of them becomes due (PollPolicy::dueAt()),
     * watched until the latest watch deadline, ordered by the least recent check. An order with nothing left to watch leaves the poll. For an order with one
     * checkout the three numbers select exactly what the policy selects; with several, the order is
     * due when one of them is, and the poll reads them all.
     */
    public function refreshPollIndex(\WC_Order $order, int $now): void
    {
        $due = null;
        $until = null;
        $checked = null;
        foreach ($this->checkouts($order) as $checkout) {
            if (!$checkout->isWatched($now)) {
                continue;
            }
            $dueAt = $this->policy->dueAt($checkout, $now);
            if ($dueAt > $checkout->watchUntil) {
                continue;
            }
            $due = $due === null ? $dueAt : min($due, $dueAt);
            $until = $until === null ? $checkout->watchUntil : max($until, $checkout->watchUntil);
            $checked = $checked === null ? (int) $checkout->checkedAt : min($checked, (int) $checkout->checkedAt);
        }
        $index = $due === null ? [] : [self::POLL_DUE => (string) $due, self::POLL_UNTIL => (string) $until, self::POLL_CHECKED => (string) $checked];
        $changed = false;
        foreach ([self::POLL_DUE, self::POLL_UNTIL, self::POLL_CHECKED] as $key) {
            $current = (string) $order->get_meta($key);
            if (!isset($index[$key])) {
                if ($order->meta_exists($key)) {
                    $order->delete_meta_data($key);
                    $changed = true;
                }
            } elseif ($current !== $index[$key]) {
                $order->update_meta_data($key, $index[$key]);
                $changed = true;
            }
        }
        if ($changed) {
            $order->save();
        }
    }

    /**
     * The checkouts' terms: the list, or the previous version's one checkout.
     *
     * @return list<array<string, mixed>>
     */
    private function termRows(\WC_Order $order): array
    {
        $list = json_decode((string) $order->get_meta(self::CHECKOUTS), true);
        if (is_array($list)) {
            return array_values(array_filter($list, 'is_array'));
        }
        $code = strtolower((string) $order->get_meta(self::CODE));
        if ($code === '') {
            return [];
        }
        $row = ['transaction_code' => $code, 'created_at' => $this->createdAt($order)];
        foreach (self::LEGACY as $field => $key) {
            $value = (string) $order->get_meta($key);
            $row[$field] = $value === '' ? null : $value;
        }
        return [$row];
    }

    private function createdAt(\WC_Order $order): int
    {
        $created = $order->get_date_created();
        return $created instanceof \DateTimeInterface ? $created->getTimestamp() : 0;
    }

    /**
     * @param array<string, mixed> $row
     * @param list<string> $fields
     * @return array<string, mixed>
     */
    private static function fields(array $row, array $fields): array
    {
        return array_intersect_key($row, array_flip($fields));
    }

    /** @return array<string, mixed> */
    private static function readJson(\WC_Order $order, string $key): array
    {
        $value = json_decode((string) $order->get_meta($key), true);
        return is_array($value) ? $value : [];
    }

    /** @param array<string, mixed> $value */
    private function putJson(\WC_Order $order, string $key, array $value): void
    {
        $order->update_meta_data($key, self::json($value));
    }

    /** @param array<int|string, mixed> $value */
    private static function json(array $value): string
    {
        return (string) wp_json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    }
}
