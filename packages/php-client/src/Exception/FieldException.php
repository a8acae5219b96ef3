<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/** An exception about one named input: a webhook body's field, a setting. */
abstract class FieldException extends CryptoCheckoutException
{
    private string $field;

    public function __construct(string $field, string $message)
    {
        parent::__construct($message);
        $this->field = $field;
    }

    /** The offending field; what it names is up to the subclass. */
    public function getField(): string
    {
        return $this->field;
    }
}
