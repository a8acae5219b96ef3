<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel\Ledger;

/** For SqlPort implementations whose platform has no parameter binding (PrestaShop's Db). */
final class SqlText
{
    private function __construct()
    {
    }

    /**
     * $sql with each '?' replaced by its parameter: an int as digits, null as NULL, a string
     * through $quote, which must return it as a complete, escaped SQL literal ("'…'").
     *
     * @param list<string|int|null> $parameters
     * @param callable(string): string $quote
     * @throws \InvalidArgumentException when placeholders and parameters do not pair up
     */
    public static function inline(string $sql, array $parameters, callable $quote): string
    {
        $pieces = explode('?', $sql);
        if (count($pieces) !== count($parameters) + 1) {
            throw new \InvalidArgumentException(sprintf('The statement has %d placeholders for %d parameters.', count($pieces) - 1, count($parameters)));
        }
        $text = array_shift($pieces);
        foreach (array_values($parameters) as $index => $value) {
            if ($value === null) {
                $literal = 'NULL';
            } elseif (is_int($value)) {
                $literal = (string) $value;
            } else {
                $literal = (string) $quote((string) $value);
            }
            $text .= $literal . $pieces[$index];
        }
        return $text;
    }
}
