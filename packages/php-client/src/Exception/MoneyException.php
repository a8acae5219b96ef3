<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * An amount or currency that cannot be used as money.
 */
final class MoneyException extends CryptoCheckoutException
{
    private string $errorCode;

    public function __construct(string $errorCode, string $message)
    {
        parent::__construct($message);
        $this->errorCode = $errorCode;
    }

    /** One of invalid_amount, negative, too_precise, too_large, unsupported_currency. */
    public function getErrorCode(): string
    {
        return $this->errorCode;
    }
}
