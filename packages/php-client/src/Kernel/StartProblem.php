<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Exception\ApiException;
use CryptoCheckout\Client\Exception\NetworkException;
use CryptoCheckout\Client\Exception\NoRailAvailableException;
use CryptoCheckout\Client\Exception\SettlementUnavailableException;

/**
 * Why a payment could not be started (Kernel::open() threw, or gave no checkout to pay), in the
 * words every platform shows: one sentence for the buyer, English with %placeholders% through the
 * platform's translation, and one line for the owner's log and order note.
 *
 * The buyer reads one of these fixed sentences, never the service's own words: an amount outside
 * what the merchant's settlement takes (below_minimum, outside_bounds) is the buyer's order, while a
 * settlement the service does not offer right now (settlement_unavailable: a network it cannot
 * watch, a stablecoin under its floor, a wallet it refuses …) is the shop's or the service's matter,
 * whose reason only the owner reads (forOwner).
 */
final class StartProblem
{
    public const MESSAGES = [
        'unreachable' => 'The crypto payment service is not reachable right now. Your order is saved: please try again in a few minutes, or choose another payment method.',
        'below_minimum' => 'This order\'s total is below what crypto payment accepts (%amount% is too small). Please choose another payment method.',
        'outside_bounds' => 'This order cannot be paid with crypto (the amount is outside what the payment service accepts). Please choose another payment method.',
        'unavailable' => 'Crypto payment is not available for this order right now. Please choose another payment method or contact the shop.',
        'settlement_unavailable' => 'Payment in %asset% on %network% is not available right now. Please try again later or choose another payment method.',
        CheckoutOpener::RESULT_BUSY => 'The payment for this order is being prepared in another window. Please try again in a moment.',
        CheckoutOpener::RESULT_HELD => 'Part of the payment for this order has arrived and its payment window has closed. The shop will contact you to settle the rest.',
    ];

    private function __construct()
    {
    }

    /**
     * What the buyer reads when starting the payment failed.
     *
     * @param \Throwable|string $problem what open() threw, or one of its results (busy, held; closed reads as unavailable)
     * @param callable(string, array<string, string>): string|null $translate
     */
    public static function forBuyer($problem, ?callable $translate = null): string
    {
        $key = is_string($problem) ? $problem : self::kind($problem);
        $parameters = [];
        if ($problem instanceof NoRailAvailableException) {
            $parameters['%amount%'] = $problem->getFiatAmount() . ' ' . $problem->getFiatCurrency();
        }
        if ($problem instanceof SettlementUnavailableException) {
            $parameters['%asset%'] = $problem->getAsset();
            $parameters['%network%'] = $problem->getNetworkName();
        }
        $text = self::MESSAGES[$key] ?? self::MESSAGES['unavailable'];
        return $translate === null ? strtr($text, $parameters) : (string) $translate($text, $parameters);
    }

    /** unreachable, below_minimum, outside_bounds, settlement_unavailable or unavailable. */
    public static function kind(\Throwable $problem): string
    {
        if ($problem instanceof SettlementUnavailableException) {
            return 'settlement_unavailable';
        }
        if ($problem instanceof NoRailAvailableException) {
            return $problem->isBelowMinimum() ? 'below_minimum' : 'outside_bounds';
        }
        if ($problem instanceof NetworkException || ($problem instanceof ApiException && $problem->getHttpStatus() >= 500)) {
            return 'unreachable';
        }
        if ($problem instanceof ApiException && $problem->getErrorCode() === 'unprocessable') {
            return 'outside_bounds';
        }
        return 'unavailable';
    }

    /**
     * For the log and the owner's order note: the service's error code, message and field; for a
     * settlement the service does not offer, its reason.
     */
    public static function forOwner(\Throwable $problem): string
    {
        if ($problem instanceof ApiException) {
            $field = $problem->getField();
            return sprintf('%s %s%s', $problem->getErrorCode(), $problem->getMessage(), $field !== null ? ' [field ' . $field . ']' : '');
        }
        if ($problem instanceof NoRailAvailableException || $problem instanceof SettlementUnavailableException) {
            return $problem->getMessage();
        }
        return (new \ReflectionClass($problem))->getShortName() . ': ' . $problem->getMessage();
    }
}
