<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Ledger\SqlPort;
use WHMCS\Database\Capsule;

/**
 * The kernel's ledger on WHMCS's database through Capsule's connection, which binds the '?'
 * parameters and throws a QueryException (a \RuntimeException) on an error. Tables: mod_* (WHMCS's
 * prefix for a module's own tables) + the ledger's names.
 */
final class CapsuleSql implements SqlPort
{
    public function table(string $name): string
    {
        return 'mod_' . $name;
    }

    public function select(string $sql, array $parameters = []): array
    {
        return array_map(static function ($row): array {
            return (array) $row;
        }, Capsule::connection()->select($sql, $parameters));
    }

    public function execute(string $sql, array $parameters = []): int
    {
        return Capsule::connection()->affectingStatement($sql, $parameters);
    }
}
