<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

/**
 * What the buyer is told about an order's payment, shared by the order-received page and the
 * status endpoint its script polls.
 */
final class OrderStatus
{
    private function __construct()
    {
    }

    /**
     * @return array{state: string, message: string, terminal: bool, checkout_url: string|null}
     */
    public static function forBuyer(\WC_Order $order): array
    {
        $state = OrderData::orderState($order);
        $checkoutUrl = (string) $order->get_meta(OrderData::CHECKOUT_URL);
        switch ($state) {
            case 'paid':
                $message = __('Payment received. Thank you!', 'cryptocheckout-for-woocommerce');
                break;
            case 'underpaid':
                $message = __('Part of the payment has arrived. Pay the rest on the payment page, or the shop will contact you.', 'cryptocheckout-for-woocommerce');
                break;
            case 'late_payment_review':
                $message = __('Your payment arrived after the payment window closed. The shop will review it and contact you.', 'cryptocheckout-for-woocommerce');
                break;
            case 'cancelled':
                $message = __('The payment window has closed and the order was cancelled. If you paid, the shop will contact you.', 'cryptocheckout-for-woocommerce');
                break;
            default:
                $message = __('Waiting for your payment. This page updates by itself.', 'cryptocheckout-for-woocommerce');
        }
        $open = $state === 'awaiting_payment' || $state === 'underpaid';
        return [
            'state' => $state,
            'message' => $message,
            'terminal' => !$open,
            'checkout_url' => $open && $checkoutUrl !== '' ? $checkoutUrl : null,
        ];
    }
}
