<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * The service answered with its error envelope: {"status":"error","error":{"code","message","field"?}}.
 */
final class ApiException extends CryptoCheckoutException
{
    private string $errorCode;
    private int $httpStatus;
    private ?string $field;

    public function __construct(string $errorCode, string $message, int $httpStatus, ?string $field = null)
    {
        parent::__construct($message);
        $this->errorCode = $errorCode;
        $this->httpStatus = $httpStatus;
        $this->field = $field;
    }

    /** Stable error code such as "invalid_request" or "not_found"; branch on this, never on the message. */
    public function getErrorCode(): string
    {
        return $this->errorCode;
    }

    public function getHttpStatus(): int
    {
        return $this->httpStatus;
    }

    /** Dotted path of the offending input ("customer.wallet_address"), when the service named one. */
    public function getField(): ?string
    {
        return $this->field;
    }
}
