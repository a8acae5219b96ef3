<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\StatusWidgetMarkup;
use CryptoCheckout\Whmcs\Vendor\Client\Money;

/**
 * The invoice page's pay button (_link) and the payment status box under it. Rendering never
 * creates a checkout: the pay endpoint does, when the client presses the button. A client back on
 * the invoice is a moment to check its checkouts with the service, so the box starts current.
 */
final class PayButton
{
    private function __construct()
    {
    }

    /** @param array<string, mixed> $params the _link parameters */
    public static function render(array $params): string
    {
        $gateway = new Gateway($params);
        $settings = $gateway->settings;
        if (!$settings->isUsable()) {
            return '<p class="cryptocheckout-unavailable">Crypto payments are not available right now. Please choose another payment method or contact us.</p>';
        }

        $invoiceId = (int) ($params['invoiceid'] ?? 0);
        $currency = strtoupper((string) ($params['currency'] ?? ''));
        $baseCurrency = strtoupper((string) ($params['basecurrency'] ?? $currency));
        try {
            // What the client pays: WHMCS's amount, converted with "Convert To For Processing",
            // which WHMCS gives with two decimals whatever the currency has (2680.50 JPY).
            $amount = Money::roundFiatAmount($params['amount'] ?? '', $currency);
        } catch (MoneyException $error) {
            return '<p class="cryptocheckout-unavailable">' . Html::escape(sprintf(
                'Crypto payments cannot be taken in %s. Please choose another payment method.',
                $currency
            )) . '</p>';
        }
        try {
            // What the invoice is credited, in its own currency, which the service need not take.
            $baseAmount = Money::parseDecimal($params['basecurrencyamount'] ?? $params['amount'] ?? '');
        } catch (MoneyException $error) {
            return '<p class="cryptocheckout-unavailable">Crypto payments are not available for this invoice. Please choose another payment method.</p>';
        }

        try {
            $gateway->runner()->runForBuyer((string) $invoiceId);
        } catch (\Exception $error) {
            // The page shows what is known; the status box and the cron check again.
            $gateway->port()->log('warning', 'Checking the invoice for its page failed: ' . $error->getMessage(), ['order' => (string) $invoiceId]);
        }
        $status = $gateway->buyerStatus($invoiceId);
        $statusUrl = $settings->callbackUrl() . '?' . http_build_query([
            'action' => 'status',
            'invoice' => $invoiceId,
            'token' => $gateway->tokens()->sign('status', [(string) $invoiceId]),
        ]);
        $issued = (string) time();
        $fields = [
            'invoiceid' => (string) $invoiceId,
            'amount' => $amount,
            'currency' => $currency,
            'base_amount' => $baseAmount,
            'base_currency' => $baseCurrency,
            'issued' => $issued,
            'token' => $gateway->tokens()->sign('pay', [(string) $invoiceId, $amount, $currency, $baseAmount, $baseCurrency, $issued]),
        ];
        $label = $status['checkout_url'] !== null ? 'Continue payment' : (string) ($params['langpaynow'] ?? 'Pay Now');

        $html = '<div class="cryptocheckout" data-cryptocheckout>';
        $html .= sprintf(
            '<form method="post" action="%s" data-cryptocheckout-pay data-mode="%s">',
            Html::escape($settings->callbackUrl() . '?action=pay'),
            Html::escape($settings->displayMode)
        );
        foreach ($fields as $name => $value) {
            $html .= sprintf('<input type="hidden" name="%s" value="%s">', Html::escape($name), Html::escape($value));
        }
        $html .= sprintf('<button type="submit" class="btn btn-success">%s</button>', Html::escape($label));
        $html .= '</form>';
        $html .= StatusWidgetMarkup::render($status, $statusUrl);
        $html .= '</div>';
        $html .= sprintf(
            '<script src="%s" defer></script>',
            Html::escape($settings->systemUrl . 'modules/gateways/' . Settings::GATEWAY . '/assets/invoice.js')
        );
        return $html;
    }
}
