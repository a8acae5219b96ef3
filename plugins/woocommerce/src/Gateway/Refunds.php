<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Admin\MerchantKeyField;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Order\WooCommerceRefundPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\RefundStart;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StoredCheckout;

/**
 * The gateway's refunds: WooCommerce's refund action (the order screen's "Refund … via Crypto
 * Checkout" button, the REST API's refunds with api_refund) saves a WC_Order_Refund and then calls
 * Gateway::process_refund(), which lands here. The service refund is started through the kernel in
 * the order's currency, named after that WooCommerce refund, so the same action asked again gets the
 * same service refund. Anything but a started refund is a WP_Error saying why; WooCommerce then
 * deletes its refund, so nothing is recorded as refunded.
 */
final class Refunds
{
    public const ERROR_CODE = 'cryptocheckout_refund';

    private function __construct()
    {
    }

    /**
     * Starts the refund of $amount (the order's currency) for the WooCommerce refund just made.
     *
     * @param mixed $amount as WooCommerce passes it (the WooCommerce refund's amount, a decimal string)
     * @return true|\WP_Error
     */
    public static function start(\WC_Order $order, $amount, string $reason, string $merchantKey)
    {
        $orderId = (string) $order->get_id();
        $wcRefund = WooCommerceRefundPort::newestRefundOf($orderId, $amount);
        if ($wcRefund === null) {
            Kernel::log('warning', 'A refund was asked of the gateway without a WooCommerce refund of that amount; nothing was refunded.', ['order' => $orderId, 'amount' => is_scalar($amount) ? (string) $amount : '']);
            return new \WP_Error(self::ERROR_CODE, sprintf(
                /* translators: 1: amount, 2: currency */
                __('Crypto Checkout refunds start from the order\'s Refund button: no WooCommerce refund of %1$s %2$s was found on this order. Nothing was refunded.', 'cryptocheckout-for-woocommerce'),
                is_scalar($amount) ? (string) $amount : '?',
                (string) $order->get_currency()
            ));
        }
        if (trim($merchantKey) === '') {
            Kernel::log('warning', 'A refund was asked, but no merchant key is set; nothing was refunded.', ['order' => $orderId]);
            return new \WP_Error(self::ERROR_CODE, MerchantKeyField::missingMessage());
        }
        $port = new WooCommerceRefundPort();
        $start = Kernel::get($orderId)->startRefund(
            $orderId,
            (string) $wcRefund->get_amount(),
            (string) $order->get_currency(),
            WooCommerceRefundPort::reference((int) $wcRefund->get_id()),
            $reason === '' ? null : $reason,
            $merchantKey,
            $port
        );
        if (!$start->ok || $start->refund === null) {
            // The kernel logged the service's answer. Its words for the admin; a refusal quotes the
            // service, which does not say that nothing happened. WooCommerce then deletes its refund.
            $message = $start->problem === RefundStart::REFUSED ? $start->message . ' ' . __('Nothing was refunded.', 'cryptocheckout-for-woocommerce') : $start->message;
            return new \WP_Error(self::ERROR_CODE, $message);
        }
        WooCommerceRefundPort::linkRefund($wcRefund, $start->refund);
        return true;
    }

    /** Whether the order holds a payment the service settled, so it can be refunded through it. */
    public static function canRefund(\WC_Order $order): bool
    {
        $id = (string) $order->get_id();
        foreach (Kernel::get($id)->checkouts($id) as $checkout) {
            if ($checkout->resolution === StoredCheckout::RESOLUTION_BOOKED || $checkout->lastStatus === 'settled') {
                return true;
            }
        }
        return false;
    }
}
