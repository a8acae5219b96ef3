<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

/** What the buyer reads on the invoice for each checkout state. */
final class StatusMessages
{
    private function __construct()
    {
    }

    public static function forState(string $state): string
    {
        switch ($state) {
            case 'awaiting_payment':
                return 'Waiting for your payment. This page updates by itself once it arrives.';
            case 'underpaid':
                return 'Part of the payment arrived. Press "Continue payment" to send the rest, or contact us.';
            case 'paid':
                return 'Payment received. Thank you!';
            case 'cancelled':
                return 'The previous payment window expired. Press the button to start a new one.';
            case 'late_payment_review':
                return 'We received a payment that needs a manual check. We will contact you shortly.';
            default:
                return '';
        }
    }

    /** True when polling can stop: the invoice is settled, or only the buyer or the admin can move it on. */
    public static function isTerminal(string $state, string $invoiceStatus): bool
    {
        return $invoiceStatus !== 'Unpaid' || !in_array($state, ['awaiting_payment', 'underpaid'], true);
    }
}
