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

    public function hasColumn(string $table, string $column): bool
    {
        foreach ($this->connection->statement('SELECT name FROM pragma_table_info(?)', [$table])->fetchAll(\PDO::FETCH_COLUMN) as $name) {
            if (strcasecmp((string) $name, $column) === 0) {
                return true;
            }
        }
        return false;
    }

    /** Creates the table; like MySQL, fails with "already exists" when another request created it first. */
    public function create(string $table, \Closure $callback): void
    {
        $this->change($table, $callback, false);
    }

    /** Alters the table: adds the columns (and their indexes) the callback defines. */
    public function table(string $table, \Closure $callback): void
    {
        $this->change($table, $callback, true);
    }

    private function change(string $table, \Closure $callback, bool $alter): void
    {
        $blueprint = new Blueprint($table);
        $callback($blueprint);
        \harness_schema_race();
        foreach ($alter ? $blueprint->toAlterSql() : $blueprint->toSql() as $sql) {
            $this->connection->statement($sql);
        }
    }
}
