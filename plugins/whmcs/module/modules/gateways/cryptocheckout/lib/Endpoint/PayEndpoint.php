<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs\Endpoint;

use CryptoCheckout\Whmcs\Gateway;
use CryptoCheckout\Whmcs\HttpResponse;
use CryptoCheckout\Whmcs\Tokens;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\ApiException;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\Whmcs\Vendor\Client\Money;

/**
 * The pay button's target. WHMCS's part: the signed button (the amount and currency WHMCS rendered
 * it with, converted when the gateway has "Convert To For Processing"), only Unpaid invoices, and
 * only while the balance is what the button was rendered for. The kernel's CheckoutOpener then
 * brings the invoice up to date with its checkouts (one paid meanwhile pays the invoice) and
 * reuses the open checkout or creates one.
 */
final class PayEndpoint
{
    private Gateway $gateway;

    public function __construct(Gateway $gateway)
    {
        $this->gateway = $gateway;
    }

    /** @param array<string, mixed> $form */
    public function handle(string $method, array $form, string $accept): HttpResponse
    {
        $wantsJson = stripos($accept, 'application/json') !== false;
        $invoiceId = (int) self::field($form, 'invoiceid');
        $settings = $this->gateway->settings;
        $invoiceUrl = $settings->invoiceUrl($invoiceId);
        $fail = static function (int $status, string $message) use ($wantsJson, $invoiceUrl): HttpResponse {
            return $wantsJson
                ? HttpResponse::json($status, ['error' => $message, 'invoice_url' => $invoiceUrl])
                : HttpResponse::page($status, $message, $invoiceUrl);
        };

        if ($method !== 'POST') {
            return $fail(405, 'Use the Pay button on the invoice.');
        }
        if (!$settings->isUsable()) {
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

        $invoice = $this->gateway->ledger()->invoice($invoiceId);
        if ($invoice === null) {
            return $fail(404, sprintf('Invoice #%d does not exist.', $invoiceId));
        }
        if (($invoice['status'] ?? '') !== 'Unpaid') {
            return $fail(409, sprintf('Invoice #%d is %s; there is nothing to pay.', $invoiceId, (string) $invoice['status']));
        }
        try {
            // In the invoice's own currency, which the service need not take (Convert To For Processing).
            $balanceChanged = Money::compare((string) $invoice['balance'], $baseAmount) !== 0;
        } catch (MoneyException $error) {
            $balanceChanged = true;
        }
        if ($balanceChanged) {
            return $fail(409, 'The invoice has changed since this page was loaded. Reload the invoice and press the button again.');
        }
        $port = $this->gateway->port();
        if ($port->orderState((string) $invoiceId) === OrderState::LATE_PAYMENT_REVIEW) {
            return $fail(409, 'A payment for this invoice is being reviewed. Please contact us before paying again.');
        }

        $port->bookAs((string) $invoiceId, $baseAmount, $baseCurrency);
        try {
            $opened = $this->gateway->opener()->open((string) $invoiceId, [
                'fiat_amount' => $amount,
                'fiat_currency' => $currency,
                'external_reference' => self::invoiceReference($invoiceId, $invoice),
                'service_url' => $settings->serviceUrl,
                'wallet_address' => $settings->walletAddress,
                'wallet_currency' => $settings->asset,
                'wallet_network' => $settings->network,
                'webhook_url' => $settings->callbackUrl(),
                'success_url' => $invoiceUrl,
                'cancel_url' => $invoiceUrl,
            ]);
        } catch (ApiException $error) {
            $this->gateway->ledger()->log('Checkout refused', ['invoice' => $invoiceId, 'code' => $error->getErrorCode(), 'field' => (string) $error->getField(), 'message' => $error->getMessage()]);
            return $fail(502, 'The payment could not be started: ' . $error->getMessage());
        } catch (CryptoCheckoutException $error) {
            $this->gateway->ledger()->log('Checkout failed', ['invoice' => $invoiceId, 'message' => $error->getMessage()]);
            return $fail(502, 'The payment service cannot be reached right now. Please try again in a minute.');
        }

        switch ($opened['result']) {
            case CheckoutOpener::RESULT_PAID:
                return $wantsJson ? HttpResponse::json(200, ['invoice_url' => $invoiceUrl, 'paid' => true]) : HttpResponse::redirect($invoiceUrl);
            case CheckoutOpener::RESULT_HELD:
                return $fail(409, 'Part of the payment for this invoice has arrived and its payment window has closed. Please contact us to settle the rest.');
            case CheckoutOpener::RESULT_BUSY:
                return $fail(409, 'This invoice is already being prepared for payment. Please wait a moment and press the button again.');
        }
        $checkout = $opened['checkout'];
        return $wantsJson
            ? HttpResponse::json(200, [
                'checkout_url' => $checkout->checkoutUrl,
                'transaction_code' => $checkout->transactionCode,
                'mode' => $settings->displayMode,
                'invoice_url' => $invoiceUrl,
            ])
            : HttpResponse::redirect($checkout->checkoutUrl);
    }

    /**
     * What the payment page shows the client: the invoice number printed on the invoice, which is
     * the custom number when WHMCS numbers paid invoices sequentially, else the invoice id.
     *
     * @param array<string, mixed> $invoice GetInvoice's answer
     */
    private static function invoiceReference(int $invoiceId, array $invoice): string
    {
        $number = trim((string) ($invoice['invoicenum'] ?? ''));
        return 'Invoice #' . ($number !== '' ? $number : (string) $invoiceId);
    }

    /** @param array<string, mixed> $form */
    private static function field(array $form, string $name): string
    {
        $value = $form[$name] ?? '';
        return is_string($value) ? trim($value) : '';
    }
}
