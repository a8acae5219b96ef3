<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * A webhook body that is not a transaction.settled event of the documented shape.
 */
final class InvalidWebhookException extends CryptoCheckoutException
{
    private string $field;

    public function __construct(string $field, string $message)
    {
        parent::__construct($message);
        $this->field = $field;
    }

    /** The first offending field, or "" when the body itself is not a JSON object. */
    public function getField(): string
    {
        return $this->field;
    }
}
