<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Support;

/**
 * JSON helpers. Bodies are decoded with objects kept as objects, so that `{}` and `[]` stay
 * distinguishable while shapes are checked; validated data is handed out as arrays.
 *
 * @internal
 */
final class Json
{
    private function __construct()
    {
    }

    /**
     * Decodes JSON text, keeping objects as stdClass.
     *
     * @return mixed
     * @throws \JsonException when the text is not JSON
     */
    public static function decode(string $text)
    {
        $value = json_decode($text, false);
        if (json_last_error() !== JSON_ERROR_NONE) {
            throw new \JsonException(json_last_error_msg(), json_last_error());
        }
        return $value;
    }

    /** True for a JSON object: stdClass, or an array that is not a non-empty list. */
    public static function isObject($value): bool
    {
        return $value instanceof \stdClass || (is_array($value) && ($value === [] || !self::isList($value)));
    }

    /** True for a JSON array: a PHP list (keys 0..n-1 in order). Decoded objects never qualify. */
    public static function isList($value): bool
    {
        if (!is_array($value)) {
            return false;
        }
        $expected = 0;
        foreach ($value as $key => $unused) {
            if ($key !== $expected) {
                return false;
            }
            $expected++;
        }
        return true;
    }

    /**
     * The members of a JSON object, as an array.
     *
     * @return array<string, mixed>
     */
    public static function members($object): array
    {
        return $object instanceof \stdClass ? get_object_vars($object) : (array) $object;
    }

    /**
     * Converts decoded JSON (objects as stdClass) to nested arrays.
     *
     * @param mixed $value
     * @return mixed
     */
    public static function toArrays($value)
    {
        if ($value instanceof \stdClass) {
            $value = get_object_vars($value);
        }
        if (is_array($value)) {
            foreach ($value as $key => $item) {
                $value[$key] = self::toArrays($item);
            }
        }
        return $value;
    }
}
