<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

/**
 * Base of every exception the client throws, so a caller can catch them all in one place.
 */
class CryptoCheckoutException extends \RuntimeException
{
}
