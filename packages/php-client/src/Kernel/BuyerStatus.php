<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * What the buyer's page shows about the payment: one JSON shape for every platform, read by the
 * status widget of @cryptocheckout/core (browser). The platform translates the message.
 *
 *   {"state": OrderState::*, "message": string, "terminal": bool, "checkout_url": string|null}
 *
 * checkout_url is given only when paying is actually possible: the order is open and its newest
 * checkout can still be paid (not expired, not resolved). A part-paid order whose checkout has
 * expired is told that the shop will be in touch, not offered a page that says "expired".
 *
 * Nothing that can still change is terminal (the widget stops polling on terminal): while a
 * payment the service has seen or settled is not yet booked on the order, the buyer reads
 * "payment received, confirming", with no payment page to pay again, and the page keeps polling.
 */
final class BuyerStatus
{
    public const MESSAGES = [
        'paid' => 'Payment received. Thank you!',
        'awaiting_payment' => 'Waiting for your payment. This page updates by itself.',
        'awaiting_payment_closed' => 'The payment window has closed. Start a new payment, or contact the shop if you already paid.',
        'confirming' => 'Payment received. Confirming it with the shop; this page updates by itself.',
        'underpaid' => 'Part of the payment has arrived. Pay the rest on the payment page.',
        'underpaid_closed' => 'Part of the payment has arrived, but the payment window has closed. The shop will contact you about the rest.',
        'late_payment_review' => 'Your payment arrived after the payment window closed. The shop will review it and contact you.',
        'cancelled' => 'The payment window has closed and the order was cancelled. If you paid, the shop will contact you.',
    ];

    private function __construct()
    {
    }

    /**
     * @param list<StoredCheckout> $checkouts the order's checkouts, newest first
     * @param callable(string, array<string, string>): string|null $translate
     * @param string|null $unrecordedStatus what the service just reported when this request could not
     *     record it (another request holds the order while it books the payment)
     * @return array{state: string, message: string, terminal: bool, checkout_url: string|null}
     */
    public static function of(string $orderState, array $checkouts, int $now, ?callable $translate = null, ?string $unrecordedStatus = null): array
    {
        $newest = $checkouts[0] ?? null;
        $open = in_array($orderState, OrderState::OPEN, true);
        $confirming = $open && (in_array($unrecordedStatus, ['processing', 'settled'], true) || self::isConfirming($checkouts, $now));
        $payable = $open && !$confirming && $newest !== null && $newest->isPayable($now);
        $key = $orderState;
        if ($confirming) {
            $key = 'confirming';
        } elseif ($open && !$payable) {
            $key = $orderState . '_closed';
        }
        $message = self::MESSAGES[$key] ?? self::MESSAGES['awaiting_payment'];
        return [
            'state' => $orderState,
            'message' => $translate === null ? $message : (string) $translate($message, []),
            // Polling stops only when nothing more can happen without the buyer or the shop.
            'terminal' => !$payable && !$confirming,
            'checkout_url' => $payable && $newest->checkoutUrl !== '' ? $newest->checkoutUrl : null,
        ];
    }

    /**
     * True, on an open order, while a payment is on its way to being booked: a checkout the service
     * reports being confirmed on chain, or settled with no decision taken on it yet, or one whose
     * payment was booked just now although the order shows unpaid (a save undid it; the next run
     * repairs it). A booking a poll confirmed is over: an order reopened since is the shop's.
     *
     * @param list<StoredCheckout> $checkouts
     */
    private static function isConfirming(array $checkouts, int $now): bool
    {
        foreach ($checkouts as $checkout) {
            if ($checkout->awaitsConfirmation($now)) {
                return true;
            }
            if ($checkout->resolution !== null) {
                continue;
            }
            if ($checkout->lastStatus === 'processing' || ($checkout->lastStatus === 'settled' && $checkout->appliedAction === null)) {
                return true;
            }
        }
        return false;
    }
}
