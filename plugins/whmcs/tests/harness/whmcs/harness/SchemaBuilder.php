<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Schema\Builder subset.

namespace WHMCS\Database;

final class SchemaBuilder
{
    /** @var Connection */
    private $connection;

    public function __construct(Connection $connection)
    {
        $this->connection = $connection;
    }

    public function hasTable(string $table): bool
    {
        return $this->connection->statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [$table])->fetch() !== false;
    }

    public function create(string $table, \Closure $callback): void
    {
        $blueprint = new Blueprint($table);
        $callback($blueprint);
        foreach ($blueprint->toSql() as $sql) {
            $this->connection->statement($sql);
        }
    }
}
