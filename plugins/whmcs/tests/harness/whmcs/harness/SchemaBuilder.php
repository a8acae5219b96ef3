<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Schema\Builder subset. On MySQL, hasTable() and
// hasColumn() ask information_schema about the current database, as Laravel 8/9's MySqlBuilder
// (compileTableExists, compileColumnListing; column names compared case-insensitively).

namespace WHMCS\Database;

final class SchemaBuilder
{
    /**
     * Test-only (not part of WHMCS): microseconds to wait after each statement of a schema change,
     * standing for a database slow to write its DDL (Laravel sends a table's keys as statements of
     * their own after "create table", so other requests can use the table before its keys exist).
     *
     * @var int
     */
    public static $pauseAfterStatement = 0;

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

    public function hasColumn(string $table, string $column): bool
    {
        $sql = $this->connection->isMysql()
            ? 'SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?'
            : 'SELECT name FROM pragma_table_info(?)';
        foreach ($this->connection->statement($sql, [$table])->fetchAll(\PDO::FETCH_COLUMN) as $name) {
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
        $blueprint = new Blueprint($table, $this->connection->isMysql());
        $callback($blueprint);
        \harness_schema_race();
        foreach ($alter ? $blueprint->toAlterSql() : $blueprint->toSql() as $sql) {
            $this->connection->statement($sql);
            if (self::$pauseAfterStatement > 0) {
                usleep(self::$pauseAfterStatement);
            }
        }
    }
}
