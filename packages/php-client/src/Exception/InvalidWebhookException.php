<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * A webhook body that is not a transaction.settled event of the documented shape. getField() names
 * the first offending field, or "" when the body itself is not a JSON object.
 */
final class InvalidWebhookException extends FieldException
{
}
