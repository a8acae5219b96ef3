<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Validation;

use CryptoCheckout\Client\Exception\MoneyException;
use CryptoCheckout\Client\Money;
use CryptoCheckout\Client\Support\Json;
use CryptoCheckout\Client\Support\Text;

/**
 * Building blocks for checking decoded JSON against the wire shapes. A rule is a closure
 * `function ($value, string $path)` that returns the value (objects as arrays, unknown members
 * dropped) or throws ShapeMismatch naming the first offending field.
 *
 * @internal
 */
final class Rules
{
    private const UUID = '/\A[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\z/i';

    private const DECIMAL_STRING = '/\A(0|[1-9]\d*)(\.\d+)?\z/';

    // RFC 3339 date-time with seconds and a Z or ±hh:mm offset, calendar dates checked (leap years too).
    private const ISO_DATE_TIME = '/\A(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29'
        . '|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))'
        . 'T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)\z/';

    /** JavaScript's Number.MAX_SAFE_INTEGER: integers beyond it are not exact on the other side. */
    private const MAX_SAFE_INTEGER = 9007199254740991;

    private const MAX_URL_LENGTH = 2048;

    private function __construct()
    {
    }

    /**
     * Runs $rule on $value.
     *
     * @param mixed $value
     * @return mixed
     * @throws ShapeMismatch
     */
    public static function check(\Closure $rule, $value, string $path = '')
    {
        return $rule($value, $path);
    }

    public static function string(): \Closure
    {
        return static function ($value, string $path) {
            if (!is_string($value)) {
                throw self::mismatch($path, 'must be a string');
            }
            return $value;
        };
    }

    public static function nonEmptyString(): \Closure
    {
        return static function ($value, string $path) {
            if (!is_string($value) || $value === '') {
                throw self::mismatch($path, 'must be a non-empty string');
            }
            return $value;
        };
    }

    public static function pattern(string $regex, string $expectation): \Closure
    {
        return static function ($value, string $path) use ($regex, $expectation) {
            if (!is_string($value) || preg_match($regex, $value) !== 1) {
                throw self::mismatch($path, 'must be ' . $expectation);
            }
            return $value;
        };
    }

    /**
     * @param list<string> $allowed
     */
    public static function oneOf(array $allowed): \Closure
    {
        return static function ($value, string $path) use ($allowed) {
            if (!is_string($value) || !in_array($value, $allowed, true)) {
                throw self::mismatch($path, 'must be one of ' . implode(', ', $allowed));
            }
            return $value;
        };
    }

    public static function boolean(): \Closure
    {
        return static function ($value, string $path) {
            if (!is_bool($value)) {
                throw self::mismatch($path, 'must be true or false');
            }
            return $value;
        };
    }

    /** A JSON number (PHP int or finite float). */
    public static function number(): \Closure
    {
        return static function ($value, string $path) {
            if (!self::isNumber($value)) {
                throw self::mismatch($path, 'must be a number');
            }
            return $value;
        };
    }

    public static function nonNegativeNumber(): \Closure
    {
        return static function ($value, string $path) {
            if (!self::isNumber($value) || $value < 0) {
                throw self::mismatch($path, 'must be a number of at least 0');
            }
            return $value;
        };
    }

    /** A whole JSON number from 0 to 2^53 - 1; "1700000000.0" counts as whole, as it does in JavaScript. */
    public static function nonNegativeInteger(): \Closure
    {
        return static function ($value, string $path) {
            $whole = is_int($value) || (is_float($value) && is_finite($value) && floor($value) === $value);
            if (!$whole || $value < 0 || $value > self::MAX_SAFE_INTEGER) {
                throw self::mismatch($path, 'must be a whole number of at least 0');
            }
            return is_float($value) ? (int) $value : $value;
        };
    }

    /** A USD amount: a JSON number of at least 0 with at most 2 decimals. */
    public static function usdAmount(): \Closure
    {
        return static function ($value, string $path) {
            $valid = false;
            if (self::isNumber($value) && $value >= 0) {
                try {
                    $decimal = Money::parseDecimal($value);
                    $dot = strpos($decimal, '.');
                    $valid = $dot === false || strlen($decimal) - $dot - 1 <= 2;
                } catch (MoneyException $exception) {
                    $valid = false;
                }
            }
            if (!$valid) {
                throw self::mismatch($path, 'must be a USD amount with at most 2 decimals');
            }
            return $value;
        };
    }

    /** A crypto or fiat amount as a canonical non-negative decimal string ("0.00039063"). */
    public static function decimalString(): \Closure
    {
        return self::pattern(self::DECIMAL_STRING, 'a decimal string like "12.5"');
    }

    public static function transactionCode(): \Closure
    {
        return self::pattern(self::UUID, 'a UUID-shaped transaction code');
    }

    public static function refundId(): \Closure
    {
        return self::pattern(self::UUID, 'a UUID-shaped refund id');
    }

    public static function isoDateTime(): \Closure
    {
        return self::pattern(self::ISO_DATE_TIME, 'an ISO 8601 date-time such as 2026-11-01T10:00:00.000Z');
    }

    /** An absolute http:// or https:// URL with a host, at most 2048 characters. */
    public static function httpUrl(): \Closure
    {
        return static function ($value, string $path) {
            $valid = false;
            if (is_string($value) && Text::utf16Length($value) <= self::MAX_URL_LENGTH) {
                $parts = parse_url($value);
                $scheme = is_array($parts) && isset($parts['scheme']) ? Text::asciiLower($parts['scheme']) : '';
                $valid = ($scheme === 'http' || $scheme === 'https') && isset($parts['host']) && $parts['host'] !== '';
            }
            if (!$valid) {
                throw self::mismatch($path, 'must be an absolute http:// or https:// URL');
            }
            return $value;
        };
    }

    public static function nullable(\Closure $rule): \Closure
    {
        return static function ($value, string $path) use ($rule) {
            return $value === null ? null : $rule($value, $path);
        };
    }

    /** A JSON array whose every item passes $item. */
    public static function listOf(\Closure $item): \Closure
    {
        return static function ($value, string $path) use ($item) {
            if (!Json::isList($value)) {
                throw self::mismatch($path, 'must be a list');
            }
            $checked = [];
            foreach ($value as $index => $element) {
                $checked[] = $item($element, self::join($path, (string) $index));
            }
            return $checked;
        };
    }

    /**
     * A JSON object with the given members, checked in order; unknown members are dropped.
     *
     * @param array<string, \Closure> $required
     * @param array<string, \Closure> $optional members that may be absent
     */
    public static function shape(array $required, array $optional = []): \Closure
    {
        return static function ($value, string $path) use ($required, $optional) {
            if (!Json::isObject($value)) {
                throw self::mismatch($path, 'must be a JSON object');
            }
            $members = Json::members($value);
            $checked = [];
            foreach ($required + $optional as $key => $rule) {
                $memberPath = self::join($path, (string) $key);
                if (!array_key_exists($key, $members)) {
                    if (isset($optional[$key]) && !isset($required[$key])) {
                        continue;
                    }
                    throw self::mismatch($memberPath, 'is missing');
                }
                $checked[$key] = $rule($members[$key], $memberPath);
            }
            return $checked;
        };
    }

    /**
     * A JSON object whose $key member picks the shape that applies.
     *
     * @param array<string, \Closure> $shapes shape rule per value of $key
     */
    public static function discriminated(string $key, array $shapes): \Closure
    {
        return static function ($value, string $path) use ($key, $shapes) {
            if (!Json::isObject($value)) {
                throw self::mismatch($path, 'must be a JSON object');
            }
            $members = Json::members($value);
            $kind = $members[$key] ?? null;
            if (!is_string($kind) || !isset($shapes[$kind])) {
                throw self::mismatch(self::join($path, $key), 'must be one of ' . implode(', ', array_keys($shapes)));
            }
            return $shapes[$kind]($value, $path);
        };
    }

    /** @param mixed $value */
    private static function isNumber($value): bool
    {
        return is_int($value) || (is_float($value) && is_finite($value));
    }

    private static function join(string $path, string $key): string
    {
        return $path === '' ? $key : $path . '.' . $key;
    }

    private static function mismatch(string $path, string $problem): ShapeMismatch
    {
        return new ShapeMismatch($path, ($path === '' ? 'The value' : $path) . ' ' . $problem . '.');
    }
}
