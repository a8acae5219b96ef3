<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel\Ledger;

/**
 * The platform's database as the kernel's ledger needs it: a few lines over $wpdb, PrestaShop's Db
 * or WHMCS's Capsule. The ledger writes MySQL/MariaDB SQL (what all three platforms run); '?'
 * placeholders take the parameters in order, and never appear inside the SQL's own literals.
 *
 * Rules every implementation keeps (the kernel's tests hold the PDO one to them):
 * - parameters are bound or escaped by the platform: a string as a quoted literal, an int as a
 *   number, null as NULL (SqlText::inline() does it for platforms without binding);
 * - execute() returns the rows the statement changed, as MySQL reports them (an UPDATE that
 *   writes the values a row already holds counts 0; the ledger never relies on either count);
 * - an error the database reports is thrown (\RuntimeException), never returned as false.
 */
interface SqlPort
{
    /** The full name of one of the ledger's tables: the platform's table prefix + $name. */
    public function table(string $name): string;

    /**
     * Runs a query that returns rows.
     *
     * @param list<string|int|null> $parameters
     * @return list<array<string, string|int|null>> rows keyed by column name
     * @throws \RuntimeException when the database refuses the statement
     */
    public function select(string $sql, array $parameters = []): array;

    /**
     * Runs a statement that changes rows or tables.
     *
     * @param list<string|int|null> $parameters
     * @return int the rows it changed
     * @throws \RuntimeException when the database refuses the statement
     */
    public function execute(string $sql, array $parameters = []): int;
}
