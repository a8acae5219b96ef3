<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Client;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\PrestaShop\Vendor\Client\Money;

/**
 * Creates the checkout of an order, once: the amount, currency and wallet are written to the
 * module table before the call, and a second attempt for the same order reuses the stored
 * checkout instead of creating another.
 */
final class CheckoutStarter
{
    /** @var \PaymentModule */
    private $module;
    /** @var TransactionRepository */
    private $repository;
    /** @var Client */
    private $client;

    public function __construct(\PaymentModule $module, TransactionRepository $repository, Client $client)
    {
        $this->module = $module;
        $this->repository = $repository;
        $this->client = $client;
    }

    /**
     * The amount of an order as the service expects it: a decimal string with exactly the
     * currency's ISO 4217 decimals ("25.00", "1500" for JPY).
     *
     * @throws CryptoCheckoutException when the currency is not one the service accepts
     */
    public static function fiatAmount(\Order $order, string $isoCode): string
    {
        $total = \Tools::ps_round((float) $order->total_paid, Money::minorUnits($isoCode));

        return Money::normalizeFiatAmount($total, $isoCode);
    }

    /**
     * @return array<string, string|null> the module table row, with transaction_code and checkout_url set
     * @throws CryptoCheckoutException when the service cannot be reached or refuses the checkout
     */
    public function start(\Order $order, \Customer $customer): array
    {
        $idOrder = (int) $order->id;
        $row = $this->repository->findByOrder($idOrder);
        if ($row !== null && (string) $row['transaction_code'] !== '') {
            Log::debug(sprintf('order %d reuses transaction %s', $idOrder, $row['transaction_code']), $idOrder);

            return $row;
        }
        if ($row === null) {
            $currency = new \Currency((int) $order->id_currency);
            $isoCode = (string) $currency->iso_code;
            $this->repository->createForOrder($idOrder, (int) $order->id_cart, self::fiatAmount($order, $isoCode), $isoCode, Settings::wallet());
            $row = $this->repository->findByOrder($idOrder);
        }

        $link = \Context::getContext()->link;
        $returnUrl = $link->getPageLink('order-confirmation', true, null, [
            'id_cart' => (int) $order->id_cart,
            'id_module' => (int) $this->module->id,
            'id_order' => $idOrder,
            'key' => $customer->secure_key,
        ]);
        $created = $this->client->createCheckout([
            'fiat_amount' => (string) $row['fiat_amount'],
            'fiat_currency' => (string) $row['fiat_currency'],
            'external_reference' => (string) $order->reference,
            'webhook_url' => $link->getModuleLink($this->module->name, 'webhook', [], true),
            'success_url' => $returnUrl,
            'cancel_url' => $returnUrl,
            'customer' => [
                'wallet_address' => (string) $row['wallet_address'],
                'crypto_currency' => (string) $row['wallet_currency'],
                'crypto_currency_network' => (string) $row['wallet_network'],
            ],
        ]);
        if ($this->repository->attachCheckout($idOrder, (string) $created['transaction_code'], (string) $created['checkout_url'])) {
            Log::debug(sprintf('order %d: checkout %s created', $idOrder, $created['transaction_code']), $idOrder);
        }

        // When two attempts raced, the checkout stored first is the order's checkout.
        return (array) $this->repository->findByOrder($idOrder);
    }
}
