<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * The service answered with something other than the documented shape: not JSON, no envelope,
 * or data whose fields are missing or of the wrong type.
 */
final class UnexpectedResponseException extends CryptoCheckoutException
{
    private int $httpStatus;
    private ?string $field;

    public function __construct(string $message, int $httpStatus, ?string $field = null, ?\Throwable $previous = null)
    {
        parent::__construct($message, 0, $previous);
        $this->httpStatus = $httpStatus;
        $this->field = $field;
    }

    public function getHttpStatus(): int
    {
        return $this->httpStatus;
    }

    /** Dotted path of the first offending field of `data` ("payments.0.tx_id"), when the shape was wrong. */
    public function getField(): ?string
    {
        return $this->field;
    }
}
