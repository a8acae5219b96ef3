<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Order;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RefundPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RefundRecord;
use CryptoCheckout\WooCommerce\Vendor\Client\Money;
use CryptoCheckout\WooCommerce\Vendor\Client\Wallet\Networks;

/**
 * A Crypto Checkout refund on the WooCommerce order (docs/plugin-kernel.md, "Refunds"). WooCommerce
 * makes its own refund (WC_Order_Refund) before it asks the gateway, so each service refund belongs
 * to one WooCommerce refund, named by its reference "wc-refund-<id>". When the service says it is
 * paid, that refund's meta holds it (status paid, transaction id and link, time) and the order gets
 * one note with the chain link; a WooCommerce refund deleted meanwhile leaves the mark on the order
 * instead. The buyer gets the claim link as a customer note, which WooCommerce e-mails. Nothing here
 * changes the order's status or props: meta rows and notes only.
 */
final class WooCommerceRefundPort implements RefundPort
{
    /** The reference a WooCommerce refund's service refund carries: this prefix and the refund's id. */
    public const REFERENCE_PREFIX = 'wc-refund-';

    /** On the WooCommerce refund: the service refund it started, and once paid its record. */
    public const META_REFUND_ID = '_cryptocheckout_refund_id';
    public const META_STATUS = '_cryptocheckout_refund_status';
    public const META_TX_ID = '_cryptocheckout_refund_tx_id';
    public const META_TX_URL = '_cryptocheckout_refund_tx_url';
    public const META_PAID_AT = '_cryptocheckout_refund_paid_at';
    /** On the order, when its WooCommerce refund was deleted: this prefix and the service refund id => the transaction id. */
    public const ORDER_META_PAID_PREFIX = '_cryptocheckout_refund_paid_';

    private const URL_SCHEMES = ['http', 'https'];

    public function isRefundRecorded(string $orderId, string $refundId): bool
    {
        $refund = self::wcRefundOf($orderId, $refundId, null);
        if ($refund !== null && (string) $refund->get_meta(self::META_STATUS) === RefundRecord::PAID) {
            return true;
        }
        $order = WooCommerceOrderPort::order($orderId);
        return $order !== null && (string) $order->get_meta(self::ORDER_META_PAID_PREFIX . $refundId) !== '';
    }

    /** The mark first (isRefundRecorded() is true from then on), then the one note. */
    public function recordRefundPaid(string $orderId, RefundRecord $refund): void
    {
        $order = WooCommerceOrderPort::order($orderId);
        if ($order === null) {
            throw new \RuntimeException(sprintf('Order %s does not exist.', $orderId));
        }
        $wcRefund = self::wcRefundOf($orderId, $refund->refundId, $refund->platformRefundId);
        if ($wcRefund !== null) {
            $wcRefund->update_meta_data(self::META_REFUND_ID, $refund->refundId);
            $wcRefund->update_meta_data(self::META_STATUS, RefundRecord::PAID);
            $wcRefund->update_meta_data(self::META_TX_ID, (string) $refund->txId);
            $wcRefund->update_meta_data(self::META_TX_URL, (string) $refund->txUrl);
            $wcRefund->update_meta_data(self::META_PAID_AT, (string) time());
            $wcRefund->save_meta_data();
        } else {
            $order->update_meta_data(self::ORDER_META_PAID_PREFIX . $refund->refundId, $refund->txId ?? RefundRecord::PAID);
            $order->save_meta_data();
        }
        $order->add_order_note(self::paidNote($refund, $wcRefund === null ? null : (int) $wcRefund->get_id()));
    }

    /**
     * A customer note, which WooCommerce e-mails to the billing address (and shows in the buyer's
     * account); false when the order has no billing e-mail, so the owner is told to pass it on.
     */
    public function sendClaimLink(string $orderId, RefundRecord $refund): bool
    {
        $order = WooCommerceOrderPort::order($orderId);
        if ($order === null || $refund->claimUrl === null || !is_email((string) $order->get_billing_email())) {
            return false;
        }
        $network = Networks::get($refund->network);
        $amount = $refund->amount . ' ' . $refund->asset;
        if ($refund->fiatAmount !== null && $refund->fiatCurrency !== '') {
            $amount .= ' (' . $refund->fiatAmount . ' ' . $refund->fiatCurrency . ')';
        }
        $note = sprintf(
            /* translators: 1: amount and asset (and the order currency's amount), 2: network name, 3: the claim page's address */
            __('Your refund of %1$s is ready to be paid back to you. Open this page and confirm the %2$s address where you want to receive it: %3$s — the shop sends the refund once you have confirmed it.', 'cryptocheckout-for-woocommerce'),
            $amount,
            $network === null ? $refund->network : (string) $network['name'],
            $refund->claimUrl
        );
        return (int) $order->add_order_note($note, 1) > 0;
    }

    public function refundNote(string $orderId, RefundRecord $refund, string $note): void
    {
        $order = WooCommerceOrderPort::order($orderId);
        if ($order !== null) {
            /* translators: %s: what happened to the refund (the kernel's translated sentence) */
            $order->add_order_note(sprintf(__('Crypto Checkout: %s', 'cryptocheckout-for-woocommerce'), $note));
        }
    }

    /** The reference of the service refund a WooCommerce refund starts. */
    public static function reference(int $wcRefundId): string
    {
        return self::REFERENCE_PREFIX . $wcRefundId;
    }

    /** The id of the WooCommerce refund a reference names, or null. */
    public static function wcRefundIdOf(?string $reference): ?int
    {
        return $reference !== null && preg_match('/\A' . preg_quote(self::REFERENCE_PREFIX, '/') . '([1-9]\d{0,18})\z/', $reference, $match) === 1 ? (int) $match[1] : null;
    }

    /**
     * The order's WooCommerce refunds as the database holds them now, newest first (ids from
     * wc_get_orders; each read afresh, not from the request's order cache).
     *
     * @return list<\WC_Order_Refund>
     */
    public static function wcRefunds(string $orderId): array
    {
        if (!ctype_digit($orderId)) {
            return [];
        }
        $ids = array_map('intval', (array) wc_get_orders(['type' => 'shop_order_refund', 'parent' => (int) $orderId, 'limit' => -1, 'return' => 'ids']));
        rsort($ids);
        $refunds = [];
        foreach ($ids as $id) {
            $refund = self::readRefund($id);
            if ($refund !== null) {
                $refunds[] = $refund;
            }
        }
        return $refunds;
    }

    /**
     * The WooCommerce refund WooCommerce just made for $amount (wc_create_refund saves it, then asks
     * the gateway): the order's newest, when its amount is $amount exactly; else null.
     *
     * @param mixed $amount as WooCommerce passes it (a decimal string)
     */
    public static function newestRefundOf(string $orderId, $amount): ?\WC_Order_Refund
    {
        $newest = self::wcRefunds($orderId)[0] ?? null;
        if ($newest === null || $amount === null) {
            return null;
        }
        try {
            return Money::compare(Money::parseDecimal(wc_format_decimal((string) $amount)), Money::parseDecimal(wc_format_decimal((string) $newest->get_amount()))) === 0 ? $newest : null;
        } catch (MoneyException $notAnAmount) {
            return null;
        }
    }

    /** Links the WooCommerce refund to the service refund it started (shown with the refund, and found by it). */
    public static function linkRefund(\WC_Order_Refund $wcRefund, RefundRecord $refund): void
    {
        $fresh = self::readRefund((int) $wcRefund->get_id());
        if ($fresh !== null && (string) $fresh->get_meta(self::META_REFUND_ID) !== $refund->refundId) {
            $fresh->update_meta_data(self::META_REFUND_ID, $refund->refundId);
            $fresh->save_meta_data();
        }
    }

    /**
     * The WooCommerce refund of the order that started $refundId: by its reference (given, or the
     * one the kernel's ledger holds), else by the link linkRefund() wrote; null when it is gone.
     */
    private static function wcRefundOf(string $orderId, string $refundId, ?string $reference): ?\WC_Order_Refund
    {
        if ($reference === null) {
            foreach (Kernel::get()->refunds($orderId) as $record) {
                if ($record->refundId === $refundId) {
                    $reference = $record->platformRefundId;
                }
            }
        }
        $id = self::wcRefundIdOf($reference);
        $refund = $id === null ? null : self::readRefund($id);
        if ($refund !== null && (string) $refund->get_parent_id() === $orderId) {
            return $refund;
        }
        foreach (self::wcRefunds($orderId) as $refund) {
            if ((string) $refund->get_meta(self::META_REFUND_ID) === $refundId) {
                return $refund;
            }
        }
        return null;
    }

    private static function readRefund(int $id): ?\WC_Order_Refund
    {
        try {
            return $id > 0 ? new \WC_Order_Refund($id) : null;
        } catch (\Exception $missing) {
            return null;
        }
    }

    /** The paid note, with the transaction as a link to the explorer when the service gave one. */
    private static function paidNote(RefundRecord $refund, ?int $wcRefundId): string
    {
        $amount = esc_html($refund->amount . ' ' . $refund->asset);
        if ($refund->fiatAmount !== null && $refund->fiatCurrency !== '') {
            $amount .= esc_html(' (' . $refund->fiatAmount . ' ' . $refund->fiatCurrency . ')');
        }
        $transaction = esc_html((string) $refund->txId);
        if ($refund->txUrl !== null && $refund->txUrl !== '' && esc_url($refund->txUrl, self::URL_SCHEMES) !== '') {
            $transaction = '<a href="' . esc_url($refund->txUrl, self::URL_SCHEMES) . '" target="_blank" rel="noopener noreferrer">' . $transaction . '</a>';
        }
        $note = $wcRefundId === null
            /* translators: 1: amount and asset, 2: the buyer's address, 3: the transaction (a link) */
            ? sprintf(__('Crypto Checkout: the refund of %1$s was paid to %2$s in transaction %3$s.', 'cryptocheckout-for-woocommerce'), $amount, esc_html((string) $refund->address), $transaction)
            /* translators: 1: WooCommerce refund number, 2: amount and asset, 3: the buyer's address, 4: the transaction (a link) */
            : sprintf(__('Crypto Checkout: refund #%1$d of %2$s was paid to %3$s in transaction %4$s.', 'cryptocheckout-for-woocommerce'), $wcRefundId, $amount, esc_html((string) $refund->address), $transaction);
        return $note;
    }
}
