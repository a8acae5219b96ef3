<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs\Endpoint;

use CryptoCheckout\Whmcs\Gateway;
use CryptoCheckout\Whmcs\HttpResponse;
use CryptoCheckout\Whmcs\Tokens;
use CryptoCheckout\Whmcs\TransactionStore;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\ApiException;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Money;

/**
 * The pay button's target: refuses invoices that are not Unpaid, reuses the invoice's open checkout
 * or creates one for the amount and currency WHMCS rendered the button with (converted when the
 * gateway has "Convert To For Processing"), and sends the buyer there.
 */
final class PayEndpoint
{
    /** @var Gateway */
    private $gateway;

    public function __construct(Gateway $gateway)
    {
        $this->gateway = $gateway;
    }

    /** @param array<string, mixed> $form */
    public function handle(string $method, array $form, string $accept): HttpResponse
    {
        $wantsJson = stripos($accept, 'application/json') !== false;
        $invoiceId = (int) self::field($form, 'invoiceid');
        $invoiceUrl = $this->gateway->settings->invoiceUrl($invoiceId);
        $fail = static function (int $status, string $message) use ($wantsJson, $invoiceUrl): HttpResponse {
            return $wantsJson
                ? HttpResponse::json($status, ['error' => $message, 'invoice_url' => $invoiceUrl])
                : HttpResponse::page($status, $message, $invoiceUrl);
        };

        if ($method !== 'POST') {
            return $fail(405, 'Use the Pay button on the invoice.');
        }
        if ($this->gateway->settings->problems() !== []) {
            return $fail(503, 'Crypto payments are not available right now. Please choose another payment method.');
        }

        $amount = self::field($form, 'amount');
        $currency = self::field($form, 'currency');
        $baseAmount = self::field($form, 'base_amount');
        $baseCurrency = self::field($form, 'base_currency');
        $issued = self::field($form, 'issued');
        $parts = [(string) $invoiceId, $amount, $currency, $baseAmount, $baseCurrency, $issued];
        $age = time() - (int) $issued;
        if (!$this->gateway->tokens()->verify('pay', $parts, self::field($form, 'token')) || $age < -300 || $age > Tokens::PAY_TOKEN_SECONDS) {
            return $fail(403, 'This pay button is out of date. Reload the invoice and press the button again.');
        }

        $ledger = $this->gateway->ledger();
        $invoice = $ledger->invoice($invoiceId);
        if ($invoice === null) {
            return $fail(404, sprintf('Invoice #%d does not exist.', $invoiceId));
        }
        if (($invoice['status'] ?? '') !== 'Unpaid') {
            return $fail(409, sprintf('Invoice #%d is %s; there is nothing to pay.', $invoiceId, (string) $invoice['status']));
        }
        try {
            $balanceChanged = Money::compare(Money::normalizeFiatAmount((string) $invoice['balance'], $baseCurrency), $baseAmount) !== 0;
        } catch (MoneyException $error) {
            $balanceChanged = true;
        }
        if ($balanceChanged) {
            return $fail(409, 'The invoice has changed since this page was loaded. Reload the invoice and press the button again.');
        }

        // One checkout per invoice, even when the button is pressed twice at once: the second
        // request waits for the first and then finds its checkout open.
        $store = $this->gateway->store();
        $lockName = 'pay:' . $invoiceId;
        $lock = null;
        for ($attempt = 0; $attempt < 12 && $lock === null; $attempt++) {
            $lock = $store->acquireLock($lockName, 30);
            if ($lock === null) {
                usleep(250000);
            }
        }
        if ($lock === null) {
            return $fail(409, 'This invoice is already being prepared for payment. Please wait a moment and press the button again.');
        }
        try {
            $row = $this->openCheckout($invoiceId, $amount, $currency, $heldPartial);
            if ($heldPartial) {
                return $fail(409, 'Part of the payment for this invoice arrived after the payment window closed. Please contact us to settle the rest.');
            }
            if ($row === null && !$ledger->isUnpaid($invoiceId)) {
                // The open checkout turned out to be paid: the invoice is settled now.
                return $wantsJson ? HttpResponse::json(200, ['invoice_url' => $invoiceUrl, 'paid' => true]) : HttpResponse::redirect($invoiceUrl);
            }
            if ($row === null) {
                $row = $this->createCheckout($invoiceId, $amount, $currency, $baseAmount, $baseCurrency);
            }
        } catch (ApiException $error) {
            $ledger->log('Checkout refused', ['invoice' => $invoiceId, 'code' => $error->getErrorCode(), 'field' => (string) $error->getField(), 'message' => $error->getMessage()]);
            return $fail(502, 'The payment could not be started: ' . $error->getMessage());
        } catch (CryptoCheckoutException $error) {
            $ledger->log('Checkout failed', ['invoice' => $invoiceId, 'message' => $error->getMessage()]);
            return $fail(502, 'The payment service cannot be reached right now. Please try again in a minute.');
        } finally {
            $store->releaseLock($lockName, $lock);
        }

        return $wantsJson
            ? HttpResponse::json(200, [
                'checkout_url' => (string) $row->checkout_url,
                'transaction_code' => (string) $row->transaction_code,
                'mode' => $this->gateway->settings->displayMode,
                'invoice_url' => $invoiceUrl,
            ])
            : HttpResponse::redirect((string) $row->checkout_url);
    }

    /**
     * The invoice's checkout that can still be paid, checked with the service first; null when
     * there is none (never created, expired, paid, or made for another amount or wallet).
     * $heldPartial is set when the checkout holds a partial payment but can no longer be paid:
     * starting another one would make the client pay twice.
     *
     * @return object|null
     */
    private function openCheckout(int $invoiceId, string $amount, string $currency, ?bool &$heldPartial)
    {
        $heldPartial = false;
        $store = $this->gateway->store();
        $latest = $store->latestForInvoice($invoiceId);
        if ($latest === null || !in_array((string) $latest->state, TransactionStore::OPEN_STATES, true)) {
            return null;
        }
        $result = $this->gateway->reconciliation()->run($latest);
        $state = $result['state'];
        if ($state === 'underpaid' && $result['status'] === 'expired') {
            $heldPartial = true;
            return null;
        }
        $settings = $this->gateway->settings;
        $sameOrder = (string) $latest->fiat_currency === $currency
            && Money::compare((string) $latest->fiat_amount, $amount) === 0
            && strtolower((string) $latest->wallet_address) === strtolower($settings->walletForCheckout())
            && (string) $latest->wallet_network === $settings->network
            && (string) $latest->wallet_currency === $settings->asset;
        if (!in_array($state, TransactionStore::OPEN_STATES, true) || !$sameOrder) {
            return null;
        }
        return $store->findByCode((string) $latest->transaction_code);
    }

    /** @return object the stored row */
    private function createCheckout(int $invoiceId, string $amount, string $currency, string $baseAmount, string $baseCurrency)
    {
        $settings = $this->gateway->settings;
        $wallet = $settings->walletForCheckout();
        $created = $this->gateway->client()->createCheckout([
            'fiat_amount' => $amount,
            'fiat_currency' => $currency,
            'external_reference' => 'whmcs-invoice-' . $invoiceId,
            'webhook_url' => $settings->callbackUrl(),
            'success_url' => $settings->invoiceUrl($invoiceId),
            'cancel_url' => $settings->invoiceUrl($invoiceId),
            'customer' => [
                'wallet_address' => $wallet,
                'crypto_currency' => $settings->asset,
                'crypto_currency_network' => $settings->network,
            ],
        ]);
        $code = strtolower((string) $created['transaction_code']);
        $store = $this->gateway->store();
        $store->insert([
            'invoice_id' => $invoiceId,
            'transaction_code' => $code,
            'checkout_url' => (string) $created['checkout_url'],
            'fiat_amount' => $amount,
            'fiat_currency' => $currency,
            'invoice_amount' => $baseAmount,
            'invoice_currency' => $baseCurrency,
            'wallet_address' => $wallet,
            'wallet_currency' => $settings->asset,
            'wallet_network' => $settings->network,
            'state' => 'awaiting_payment',
            'expires_at' => isset($created['expires_at']) ? (string) $created['expires_at'] : null,
        ]);
        return $store->findByCode($code);
    }

    /** @param array<string, mixed> $form */
    private static function field(array $form, string $name): string
    {
        $value = $form[$name] ?? '';
        return is_string($value) ? trim($value) : '';
    }
}
