<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Plugin;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StoredCheckout;

/**
 * The order's terms for the kernel's CheckoutOpener (one checkout per order), and the order note
 * when a checkout is created. Stock is WooCommerce's, as for any off-site gateway: the checkout
 * holds it for the pending order (woocommerce_hold_stock_minutes), and WooCommerce reduces it when
 * the payment is booked or the order goes on hold, and gives it back if the order is cancelled.
 * Reducing it here as well would count the order twice while it awaits payment.
 */
final class CheckoutStarter
{
    private function __construct()
    {
    }

    /**
     * @param array{service_url: string, wallet_address: string, wallet_currency: string, wallet_network: string} $config
     * @return array{result: string, checkout: StoredCheckout|null} CheckoutOpener::open()
     * @throws CryptoCheckoutException when the service refuses or cannot be reached
     */
    public static function start(\WC_Order $order, array $config, string $successUrl, string $cancelUrl): array
    {
        $port = Kernel::port();
        $orderId = (string) $order->get_id();
        $earlier = $port->checkouts($orderId)[0] ?? null;
        $opened = Kernel::opener($port)->open($orderId, [
            'fiat_amount' => (string) $order->get_total(),
            'fiat_currency' => (string) $order->get_currency(),
            'external_reference' => $orderId,
            'service_url' => $config['service_url'],
            'wallet_address' => $config['wallet_address'],
            'wallet_currency' => $config['wallet_currency'],
            'wallet_network' => $config['wallet_network'],
            'webhook_url' => Plugin::webhookUrl(),
            'success_url' => $successUrl,
            'cancel_url' => $cancelUrl,
        ]);
        $created = $opened['checkout'];
        if ($opened['result'] !== CheckoutOpener::RESULT_CREATED || $created === null) {
            return $opened;
        }

        $note = sprintf(
            /* translators: 1: transaction code, 2: amount, 3: currency */
            __('Crypto Checkout: transaction %1$s created for %2$s %3$s; awaiting payment.', 'cryptocheckout-for-woocommerce'),
            $created->transactionCode,
            $created->fiatAmount,
            $created->fiatCurrency
        );
        if ($earlier !== null) {
            $note .= ' ' . sprintf(
                /* translators: 1: earlier transaction code, 2: its amount, 3: its currency */
                __('Transaction %1$s (%2$s %3$s) stays payable until it expires; a payment on it is put before you for review.', 'cryptocheckout-for-woocommerce'),
                $earlier->transactionCode,
                $earlier->fiatAmount,
                $earlier->fiatCurrency
            );
        }
        $order->add_order_note($note);
        return $opened;
    }
}
