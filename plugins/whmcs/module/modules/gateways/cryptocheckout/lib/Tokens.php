<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

/**
 * HMAC tokens that tie the pay button and the status widget to the values WHMCS rendered them
 * with, so the endpoints never trust an amount or an invoice number from the browser alone.
 */
final class Tokens
{
    /** How long a rendered pay button stays usable. */
    public const PAY_TOKEN_SECONDS = 86400;

    /** @var string */
    private $key;

    public function __construct(TransactionStore $store)
    {
        $this->key = $store->settingOnce('signing_key', bin2hex(random_bytes(32)));
    }

    /** @param array<int, string> $parts */
    public function sign(string $purpose, array $parts): string
    {
        return hash_hmac('sha256', $purpose . "\n" . implode("\n", $parts), $this->key);
    }

    /** @param array<int, string> $parts */
    public function verify(string $purpose, array $parts, string $token): bool
    {
        return $token !== '' && hash_equals($this->sign($purpose, $parts), $token);
    }
}
