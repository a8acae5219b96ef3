<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Validation;

/**
 * A value that does not have the documented shape; callers turn it into their public exception.
 *
 * @internal
 */
final class ShapeMismatch extends \UnexpectedValueException
{
    private string $field;

    public function __construct(string $field, string $message)
    {
        parent::__construct($message);
        $this->field = $field;
    }

    /** Dotted path of the offending value ("payments.0.tx_id"); "" for the value itself. */
    public function getField(): string
    {
        return $this->field;
    }
}
