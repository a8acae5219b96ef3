<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\ClientFactory;
use CryptoCheckout\WooCommerce\Plugin;
use CryptoCheckout\WooCommerce\Helper\Logger;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\WooCommerce\Vendor\Client\Money;
use CryptoCheckout\WooCommerce\Vendor\Client\Reconciler;

/**
 * Creates the service checkout for an order, or reuses the one the order already has: a buyer who
 * clicks "Place order" twice, or comes back from the payment page and tries again, pays one
 * transaction.
 */
final class CheckoutStarter
{
    private Logger $logger;

    public function __construct(Logger $logger)
    {
        $this->logger = $logger;
    }

    /**
     * @param array{service_url: string, wallet_address: string, wallet_currency: string, wallet_network: string} $config
     * @return string the checkout URL to send the buyer to
     * @throws CryptoCheckoutException when the service refuses or cannot be reached
     */
    public function start(\WC_Order $order, array $config, string $successUrl, string $cancelUrl): string
    {
        $currency = (string) $order->get_currency();
        $fiatAmount = Money::normalizeFiatAmount((string) $order->get_total(), $currency);

        $reused = $this->reusable($order, $config, $fiatAmount, $currency, $successUrl);
        if ($reused !== null) {
            $this->logger->debug(sprintf('Order %d: reusing open transaction %s.', $order->get_id(), OrderData::transactionCode($order)));
            return $reused;
        }

        $client = ClientFactory::forOrigin($config['service_url']);
        $created = $client->createCheckout([
            'fiat_amount' => $fiatAmount,
            'fiat_currency' => $currency,
            'external_reference' => (string) $order->get_id(),
            'webhook_url' => Plugin::webhookUrl(),
            'success_url' => $successUrl,
            'cancel_url' => $cancelUrl,
            'customer' => [
                'wallet_address' => $config['wallet_address'],
                'crypto_currency' => $config['wallet_currency'],
                'crypto_currency_network' => $config['wallet_network'],
            ],
        ]);

        $previous = OrderData::transactionCode($order);
        $expiresAt = strtotime((string) ($created['expires_at'] ?? ''));
        $expiresAt = $expiresAt === false ? time() + HOUR_IN_SECONDS : $expiresAt;

        $order->update_meta_data(OrderData::TRANSACTION_CODE, (string) $created['transaction_code']);
        $order->update_meta_data(OrderData::CHECKOUT_URL, (string) $created['checkout_url']);
        $order->update_meta_data(OrderData::AMOUNT_IN_USD, Money::parseDecimal($created['amount_in_usd'], 'USD amount'));
        $order->update_meta_data(OrderData::FIAT_AMOUNT, $fiatAmount);
        $order->update_meta_data(OrderData::FIAT_CURRENCY, $currency);
        $order->update_meta_data(OrderData::WALLET_ADDRESS, $config['wallet_address']);
        $order->update_meta_data(OrderData::WALLET_CURRENCY, $config['wallet_currency']);
        $order->update_meta_data(OrderData::WALLET_NETWORK, $config['wallet_network']);
        $order->update_meta_data(OrderData::SERVICE_URL, $config['service_url']);
        $order->update_meta_data(OrderData::EXPIRES_AT, (string) $expiresAt);
        $order->update_meta_data(OrderData::POLL_UNTIL, (string) ($expiresAt + OrderData::LATE_WINDOW_SECONDS));
        $order->delete_meta_data(OrderData::HOLD_REASON);
        $order->set_transaction_id((string) $created['transaction_code']);
        $order->add_order_note(sprintf(
            /* translators: 1: transaction code, 2: USD amount, 3: replaced transaction code or empty */
            __('Crypto Checkout: transaction %1$s created for %2$s USD; awaiting payment.%3$s', 'cryptocheckout-for-woocommerce'),
            (string) $created['transaction_code'],
            Money::parseDecimal($created['amount_in_usd'], 'USD amount'),
            $previous === '' ? '' : ' ' . sprintf(
                /* translators: %s: transaction code */
                __('It replaces transaction %s, which can no longer be paid.', 'cryptocheckout-for-woocommerce'),
                $previous
            )
        ));
        $order->save();

        // Hold the goods while the buyer pays; WooCommerce gives them back if the order is cancelled.
        if (function_exists('wc_maybe_reduce_stock_levels')) {
            wc_maybe_reduce_stock_levels($order->get_id());
        }
        $this->logger->info(sprintf('Order %d: transaction %s created (%s %s).', $order->get_id(), (string) $created['transaction_code'], $fiatAmount, $currency));
        return (string) $created['checkout_url'];
    }

    /**
     * The checkout URL of the order's transaction when it can still be paid and still describes this
     * order (the order-received URL when it is already paid); null when a new checkout is needed.
     *
     * @param array{service_url: string, wallet_address: string, wallet_currency: string, wallet_network: string} $config
     * @throws CryptoCheckoutException
     */
    private function reusable(\WC_Order $order, array $config, string $fiatAmount, string $currency, string $successUrl): ?string
    {
        $code = OrderData::transactionCode($order);
        $url = (string) $order->get_meta(OrderData::CHECKOUT_URL);
        if ($code === '' || $url === '' || (string) $order->get_meta(OrderData::SERVICE_URL) !== $config['service_url']) {
            return null;
        }
        $stored = OrderData::storedForReconciler($order);
        if ($stored['fiat_amount'] !== $fiatAmount || $stored['fiat_currency'] !== $currency
            || $stored['wallet_address'] !== $config['wallet_address'] || $stored['wallet_network'] !== $config['wallet_network']
            || $stored['wallet_currency'] !== $config['wallet_currency']) {
            return null;
        }
        $lookup = ClientFactory::forOrigin($config['service_url'])->getTransaction($code);
        if (Reconciler::decide($stored, $lookup)['action'] === 'reject_mismatch') {
            return null;
        }
        if ($lookup['status'] === 'settled') {
            // Already paid: the order-received page brings the order up to date.
            return $successUrl;
        }
        return in_array($lookup['status'], ['pending', 'processing', 'underpaid'], true) ? $url : null;
    }
}
