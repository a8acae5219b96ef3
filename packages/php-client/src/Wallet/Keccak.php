<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Wallet;

/**
 * Keccak-256 as Ethereum uses it (the original Keccak padding, not NIST SHA3-256, which PHP's
 * hash() offers). Pure PHP on 64-bit integers: lanes wrap like unsigned 64-bit words because PHP's
 * shifts and bitwise operators work on the two's-complement bits.
 */
final class Keccak
{
    private const RATE_BYTES = 136;

    /** Rotation offsets, indexed by lane x + 5y. */
    private const ROTATIONS = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];

    /** Round constants as [high 32 bits, low 32 bits]: several exceed PHP_INT_MAX as literals. */
    private const ROUND_CONSTANTS = [
        [0x00000000, 0x00000001], [0x00000000, 0x00008082], [0x80000000, 0x0000808A], [0x80000000, 0x80008000],
        [0x00000000, 0x0000808B], [0x00000000, 0x80000001], [0x80000000, 0x80008081], [0x80000000, 0x00008009],
        [0x00000000, 0x0000008A], [0x00000000, 0x00000088], [0x00000000, 0x80008009], [0x00000000, 0x8000000A],
        [0x00000000, 0x8000808B], [0x80000000, 0x0000008B], [0x80000000, 0x00008089], [0x80000000, 0x00008003],
        [0x80000000, 0x00008002], [0x80000000, 0x00000080], [0x00000000, 0x0000800A], [0x80000000, 0x8000000A],
        [0x80000000, 0x80008081], [0x80000000, 0x00008080], [0x00000000, 0x80000001], [0x80000000, 0x80008008],
    ];

    private function __construct()
    {
    }

    /** Keccak-256 of $data as 64 lowercase hex digits. */
    public static function hash256Hex(string $data): string
    {
        return bin2hex(self::hash256($data));
    }

    /** Keccak-256 of $data as 32 raw bytes. */
    public static function hash256(string $data): string
    {
        if (PHP_INT_SIZE < 8) {
            throw new \RuntimeException('Keccak-256 needs 64-bit PHP.');
        }
        // Keccak padding: a 0x01 byte after the message, 0x80 on the last byte of the block.
        $padded = $data . "\x01" . str_repeat("\x00", self::RATE_BYTES - 1 - strlen($data) % self::RATE_BYTES);
        $padded[strlen($padded) - 1] = chr(ord($padded[strlen($padded) - 1]) | 0x80);

        $state = array_fill(0, 25, 0);
        $roundConstants = self::roundConstants();
        for ($offset = 0, $length = strlen($padded); $offset < $length; $offset += self::RATE_BYTES) {
            $lanes = unpack('P17', substr($padded, $offset, self::RATE_BYTES));
            for ($i = 0; $i < 17; $i++) {
                $state[$i] ^= $lanes[$i + 1];
            }
            $state = self::permute($state, $roundConstants);
        }
        return pack('P4', $state[0], $state[1], $state[2], $state[3]);
    }

    /**
     * @return list<int>
     */
    private static function roundConstants(): array
    {
        $constants = [];
        foreach (self::ROUND_CONSTANTS as [$high, $low]) {
            $constants[] = ($high << 32) | $low;
        }
        return $constants;
    }

    /**
     * Keccak-f[1600]: 24 rounds of theta, rho, pi, chi and iota over 25 lanes (index x + 5y).
     *
     * @param list<int> $state
     * @param list<int> $roundConstants
     * @return list<int>
     */
    private static function permute(array $state, array $roundConstants): array
    {
        for ($round = 0; $round < 24; $round++) {
            $parity = [];
            for ($x = 0; $x < 5; $x++) {
                $parity[$x] = $state[$x] ^ $state[$x + 5] ^ $state[$x + 10] ^ $state[$x + 15] ^ $state[$x + 20];
            }
            for ($x = 0; $x < 5; $x++) {
                $mix = $parity[($x + 4) % 5] ^ self::rotateLeft($parity[($x + 1) % 5], 1);
                for ($y = 0; $y < 25; $y += 5) {
                    $state[$x + $y] ^= $mix;
                }
            }
            // rho and pi: lane (x, y) rotates and moves to (y, 2x + 3y).
            $moved = [];
            for ($x = 0; $x < 5; $x++) {
                for ($y = 0; $y < 5; $y++) {
                    $moved[$y + 5 * ((2 * $x + 3 * $y) % 5)] = self::rotateLeft($state[$x + 5 * $y], self::ROTATIONS[$x + 5 * $y]);
                }
            }
            for ($y = 0; $y < 25; $y += 5) {
                for ($x = 0; $x < 5; $x++) {
                    $state[$x + $y] = $moved[$x + $y] ^ (~$moved[($x + 1) % 5 + $y] & $moved[($x + 2) % 5 + $y]);
                }
            }
            $state[0] ^= $roundConstants[$round];
        }
        return $state;
    }

    private static function rotateLeft(int $lane, int $bits): int
    {
        if ($bits === 0) {
            return $lane;
        }
        // >> copies the sign bit, so the bits shifted in from the top are masked off.
        return ($lane << $bits) | (($lane >> (64 - $bits)) & ~(-1 << $bits));
    }
}
