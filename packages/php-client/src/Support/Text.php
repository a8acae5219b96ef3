<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Support;

/**
 * Locale-independent string helpers. PHP before 8.2 lowercases by the host's locale, which turns
 * "I" into a dotless i under a Turkish locale; identifiers and addresses need plain ASCII rules,
 * which also give every port the same verdict on non-ASCII input.
 *
 * @internal
 */
final class Text
{
    private const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    private const LOWER = 'abcdefghijklmnopqrstuvwxyz';

    private function __construct()
    {
    }

    public static function asciiLower(string $text): string
    {
        return strtr($text, self::UPPER, self::LOWER);
    }

    public static function asciiUpper(string $text): string
    {
        return strtr($text, self::LOWER, self::UPPER);
    }

    public static function startsWith(string $text, string $prefix): bool
    {
        return strncmp($text, $prefix, strlen($prefix)) === 0;
    }

    /** Whether $text is well-formed UTF-8. */
    public static function isUtf8(string $text): bool
    {
        return preg_match('//u', $text) === 1;
    }

    /** Length in UTF-16 code units, the way JSON and JavaScript count characters. */
    public static function utf16Length(string $text): int
    {
        if (!self::isUtf8($text)) {
            return strlen($text);
        }
        $length = 0;
        $bytes = strlen($text);
        for ($i = 0; $i < $bytes; $i++) {
            $byte = ord($text[$i]);
            if (($byte & 0xC0) !== 0x80) {
                $length += $byte >= 0xF0 ? 2 : 1;
            }
        }
        return $length;
    }

    /**
     * The first character of $text matched by the character class $class (written for /u), or
     * null. Text that is not UTF-8 is searched byte by byte.
     */
    public static function firstMatch(string $text, string $class): ?string
    {
        $utf8 = self::isUtf8($text);
        $found = preg_match('/' . $class . '/' . ($utf8 ? 'u' : ''), $text, $match);
        return $found === 1 ? $match[0] : null;
    }

    /**
     * Quotes a character for a message: printable ASCII as "x", other visible characters with their
     * code point ("К" (U+041A)), invisible and control characters as U+XXXX only.
     */
    public static function showCharacter(string $character): string
    {
        if (preg_match('/\A[\x21-\x7e]\z/', $character) === 1) {
            return '"' . $character . '"';
        }
        if (!self::isUtf8($character)) {
            return sprintf('U+%04X', ord($character[0]));
        }
        $codePoint = sprintf('U+%04X', self::codePoint($character));
        return preg_match('/\A[\p{L}\p{N}\p{P}\p{S}]\z/u', $character) === 1
            ? sprintf('"%s" (%s)', $character, $codePoint)
            : $codePoint;
    }

    /** Code point of the first character of UTF-8 text, without mbstring. */
    private static function codePoint(string $character): int
    {
        $first = ord($character[0]);
        if ($first < 0x80) {
            return $first;
        }
        $length = $first >= 0xF0 ? 4 : ($first >= 0xE0 ? 3 : 2);
        $codePoint = $first & (0xFF >> ($length + 1));
        for ($i = 1; $i < $length; $i++) {
            $codePoint = ($codePoint << 6) | (ord($character[$i]) & 0x3F);
        }
        return $codePoint;
    }
}
