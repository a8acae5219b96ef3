<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\HttpReply;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\StartProblem;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\StatusWidgetMarkup;
use CryptoCheckout\Whmcs\Vendor\Client\Money;

/**
 * The invoice's pay button. render() is the _link output: the button, signed with the amounts WHMCS
 * rendered it with, and the status box (BuyerStatus; a client back on the invoice is a moment to
 * check its checkouts); it never creates a checkout. press() is its target (callback ?action=pay):
 * an Unpaid invoice whose balance is still what the button showed is opened by the kernel, which
 * reuses the open checkout or creates one, or says why not (StartProblem). The page's script asks
 * for JSON (the service's envelope); a browser without it gets a redirect or a plain page.
 */
final class PayButton
{
    /** How long a rendered pay button stays usable. */
    public const TOKEN_SECONDS = 86400;

    /** The fields the button's token signs, in order. */
    private const SIGNED = ['invoiceid', 'amount', 'currency', 'base_amount', 'base_currency', 'issued'];

    /** The status box before the invoice has a checkout: nothing to report yet, rather than "closed". */
    private const NO_CHECKOUT_YET = ['state' => OrderState::AWAITING_PAYMENT, 'message' => '', 'terminal' => true, 'checkout_url' => null];

    /** @param array<string, mixed> $params the _link parameters */
    public static function render(array $params): string
    {
        $gateway = new Gateway($params);
        $settings = $gateway->settings;
        $unavailable = '<p class="cryptocheckout-unavailable">%s</p>';
        if ($settings->errors !== []) {
            return sprintf($unavailable, 'Crypto payments are not available right now. Please choose another payment method or contact us.');
        }
        $invoiceId = (int) ($params['invoiceid'] ?? 0);
        $currency = strtoupper((string) ($params['currency'] ?? ''));
        try {
            // What the client pays: WHMCS's amount, converted with "Convert To For Processing",
            // which WHMCS gives with two decimals whatever the currency has (2680.50 JPY).
            $amount = Money::roundFiatAmount($params['amount'] ?? '', $currency);
            // What the invoice is credited, in its own currency, which the service need not take.
            $baseAmount = Money::parseDecimal($params['basecurrencyamount'] ?? $params['amount'] ?? '');
        } catch (MoneyException $error) {
            return sprintf($unavailable, HttpResponse::escape(sprintf('Crypto payments cannot be taken in %s. Please choose another payment method.', $currency)));
        }
        try {
            $status = $gateway->kernel()->buyerStatus((string) $invoiceId) ?? self::NO_CHECKOUT_YET;
            $statusToken = $gateway->sign('status', [(string) $invoiceId]);
        } catch (\RuntimeException $failed) {
            // The database failed, or the first use after an upgrade did (Upgrade logged why).
            return sprintf($unavailable, 'Crypto payments are not available right now. Please try again in a minute or choose another payment method.');
        }
        $statusUrl = $settings->callbackUrl() . '?action=status&invoice=' . $invoiceId . '&token=' . $statusToken;
        $html = '<div class="cryptocheckout" data-cryptocheckout data-mode="' . HttpResponse::escape($settings->displayMode) . '">';
        // The button continues the open checkout, or starts one when none can be paid and nothing
        // is on its way (no button while a payment is being confirmed, held or reviewed).
        if ($status['checkout_url'] !== null || ($status['terminal'] && $status['state'] === OrderState::AWAITING_PAYMENT)) {
            $baseCurrency = strtoupper((string) ($params['basecurrency'] ?? $currency));
            $fields = array_combine(self::SIGNED, [(string) $invoiceId, $amount, $currency, $baseAmount, $baseCurrency, (string) time()]);
            $fields['token'] = $gateway->sign('pay', array_values($fields));
            $html .= '<form method="post" action="' . HttpResponse::escape($settings->callbackUrl() . '?action=pay') . '" data-cryptocheckout-pay>';
            foreach ($fields as $name => $value) {
                $html .= '<input type="hidden" name="' . HttpResponse::escape($name) . '" value="' . HttpResponse::escape($value) . '">';
            }
            $label = $status['checkout_url'] !== null ? 'Continue payment' : (string) ($params['langpaynow'] ?? 'Pay Now');
            $html .= '<button type="submit" class="btn btn-success">' . HttpResponse::escape($label) . '</button></form>';
        }
        return $html . StatusWidgetMarkup::render($status, $statusUrl) . '</div>'
            . '<script src="' . HttpResponse::escape($settings->systemUrl . 'modules/gateways/' . Settings::GATEWAY . '/assets/invoice.js') . '" defer></script>';
    }

    /** @param array<string, mixed> $form the posted button */
    public static function press(Gateway $gateway, string $method, array $form, string $accept): HttpResponse
    {
        $field = [];
        foreach ([...self::SIGNED, 'token'] as $name) {
            $field[$name] = is_string($form[$name] ?? null) ? trim($form[$name]) : '';
        }
        $invoiceId = (int) $field['invoiceid'];
        $settings = $gateway->settings;
        $invoiceUrl = $settings->invoiceUrl($invoiceId);
        $json = stripos($accept, 'application/json') !== false;
        $fail = static function (int $status, string $code, string $message) use ($json, $invoiceUrl): HttpResponse {
            return $json ? HttpResponse::fromReply(HttpReply::error($status, $code, $message)) : HttpResponse::page($status, $message, $invoiceUrl);
        };
        if ($method !== 'POST') {
            return $fail(405, 'method_not_allowed', 'Use the Pay button on the invoice.');
        }
        if ($settings->errors !== []) {
            return $fail(503, 'unavailable', 'Crypto payments are not available right now. Please choose another payment method.');
        }
        $age = time() - (int) $field['issued'];
        if (!$gateway->verify('pay', array_slice(array_values($field), 0, count(self::SIGNED)), $field['token']) || $age < -300 || $age > self::TOKEN_SECONDS) {
            return $fail(403, 'forbidden', 'This pay button is out of date. Reload the invoice and press the button again.');
        }
        $invoice = $gateway->invoices->invoice($invoiceId);
        if ($invoice === null) {
            return $fail(404, 'not_found', sprintf('Invoice #%d does not exist.', $invoiceId));
        }
        if ($invoice['status'] !== 'Unpaid') {
            return $fail(409, 'conflict', sprintf('Invoice #%d is %s; there is nothing to pay.', $invoiceId, (string) $invoice['status']));
        }
        try {
            // In the invoice's own currency, which the service need not take (Convert To For Processing).
            $balanceChanged = Money::compare((string) $invoice['balance'], $field['base_amount']) !== 0;
        } catch (MoneyException $error) {
            $balanceChanged = true;
        }
        if ($balanceChanged) {
            return $fail(409, 'conflict', 'The invoice has changed since this page was loaded. Reload the invoice and press the button again.');
        }
        $kernel = $gateway->kernel();
        if ($kernel->orderState((string) $invoiceId) === OrderState::LATE_PAYMENT_REVIEW) {
            return $fail(409, 'conflict', 'A payment for this invoice is being reviewed. Please contact us before paying again.');
        }
        // The number printed on the invoice: the custom one with sequential paid-invoice numbering.
        $number = trim((string) ($invoice['invoicenum'] ?? ''));
        try {
            $opened = $kernel->open((string) $invoiceId, [
                'fiat_amount' => $field['amount'],
                'fiat_currency' => $field['currency'],
                // What a payment books on the invoice: its own amount and currency.
                'order_amount' => $field['base_amount'],
                'order_currency' => $field['base_currency'],
                'external_reference' => 'Invoice #' . ($number !== '' ? $number : (string) $invoiceId),
                'service_url' => $settings->serviceUrl,
                'wallet_address' => $settings->walletAddress,
                'wallet_currency' => $settings->asset,
                'wallet_network' => $settings->network,
                'webhook_url' => $settings->callbackUrl(),
                'success_url' => $invoiceUrl,
                'cancel_url' => $invoiceUrl,
            ]);
        } catch (CryptoCheckoutException $error) {
            $gateway->invoices->gatewayLog('Checkout Failed', ['invoice' => $invoiceId, 'message' => StartProblem::forOwner($error)]);
            return $fail(502, StartProblem::kind($error), StartProblem::forBuyer($error));
        }
        $checkout = $opened['checkout'];
        if ($opened['result'] === CheckoutOpener::RESULT_PAID) {
            return $json ? HttpResponse::fromReply(HttpReply::success(['invoice_url' => $invoiceUrl, 'paid' => true])) : HttpResponse::redirect($invoiceUrl);
        }
        if ($checkout === null || $opened['result'] === CheckoutOpener::RESULT_HELD) {
            return $fail(409, $opened['result'], StartProblem::forBuyer($opened['result']));
        }
        return $json
            ? HttpResponse::fromReply(HttpReply::success([
                'checkout_url' => $checkout->checkoutUrl,
                'transaction_code' => $checkout->transactionCode,
                'mode' => $settings->displayMode,
                'invoice_url' => $invoiceUrl,
            ]))
            : HttpResponse::redirect($checkout->checkoutUrl);
    }
}
