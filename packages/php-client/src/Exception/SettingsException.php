<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * A setting the merchant entered that cannot be used; the message names the field and the fix,
 * getField() its SettingsRules key.
 */
final class SettingsException extends FieldException
{
}
