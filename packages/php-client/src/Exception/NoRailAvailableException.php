<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

use CryptoCheckout\Client\Money;

/**
 * No rail of the service takes the order's amount (GET /payment_options lists none available), so
 * no checkout was created: its payment page would offer the buyer nothing to pay with. Thrown by
 * the kernel's CheckoutOpener; the platform asks the buyer to choose another payment method.
 */
final class NoRailAvailableException extends CryptoCheckoutException
{
    private string $fiatAmount;
    private string $fiatCurrency;
    private ?string $amountUsd;
    private ?string $smallestMinimumUsd;

    /**
     * @param string $fiatAmount decimal string of the order's amount
     * @param string|null $amountUsd the amount priced in USD by the service (decimal string), if it said
     * @param string|null $smallestMinimumUsd the smallest amount any rail takes, in USD (decimal string)
     */
    public function __construct(string $fiatAmount, string $fiatCurrency, ?string $amountUsd, ?string $smallestMinimumUsd)
    {
        parent::__construct(sprintf(
            'No payment option of the service takes %s %s (%s USD; the smallest rail minimum is %s USD).',
            $fiatAmount,
            $fiatCurrency,
            $amountUsd ?? '?',
            $smallestMinimumUsd ?? '?'
        ));
        $this->fiatAmount = $fiatAmount;
        $this->fiatCurrency = $fiatCurrency;
        $this->amountUsd = $amountUsd;
        $this->smallestMinimumUsd = $smallestMinimumUsd;
    }

    public function getFiatAmount(): string
    {
        return $this->fiatAmount;
    }

    public function getFiatCurrency(): string
    {
        return $this->fiatCurrency;
    }

    /** USD decimal string, or null when the service did not price the amount. */
    public function getSmallestMinimumUsd(): ?string
    {
        return $this->smallestMinimumUsd;
    }

    /** True when the amount is below every rail's minimum (rather than above every maximum). */
    public function isBelowMinimum(): bool
    {
        return $this->amountUsd !== null && $this->smallestMinimumUsd !== null
            && Money::compare($this->amountUsd, $this->smallestMinimumUsd) < 0;
    }
}
