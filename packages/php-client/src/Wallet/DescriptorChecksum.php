<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Wallet;

/**
 * The BIP380 output descriptor checksum: 8 characters after "#" that catch typing and copying
 * mistakes. The same algorithm as @cryptocheckout/core's descriptorChecksum; its 40-bit arithmetic
 * needs 64-bit integers.
 */
final class DescriptorChecksum
{
    /** The characters a descriptor may hold, in the groups of 32 the checksum reads them in. */
    public const INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:\$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";

    private const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
    private const GENERATOR = [0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd];
    private const LENGTH = 8;

    private function __construct()
    {
    }

    /**
     * The checksum of a descriptor without its "#checksum", or null when the descriptor holds a
     * character (byte) outside the descriptor character set.
     */
    public static function of(string $descriptor): ?string
    {
        $symbols = [];
        $groups = [];
        $length = strlen($descriptor);
        for ($i = 0; $i < $length; $i++) {
            $position = strpos(self::INPUT_CHARSET, $descriptor[$i]);
            if ($position === false) {
                return null;
            }
            $symbols[] = $position & 31;
            $groups[] = $position >> 5;
            if (count($groups) === 3) {
                $symbols[] = $groups[0] * 9 + $groups[1] * 3 + $groups[2];
                $groups = [];
            }
        }
        if (count($groups) === 1) {
            $symbols[] = $groups[0];
        } elseif (count($groups) === 2) {
            $symbols[] = $groups[0] * 3 + $groups[1];
        }
        for ($i = 0; $i < self::LENGTH; $i++) {
            $symbols[] = 0;
        }
        $checksum = self::polymod($symbols) ^ 1;
        $text = '';
        for ($i = 0; $i < self::LENGTH; $i++) {
            $text .= self::CHECKSUM_CHARSET[($checksum >> (5 * (7 - $i))) & 31];
        }
        return $text;
    }

    /** @param list<int> $symbols */
    private static function polymod(array $symbols): int
    {
        $checksum = 1;
        foreach ($symbols as $value) {
            $top = $checksum >> 35;
            $checksum = (($checksum & 0x7ffffffff) << 5) ^ $value;
            for ($bit = 0; $bit < 5; $bit++) {
                if ((($top >> $bit) & 1) === 1) {
                    $checksum ^= self::GENERATOR[$bit];
                }
            }
        }
        return $checksum;
    }
}
