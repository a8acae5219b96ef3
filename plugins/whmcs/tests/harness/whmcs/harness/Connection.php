<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Connection subset. On MySQL (Capsule::bootMysql)
// names are quoted with backticks, as in Laravel's MySqlConnection; raw SQL (select,
// affectingStatement) runs as written there, and translated on SQLite.

namespace WHMCS\Database;

final class Connection
{
    /**
     * Test-only (not part of WHMCS): microseconds to wait after each CREATE statement of raw SQL,
     * standing for a database slow to write its DDL, so other requests use the tables meanwhile.
     *
     * @var int
     */
    public static $pauseAfterCreate = 0;

    /** @var \PDO */
    private $pdo;
    /** @var bool */
    private $mysql;

    public function __construct(\PDO $pdo)
    {
        $this->pdo = $pdo;
        $this->mysql = $pdo->getAttribute(\PDO::ATTR_DRIVER_NAME) === 'mysql';
    }

    public function isMysql(): bool
    {
        return $this->mysql;
    }

    /** A table or column name quoted for the driver: "name" on SQLite, `name` on MySQL. */
    public function wrap(string $name): string
    {
        if (preg_match('/\A[A-Za-z_][A-Za-z0-9_]*\z/', $name) !== 1) {
            throw new \InvalidArgumentException('Invalid identifier ' . $name);
        }
        return $this->mysql ? '`' . $name . '`' : '"' . $name . '"';
    }

    public function getPdo(): \PDO
    {
        return $this->pdo;
    }

    public function table(string $table): QueryBuilder
    {
        return new QueryBuilder($this, $table);
    }

    /** @param array<int, mixed> $bindings */
    public function statement(string $sql, array $bindings = []): \PDOStatement
    {
        \harness_before_statement($sql);
        $statement = $this->pdo->prepare($sql);
        $statement->execute($bindings);
        return $statement;
    }

    /**
     * Laravel's Connection::select(): the rows as objects (the connection's fetch mode), the
     * bindings bound by type as Laravel's bindValues() does (an int as an integer, anything else as
     * a string, null as NULL).
     *
     * @param array<int, mixed> $bindings
     * @return array<int, object>
     */
    public function select(string $sql, array $bindings = []): array
    {
        \harness_before_statement($sql);
        return $this->run($sql, $bindings)->fetchAll(\PDO::FETCH_OBJ);
    }

    /**
     * Laravel's Connection::affectingStatement(): the rows the statement changed (on MySQL the rows
     * changed, not matched). On SQLite, a CREATE TABLE in MySQL's spelling runs as SQLite's.
     *
     * @param array<int, mixed> $bindings
     */
    public function affectingStatement(string $sql, array $bindings = []): int
    {
        \harness_before_statement($sql);
        $count = 0;
        foreach ($this->dialect($sql) as $index => $one) {
            $count += $this->run($one, $index === 0 ? $bindings : [])->rowCount();
            if (self::$pauseAfterCreate > 0 && stripos(ltrim($one), 'CREATE') === 0) {
                usleep(self::$pauseAfterCreate);
            }
        }
        return $count;
    }

    /** @param array<int, mixed> $bindings */
    private function run(string $sql, array $bindings): \PDOStatement
    {
        $statement = $this->pdo->prepare($sql);
        foreach (array_values($bindings) as $index => $value) {
            $statement->bindValue($index + 1, $value, is_int($value) ? \PDO::PARAM_INT : ($value === null ? \PDO::PARAM_NULL : \PDO::PARAM_STR));
        }
        $statement->execute();
        return $statement;
    }

    /**
     * The statement(s) in the connection's dialect. WHMCS runs on MySQL/MariaDB; on SQLite the
     * MySQL-only spellings of raw SQL are translated as the kernel's own tests do: table options,
     * keys declared inside CREATE TABLE (made CREATE INDEX statements), INSERT IGNORE.
     *
     * @return array<int, string>
     */
    private function dialect(string $sql): array
    {
        if ($this->mysql) {
            return [$sql];
        }
        $sql = (string) preg_replace('/\bINSERT\s+IGNORE\b/i', 'INSERT OR IGNORE', $sql);
        if (preg_match('/^\s*CREATE TABLE IF NOT EXISTS (\w+)/i', $sql, $table) !== 1) {
            return [$sql];
        }
        $indexes = [];
        $sql = (string) preg_replace_callback('/,\s*KEY (\w+) \(([^)]*)\)/', static function (array $key) use (&$indexes, $table): string {
            $indexes[] = 'CREATE INDEX IF NOT EXISTS ' . $key[1] . ' ON ' . $table[1] . ' (' . $key[2] . ')';
            return '';
        }, $sql);
        $sql = (string) preg_replace('/\)\s*ENGINE=\w+( DEFAULT CHARSET=\w+)?\s*$/', ')', $sql);
        return array_merge([$sql], $indexes);
    }
}
