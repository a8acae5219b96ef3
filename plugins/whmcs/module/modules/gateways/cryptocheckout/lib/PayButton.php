<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Money;

/**
 * The invoice page's pay button (_link). It only renders: the checkout is created when the buyer
 * presses the button, by the module's pay endpoint, never on a page view.
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
        if ($settings->problems() !== []) {
            return '<p class="cryptocheckout-unavailable">Crypto payments are not available right now. Please choose another payment method or contact us.</p>';
        }

        $invoiceId = (int) ($params['invoiceid'] ?? 0);
        $currency = strtoupper((string) ($params['currency'] ?? ''));
        $baseCurrency = strtoupper((string) ($params['basecurrency'] ?? $currency));
        try {
            $amount = Money::normalizeFiatAmount((string) ($params['amount'] ?? ''), $currency);
            $baseAmount = Money::normalizeFiatAmount((string) ($params['basecurrencyamount'] ?? $params['amount'] ?? ''), $baseCurrency);
        } catch (MoneyException $error) {
            return '<p class="cryptocheckout-unavailable">' . Html::escape(sprintf(
                'Crypto payments cannot be taken in %s. Please choose another payment method.',
                $currency
            )) . '</p>';
        }

        $issued = (string) time();
        $payToken = $gateway->tokens()->sign('pay', [(string) $invoiceId, $amount, $currency, $baseAmount, $baseCurrency, $issued]);
        $statusUrl = $settings->callbackUrl() . '?' . http_build_query([
            'action' => 'status',
            'invoice' => $invoiceId,
            'token' => $gateway->tokens()->sign('status', [(string) $invoiceId]),
        ]);

        $latest = $gateway->store()->latestForInvoice($invoiceId);
        $state = $latest === null ? '' : (string) $latest->state;
        $label = (string) ($params['langpaynow'] ?? 'Pay Now');
        if (in_array($state, TransactionStore::OPEN_STATES, true)) {
            $label = 'Continue payment';
        }

        $html = '<div class="cryptocheckout" data-cryptocheckout>';
        $html .= sprintf(
            '<form method="post" action="%s" data-cryptocheckout-pay data-mode="%s">',
            Html::escape($settings->callbackUrl() . '?action=pay'),
            Html::escape($settings->displayMode)
        );
        $fields = [
            'invoiceid' => (string) $invoiceId,
            'amount' => $amount,
            'currency' => $currency,
            'base_amount' => $baseAmount,
            'base_currency' => $baseCurrency,
            'issued' => $issued,
            'token' => $payToken,
        ];
        foreach ($fields as $name => $value) {
            $html .= sprintf('<input type="hidden" name="%s" value="%s">', Html::escape($name), Html::escape($value));
        }
        $html .= sprintf(
            '<button type="submit" class="btn btn-success">%s</button>',
            Html::escape($label)
        );
        $html .= '</form>';
        $html .= sprintf(
            '<p class="cryptocheckout-status" data-cryptocheckout-status data-status-url="%s" data-state="%s" aria-live="polite">%s</p>',
            Html::escape($statusUrl),
            Html::escape($state),
            Html::escape(StatusMessages::forState($state))
        );
        $html .= '</div>';
        $html .= sprintf(
            '<script src="%s" defer></script>',
            Html::escape($settings->systemUrl . 'modules/gateways/' . Settings::GATEWAY . '/assets/invoice.js')
        );
        return $html;
    }
}
