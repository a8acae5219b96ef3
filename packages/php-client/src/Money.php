<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Exception\MoneyException;

/**
 * Exact money arithmetic on decimal strings and integer minor units. Amounts never pass through
 * binary floating point: a float that PHP decoded from JSON is first turned into the shortest
 * decimal text that reads back as the same float, which is what the sender wrote.
 */
final class Money
{
    /** Integer digits an amount may have: far above any real order, far below float trouble. */
    private const MAX_INTEGER_DIGITS = 15;

    /** ISO 4217 minor units of the currencies the service accepts (the server's rate table). */
    private const MINOR_UNITS = [
        'AED' => 2, 'ARS' => 2, 'AUD' => 2, 'BGN' => 2, 'BHD' => 3, 'BRL' => 2, 'CAD' => 2, 'CHF' => 2,
        'CLP' => 0, 'CNY' => 2, 'COP' => 2, 'CZK' => 2, 'DKK' => 2, 'EUR' => 2, 'GBP' => 2, 'HKD' => 2,
        'HUF' => 2, 'IDR' => 2, 'ILS' => 2, 'INR' => 2, 'ISK' => 0, 'JOD' => 3, 'JPY' => 0, 'KES' => 2,
        'KRW' => 0, 'KWD' => 3, 'MXN' => 2, 'MYR' => 2, 'NGN' => 2, 'NOK' => 2, 'NZD' => 2, 'OMR' => 3,
        'PHP' => 2, 'PLN' => 2, 'RON' => 2, 'SAR' => 2, 'SEK' => 2, 'SGD' => 2, 'THB' => 2, 'TND' => 3,
        'TRY' => 2, 'UGX' => 0, 'USD' => 2, 'VND' => 0, 'ZAR' => 2,
    ];

    private const PLAIN_DECIMAL = '/\A(\d+)(?:\.(\d+))?\z/';

    private function __construct()
    {
    }

    /**
     * Supported currencies and their minor units, e.g. ['EUR' => 2, 'JPY' => 0, 'KWD' => 3].
     *
     * @return array<string, int>
     */
    public static function currencies(): array
    {
        return self::MINOR_UNITS;
    }

    /** True when $code is a supported ISO 4217 code (uppercase, exact). */
    public static function isSupportedCurrency(string $code): bool
    {
        return isset(self::MINOR_UNITS[$code]);
    }

    /**
     * ISO 4217 minor units of a supported currency (JPY 0, USD 2, KWD 3).
     *
     * @throws MoneyException unsupported_currency
     */
    public static function minorUnits(string $currency): int
    {
        if (!isset(self::MINOR_UNITS[$currency])) {
            $examples = implode(', ', array_slice(array_keys(self::MINOR_UNITS), 0, 4));
            throw new MoneyException(
                'unsupported_currency',
                sprintf('The currency "%s" is not supported; use an uppercase ISO 4217 code such as %s.', substr($currency, 0, 16), $examples)
            );
        }
        return self::MINOR_UNITS[$currency];
    }

    /**
     * Parses a fiat amount (a JSON number as PHP decoded it, or a numeric string) into integer
     * minor units of $currency, returned as a digit string ("1250" for 12.50 EUR).
     *
     * @param mixed $amount
     * @throws MoneyException invalid_amount, negative, too_precise, too_large, unsupported_currency
     */
    public static function toMinorUnits($amount, string $currency): string
    {
        $scale = self::minorUnits($currency);
        return self::toScaled(self::parseDecimal($amount), $scale, 'amount');
    }

    /**
     * As toMinorUnits(), as an int (every accepted amount fits in 64 bits).
     *
     * @param mixed $amount
     * @throws MoneyException
     */
    public static function toMinorUnitsInt($amount, string $currency): int
    {
        return (int) self::toMinorUnits($amount, $currency);
    }

    /**
     * Formats integer minor units with exactly the currency's decimals ("12.50", "1500", "1.250").
     *
     * @param int|string $minor
     * @throws MoneyException unsupported_currency, invalid_amount
     */
    public static function formatMinorUnits($minor, string $currency): string
    {
        $scale = self::minorUnits($currency);
        $digits = is_int($minor) ? (string) $minor : $minor;
        $negative = $digits !== '' && $digits[0] === '-';
        if ($negative) {
            $digits = substr($digits, 1);
        }
        if (preg_match('/\A\d+\z/', $digits) !== 1) {
            throw new MoneyException('invalid_amount', 'Minor units must be a whole number.');
        }
        $body = self::scaledToDecimal(self::stripLeadingZeros($digits), $scale);
        return $negative && trim($body, '0.') !== '' ? '-' . $body : $body;
    }

    /**
     * A fiat amount in its display form with exactly the currency's decimals ("12.50").
     *
     * @param mixed $amount
     * @throws MoneyException as toMinorUnits()
     */
    public static function normalizeFiatAmount($amount, string $currency): string
    {
        return self::formatMinorUnits(self::toMinorUnits($amount, $currency), $currency);
    }

    /**
     * A fiat amount rounded half up to the currency's decimals, in its display form: "2680.50" JPY
     * → "2681", "2680.49" JPY → "2680", "10.005" EUR → "10.01". For amounts another system
     * computed with more decimals than the currency has (a converted invoice total).
     *
     * @param mixed $amount
     * @throws MoneyException invalid_amount, negative, too_large, unsupported_currency
     */
    public static function roundFiatAmount($amount, string $currency): string
    {
        return self::normalizeFiatAmount(self::roundHalfUp($amount, self::minorUnits($currency)), $currency);
    }

    /**
     * An amount rounded half up to exactly $decimals decimals ("2.5" → "2.50", "10.005" → "10.01"
     * with 2; "2680.5" → "2681" with 0).
     *
     * @param mixed $amount
     * @throws MoneyException invalid_amount, negative, too_large
     */
    public static function roundHalfUp($amount, int $decimals): string
    {
        return self::scaleByRatio($amount, '1', '1', $decimals);
    }

    /**
     * Turns a JSON number or a numeric string into a canonical non-negative decimal string
     * ("12.5", "0.001", "100"). Strings must be plain decimals: no sign, spaces, exponent or separators.
     *
     * @param mixed $input
     * @throws MoneyException invalid_amount, negative, too_large
     */
    public static function parseDecimal($input, string $label = 'amount'): string
    {
        if (is_int($input)) {
            $text = (string) $input;
        } elseif (is_float($input)) {
            if (!is_finite($input)) {
                throw new MoneyException('invalid_amount', sprintf('The %s must be a finite number.', $label));
            }
            $text = self::floatToString($input);
        } elseif (is_string($input)) {
            $text = $input;
        } else {
            throw new MoneyException('invalid_amount', sprintf('The %s must be a number or a numeric string, like "12.50".', $label));
        }

        if ($text !== '' && $text[0] === '-') {
            $rest = substr($text, 1);
            $restIsPlain = preg_match(self::PLAIN_DECIMAL, $rest) === 1;
            if ($restIsPlain && preg_match('/\A[0.]+\z/', $rest) !== 1) {
                throw new MoneyException('negative', sprintf('The %s must not be negative.', $label));
            }
            if ($restIsPlain) {
                $text = $rest;
            }
        }
        if (preg_match(self::PLAIN_DECIMAL, $text, $match) !== 1) {
            throw new MoneyException(
                'invalid_amount',
                sprintf(
                    'The %s "%s" is not a plain decimal number; write it like "12.50", without spaces, signs, exponents or thousands separators.',
                    $label,
                    strlen($text) > 32 ? substr($text, 0, 32) . '...' : $text
                )
            );
        }
        $integerPart = self::stripLeadingZeros($match[1]);
        $fractionPart = rtrim($match[2] ?? '', '0');
        if (strlen($integerPart) > self::MAX_INTEGER_DIGITS) {
            throw new MoneyException('too_large', sprintf('The %s is too large (at most %d integer digits).', $label, self::MAX_INTEGER_DIGITS));
        }
        return $fractionPart === '' ? $integerPart : $integerPart . '.' . $fractionPart;
    }

    /**
     * Compares two amounts exactly: -1, 0 or 1. Accepts decimal strings and JSON numbers.
     *
     * @param mixed $a
     * @param mixed $b
     * @throws MoneyException when either is not an amount
     */
    public static function compare($a, $b): int
    {
        [$left, $right] = self::commonScale($a, $b);
        return self::compareDigits($left, $right);
    }

    /**
     * Adds two amounts exactly and returns the canonical sum ("19.99" + "0.01" = "20").
     *
     * @param mixed $a
     * @param mixed $b
     * @throws MoneyException when either is not an amount
     */
    public static function add($a, $b): string
    {
        $scale = 0;
        [$left, $right] = self::commonScale($a, $b, $scale);
        return self::parseDecimal(self::scaledToDecimal(self::addDigits($left, $right), $scale));
    }

    /**
     * Subtracts $b from $a exactly; the result is clamped at zero (amounts never go negative).
     *
     * @param mixed $a
     * @param mixed $b
     * @throws MoneyException when either is not an amount
     */
    public static function subtractAtLeastZero($a, $b): string
    {
        $scale = 0;
        [$left, $right] = self::commonScale($a, $b, $scale);
        if (self::compareDigits($left, $right) <= 0) {
            return '0';
        }
        return self::parseDecimal(self::scaledToDecimal(self::subtractDigits($left, $right), $scale));
    }

    /**
     * $amount × $numerator ÷ $denominator, exactly, rounded half up to $decimals: an amount in
     * one currency carried over at the ratio of two amounts in another (what 26.00 USD received
     * for 25.00 USD due is worth of a 7000.00 PKR invoice: 7280.00).
     *
     * @param mixed $amount
     * @param mixed $numerator
     * @param mixed $denominator
     * @throws MoneyException when one is not an amount, or the denominator is zero
     */
    public static function scaleByRatio($amount, $numerator, $denominator, int $decimals): string
    {
        $factors = [self::parseDecimal($amount), self::parseDecimal($numerator), self::parseDecimal($denominator)];
        [$amountDigits, $numeratorDigits, $denominatorDigits] = array_map(static function (string $decimal): string {
            return self::toScaled($decimal, self::decimalPlaces($decimal), 'amount');
        }, $factors);
        if ($denominatorDigits === '0') {
            throw new MoneyException('invalid_amount', 'Cannot scale by a ratio whose denominator is zero.');
        }
        // Both sides as whole numbers: the decimals of each factor move to the other side.
        $top = self::multiplyDigits($amountDigits, $numeratorDigits) . str_repeat('0', self::decimalPlaces($factors[2]) + $decimals);
        $bottom = $denominatorDigits . str_repeat('0', self::decimalPlaces($factors[0]) + self::decimalPlaces($factors[1]));
        [$quotient, $remainder] = self::divideDigits(self::stripLeadingZeros($top), $bottom);
        if (self::compareDigits(self::addDigits($remainder, $remainder), $bottom) >= 0) {
            $quotient = self::addDigits($quotient, '1');
        }
        return self::scaledToDecimal($quotient, $decimals);
    }

    /**
     * The shortest plain decimal text that reads back as $value ("0.1", "27.11", "1000"),
     * independent of the precision and locale settings of the host.
     */
    public static function floatToString(float $value): string
    {
        for ($digits = 1; $digits <= 17; $digits++) {
            // Some hosts print a locale decimal comma; the exponent form has no other punctuation.
            $text = str_replace(',', '.', sprintf('%.' . ($digits - 1) . 'e', $value));
            if ((float) $text === $value) {
                break;
            }
        }
        return self::expandExponent($text);
    }

    /** Number of decimals of a canonical decimal string. */
    private static function decimalPlaces(string $decimal): int
    {
        $dot = strpos($decimal, '.');
        return $dot === false ? 0 : strlen($decimal) - $dot - 1;
    }

    /**
     * @param mixed $a
     * @param mixed $b
     * @return array{0: string, 1: string} both amounts as digit strings scaled to the same decimals
     */
    private static function commonScale($a, $b, int &$scale = 0): array
    {
        $left = self::parseDecimal($a);
        $right = self::parseDecimal($b);
        $scale = max(self::decimalPlaces($left), self::decimalPlaces($right));
        return [self::toScaled($left, $scale, 'amount'), self::toScaled($right, $scale, 'amount')];
    }

    /**
     * A canonical decimal as a digit string scaled by 10^$scale.
     *
     * @throws MoneyException too_precise when it has more than $scale decimals
     */
    private static function toScaled(string $canonical, int $scale, string $label): string
    {
        $places = self::decimalPlaces($canonical);
        if ($places > $scale) {
            throw new MoneyException(
                'too_precise',
                $scale === 0
                    ? sprintf('The %s %s must be a whole number.', $label, $canonical)
                    : sprintf('The %s %s has %d decimals; at most %d are allowed.', $label, $canonical, $places, $scale)
            );
        }
        $parts = explode('.', $canonical);
        return self::stripLeadingZeros($parts[0] . str_pad($parts[1] ?? '', $scale, '0'));
    }

    private static function scaledToDecimal(string $digits, int $scale): string
    {
        $digits = str_pad($digits, $scale + 1, '0', STR_PAD_LEFT);
        return $scale === 0 ? $digits : substr($digits, 0, -$scale) . '.' . substr($digits, -$scale);
    }

    private static function stripLeadingZeros(string $digits): string
    {
        $stripped = ltrim($digits, '0');
        return $stripped === '' ? '0' : $stripped;
    }

    private static function compareDigits(string $a, string $b): int
    {
        if (strlen($a) !== strlen($b)) {
            return strlen($a) < strlen($b) ? -1 : 1;
        }
        return $a === $b ? 0 : (strcmp($a, $b) < 0 ? -1 : 1);
    }

    private static function addDigits(string $a, string $b): string
    {
        $length = max(strlen($a), strlen($b));
        $a = str_pad($a, $length, '0', STR_PAD_LEFT);
        $b = str_pad($b, $length, '0', STR_PAD_LEFT);
        $sum = '';
        $carry = 0;
        for ($i = $length - 1; $i >= 0; $i--) {
            $digit = (int) $a[$i] + (int) $b[$i] + $carry;
            $sum = (string) ($digit % 10) . $sum;
            $carry = intdiv($digit, 10);
        }
        return self::stripLeadingZeros(($carry > 0 ? '1' : '') . $sum);
    }

    /** $a - $b for digit strings with $a >= $b. */
    private static function subtractDigits(string $a, string $b): string
    {
        $b = str_pad($b, strlen($a), '0', STR_PAD_LEFT);
        $difference = '';
        $borrow = 0;
        for ($i = strlen($a) - 1; $i >= 0; $i--) {
            $digit = (int) $a[$i] - (int) $b[$i] - $borrow;
            $borrow = $digit < 0 ? 1 : 0;
            $difference = (string) ($digit + 10 * $borrow) . $difference;
        }
        return self::stripLeadingZeros($difference);
    }

    private static function multiplyDigits(string $a, string $b): string
    {
        $product = array_fill(0, strlen($a) + strlen($b), 0);
        for ($i = strlen($a) - 1; $i >= 0; $i--) {
            for ($j = strlen($b) - 1; $j >= 0; $j--) {
                $at = $i + $j + 1;
                $sum = $product[$at] + (int) $a[$i] * (int) $b[$j];
                $product[$at] = $sum % 10;
                $product[$at - 1] += intdiv($sum, 10);
            }
        }
        return self::stripLeadingZeros(implode('', $product));
    }

    /**
     * Long division of digit strings.
     *
     * @return array{0: string, 1: string} quotient and remainder
     */
    private static function divideDigits(string $dividend, string $divisor): array
    {
        $quotient = '';
        $remainder = '0';
        for ($i = 0, $length = strlen($dividend); $i < $length; $i++) {
            $remainder = self::stripLeadingZeros($remainder . $dividend[$i]);
            $digit = 0;
            while (self::compareDigits($remainder, $divisor) >= 0) {
                $remainder = self::subtractDigits($remainder, $divisor);
                $digit++;
            }
            $quotient .= (string) $digit;
        }
        return [self::stripLeadingZeros($quotient), $remainder];
    }

    /** "1.25e+1" → "12.5"; "1e-2" → "0.01"; text without an exponent is returned unchanged. */
    private static function expandExponent(string $text): string
    {
        if (preg_match('/\A(-?)(\d+)(?:\.(\d+))?e([+-]?\d+)\z/i', $text, $match) !== 1) {
            return $text;
        }
        $digits = $match[2] . ($match[3] ?? '');
        $pointAt = strlen($match[2]) + (int) $match[4];
        if ($pointAt <= 0) {
            $plain = '0.' . str_repeat('0', -$pointAt) . $digits;
        } elseif ($pointAt >= strlen($digits)) {
            $plain = $digits . str_repeat('0', $pointAt - strlen($digits));
        } else {
            $plain = substr($digits, 0, $pointAt) . '.' . substr($digits, $pointAt);
        }
        return $match[1] . $plain;
    }
}
