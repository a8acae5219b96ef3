<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

use CryptoCheckout\Client\Support\Json;
use CryptoCheckout\Client\Support\Text;

/**
 * The fiat rate a checkout was priced at and keeps for its whole life: the optional `rate` of
 * GET /transaction (docs/rates.md; `lockedRateSchema` in @cryptocheckout/core). Older services do
 * not send it, and what a service sends is read strictly: a member of the wrong shape, an overlong
 * or odd text, an impossible date, and the whole rate is left out (fromArray() answers null),
 * never an error. Its texts hold only letters, digits, spaces and plain punctuation (no markup
 * characters), so priceLine() is safe in a plain-text note and escapes to itself in HTML.
 */
final class LockedRate
{
    /** At most this many characters in `source` (and 64 in each of `sources`, 16 of them). */
    private const MAX_SOURCE_LENGTH = 200;
    private const MAX_SOURCE_NAME_LENGTH = 64;
    private const MAX_SOURCES = 16;
    private const MAX_DECIMAL_LENGTH = 32;

    // Rates keep 8 significant digits: 18 decimals leave room for currencies far weaker than VND.
    private const DECIMAL = '/\A(0|[1-9]\d{0,20})(\.\d{1,18})?\z/';
    /** Letters, digits, spaces and punctuation a source's name and date need ("ECB 2026-11-27 · ExchangeRate-API 00:02 UTC"). */
    private const READABLE = '/\A[\p{L}\p{N}][\p{L}\p{N} .,:;·()\/+_\-]*\z/u';
    private const CURRENCY = '/\A[A-Z]{3}\z/';
    // The same RFC 3339 date-time the rest of the wire uses (Validation\Rules).
    private const ISO_DATE_TIME = '/\A\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)\z/';

    /** USD per one unit of the checkout's fiat currency, spread included (decimal string). */
    public string $usdPerUnit;
    /** Readable origin, e.g. "ECB 2026-11-27 · ExchangeRate-API 2026-11-28 00:02 UTC". */
    public string $source;
    /** @var list<string> the sources whose median it is */
    public array $sources;
    /** ISO 8601: the oldest publication time among the sources. */
    public string $asOf;
    /** The merchant's spread in percent, "0" when none (decimal string). */
    public string $spreadPercent;
    /** ISO 8601: until when the price holds (the checkout's expiry). */
    public string $heldUntil;

    /** @param list<string> $sources */
    private function __construct(string $usdPerUnit, string $source, array $sources, string $asOf, string $spreadPercent, string $heldUntil)
    {
        $this->usdPerUnit = $usdPerUnit;
        $this->source = $source;
        $this->sources = $sources;
        $this->asOf = $asOf;
        $this->spreadPercent = $spreadPercent;
        $this->heldUntil = $heldUntil;
    }

    /**
     * The rate of a GET /transaction lookup, or null when it has none or one that does not read.
     *
     * @param array<string, mixed> $lookup
     */
    public static function fromLookup(array $lookup): ?self
    {
        return array_key_exists('rate', $lookup) ? self::fromArray($lookup['rate']) : null;
    }

    /**
     * The rate from its wire form (decoded JSON, objects as arrays or stdClass), or null when any
     * member is missing or not of its shape.
     *
     * @param mixed $rate
     */
    public static function fromArray($rate): ?self
    {
        if (!Json::isObject($rate)) {
            return null;
        }
        $rate = Json::toArrays(Json::members($rate));
        $usdPerUnit = $rate['usd_per_unit'] ?? null;
        $source = $rate['source'] ?? null;
        $sources = $rate['sources'] ?? null;
        $asOf = $rate['as_of'] ?? null;
        $spread = $rate['spread_percent'] ?? null;
        $heldUntil = $rate['held_until'] ?? null;
        if (
            !self::isDecimal($usdPerUnit) || Money::compare($usdPerUnit, '0') <= 0
            || !self::isDecimal($spread)
            || !self::isReadable($source, self::MAX_SOURCE_LENGTH)
            || !Json::isList($sources) || count($sources) > self::MAX_SOURCES
            || !self::isDate($asOf) || !self::isDate($heldUntil)
        ) {
            return null;
        }
        foreach ($sources as $name) {
            if (!self::isReadable($name, self::MAX_SOURCE_NAME_LENGTH)) {
                return null;
            }
        }
        /** @var list<string> $sources */
        return new self($usdPerUnit, $source, $sources, $asOf, $spread, $heldUntil);
    }

    /** @return array{usd_per_unit: string, source: string, sources: list<string>, as_of: string, spread_percent: string, held_until: string} the wire form */
    public function toArray(): array
    {
        return [
            'usd_per_unit' => $this->usdPerUnit,
            'source' => $this->source,
            'sources' => $this->sources,
            'as_of' => $this->asOf,
            'spread_percent' => $this->spreadPercent,
            'held_until' => $this->heldUntil,
        ];
    }

    /**
     * One sentence for the merchant (an order note, a log entry), in English:
     * "Priced at 1 EUR = 1.0612 USD (ECB 2026-11-27 · ExchangeRate-API 2026-11-28 00:02 UTC), held until 2026-11-29 15:02 UTC."
     * with ", including a 1.5% spread" after the rate when there is one; "Priced in USD (no conversion)."
     * for a USD checkout. Null when $fiatCurrency is not an ISO 4217 code.
     */
    public function priceLine(string $fiatCurrency): ?string
    {
        if (preg_match(self::CURRENCY, $fiatCurrency) !== 1) {
            return null;
        }
        if ($fiatCurrency === 'USD') {
            return 'Priced in USD (no conversion).';
        }
        $spread = Money::compare($this->spreadPercent, '0') > 0 ? sprintf(', including a %s%% spread', $this->spreadPercent) : '';
        return sprintf(
            'Priced at 1 %s = %s USD%s (%s), held until %s.',
            $fiatCurrency,
            $this->usdPerUnit,
            $spread,
            $this->source,
            self::minuteUtc($this->heldUntil)
        );
    }

    /** "2026-11-29 15:02 UTC" for an ISO 8601 date-time. */
    private static function minuteUtc(string $iso): string
    {
        $date = \DateTimeImmutable::createFromFormat('!Y-m-d\TH:i:s', substr($iso, 0, 19), new \DateTimeZone('UTC'));
        $offset = substr($iso, -6);
        if ($date === false) {
            return $iso;
        }
        if (preg_match('/\A([+-])(\d\d):(\d\d)\z/', $offset, $parts) === 1) {
            // 15:02+01:00 is 14:02 UTC.
            $seconds = ((int) $parts[2] * 60 + (int) $parts[3]) * 60;
            $date = $date->modify(sprintf('%s%d seconds', $parts[1] === '+' ? '-' : '+', $seconds));
        }
        return $date->format('Y-m-d H:i') . ' UTC';
    }

    /** @param mixed $value */
    private static function isDecimal($value): bool
    {
        return is_string($value) && strlen($value) <= self::MAX_DECIMAL_LENGTH && preg_match(self::DECIMAL, $value) === 1;
    }

    /** @param mixed $value */
    private static function isReadable($value, int $maxLength): bool
    {
        return is_string($value) && $value !== '' && strlen($value) <= 4 * $maxLength
            && preg_match(self::READABLE, $value) === 1 && Text::utf16Length($value) <= $maxLength;
    }

    /** @param mixed $value */
    private static function isDate($value): bool
    {
        if (!is_string($value) || preg_match(self::ISO_DATE_TIME, $value) !== 1) {
            return false;
        }
        // A calendar date that exists (no 2026-02-30).
        return checkdate((int) substr($value, 5, 2), (int) substr($value, 8, 2), (int) substr($value, 0, 4));
    }
}
