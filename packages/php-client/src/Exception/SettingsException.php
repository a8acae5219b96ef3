<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/** A setting the merchant entered that cannot be used; the message names the field and the fix. */
final class SettingsException extends CryptoCheckoutException
{
    private string $field;

    public function __construct(string $field, string $message)
    {
        parent::__construct($message);
        $this->field = $field;
    }

    /** One of the SettingsRules field keys. */
    public function getField(): string
    {
        return $this->field;
    }
}
