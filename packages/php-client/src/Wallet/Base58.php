<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Wallet;

use CryptoCheckout\Client\Support\Text;

/**
 * Bitcoin's base58 and Base58Check (used by Bitcoin and TRON addresses), without GMP or BCMath.
 */
final class Base58
{
    // No 0, O, I or l, which are too easy to confuse.
    private const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

    private function __construct()
    {
    }

    /** The first character that cannot appear in base58 text, or null when every character can. */
    public static function firstInvalidCharacter(string $text): ?string
    {
        return Text::firstMatch($text, '[^1-9A-HJ-NP-Za-km-z]');
    }

    /**
     * Decodes base58 text to bytes; each leading "1" stands for one zero byte.
     *
     * @throws \InvalidArgumentException when $text holds a character outside the alphabet
     */
    public static function decode(string $text): string
    {
        $bytes = [];
        $length = strlen($text);
        for ($i = 0; $i < $length; $i++) {
            $carry = strpos(self::ALPHABET, $text[$i]);
            if ($carry === false) {
                throw new \InvalidArgumentException('Not base58 text.');
            }
            // Multiply the little-endian byte array by 58 and add the digit.
            foreach ($bytes as $index => $byte) {
                $carry += $byte * 58;
                $bytes[$index] = $carry & 0xFF;
                $carry >>= 8;
            }
            while ($carry > 0) {
                $bytes[] = $carry & 0xFF;
                $carry >>= 8;
            }
        }
        $leadingZeros = strspn($text, '1');
        $decoded = str_repeat("\x00", $leadingZeros);
        for ($index = count($bytes) - 1; $index >= 0; $index--) {
            $decoded .= chr($bytes[$index]);
        }
        return $decoded;
    }

    /** Whether the last 4 bytes are the double-SHA-256 checksum of the rest (Base58Check). */
    public static function hasChecksum(string $bytes): bool
    {
        if (strlen($bytes) < 5) {
            return false;
        }
        $payload = substr($bytes, 0, -4);
        $expected = substr(hash('sha256', hash('sha256', $payload, true), true), 0, 4);
        return hash_equals($expected, substr($bytes, -4));
    }
}
