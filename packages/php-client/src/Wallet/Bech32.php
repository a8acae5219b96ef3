<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Wallet;

use CryptoCheckout\Client\Support\Text;

/**
 * Bech32 (BIP-173) and bech32m (BIP-350) checksums, as used by Bitcoin segwit addresses.
 */
final class Bech32
{
    public const BECH32 = 'bech32';
    public const BECH32M = 'bech32m';

    private const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
    private const CONSTANTS = [self::BECH32 => 1, self::BECH32M => 0x2bc830a3];
    private const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

    private function __construct()
    {
    }

    /**
     * Decodes a lowercase bech32 or bech32m string with the given checksum variant.
     *
     * @return array{prefix: string, words: list<int>}|null null when the string or its checksum is invalid
     */
    public static function decode(string $text, string $variant, int $limit = 90): ?array
    {
        $length = strlen($text);
        if ($length < 8 || $length > $limit || $text !== Text::asciiLower($text)) {
            return null;
        }
        $separator = strrpos($text, '1');
        if ($separator === false || $separator === 0 || $length - $separator - 1 < 6) {
            return null;
        }
        $prefix = substr($text, 0, $separator);
        $values = [];
        for ($i = $separator + 1; $i < $length; $i++) {
            $value = strpos(self::CHARSET, $text[$i]);
            if ($value === false) {
                return null;
            }
            $values[] = $value;
        }
        if (self::polymod(array_merge(self::expandPrefix($prefix), $values)) !== self::CONSTANTS[$variant]) {
            return null;
        }
        return ['prefix' => $prefix, 'words' => array_slice($values, 0, -6)];
    }

    /**
     * Regroups 5-bit words into bytes; null when the padding is longer than 4 bits or not zero.
     *
     * @param list<int> $words
     */
    public static function wordsToBytes(array $words): ?string
    {
        $accumulator = 0;
        $bits = 0;
        $bytes = '';
        foreach ($words as $word) {
            $accumulator = (($accumulator << 5) | $word) & 0xFFF;
            $bits += 5;
            if ($bits >= 8) {
                $bits -= 8;
                $bytes .= chr(($accumulator >> $bits) & 0xFF);
            }
        }
        if ($bits >= 5 || (($accumulator << (8 - $bits)) & 0xFF) !== 0) {
            return null;
        }
        return $bytes;
    }

    /**
     * @param list<int> $values
     */
    private static function polymod(array $values): int
    {
        $checksum = 1;
        foreach ($values as $value) {
            $top = $checksum >> 25;
            $checksum = (($checksum & 0x1ffffff) << 5) ^ $value;
            for ($i = 0; $i < 5; $i++) {
                if ((($top >> $i) & 1) === 1) {
                    $checksum ^= self::GENERATOR[$i];
                }
            }
        }
        return $checksum;
    }

    /**
     * @return list<int>
     */
    private static function expandPrefix(string $prefix): array
    {
        $high = [];
        $low = [];
        $length = strlen($prefix);
        for ($i = 0; $i < $length; $i++) {
            $high[] = ord($prefix[$i]) >> 5;
            $low[] = ord($prefix[$i]) & 31;
        }
        return array_merge($high, [0], $low);
    }
}
