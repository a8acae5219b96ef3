<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * The request got no answer: connection refused, DNS failure, TLS failure or timeout.
 */
final class NetworkException extends CryptoCheckoutException
{
    private bool $timeout;

    public function __construct(string $message, bool $timeout = false, ?\Throwable $previous = null)
    {
        parent::__construct($message, 0, $previous);
        $this->timeout = $timeout;
    }

    /** True when the time limit elapsed; the service may still have acted on the request. */
    public function isTimeout(): bool
    {
        return $this->timeout;
    }
}
