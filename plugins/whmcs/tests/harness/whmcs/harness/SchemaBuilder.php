<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Schema\Builder subset. On MySQL, hasTable() asks
// information_schema about the current database, as Laravel 8/9's MySqlBuilder (compileTableExists).

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
        if ($this->connection->isMysql()) {
            return $this->connection->statement("SELECT * FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ? AND table_type = 'BASE TABLE'", [$table])->fetch() !== false;
        }
        return $this->connection->statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [$table])->fetch() !== false;
    }

    /** Creates the table; like MySQL, fails with "already exists" when another request created it first. */
    public function create(string $table, \Closure $callback): void
    {
        $blueprint = new Blueprint($table, $this->connection->isMysql());
        $callback($blueprint);
        foreach ($blueprint->toSql() as $sql) {
            $this->connection->statement($sql);
        }
    }
}
