<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Connection subset. On MySQL (Capsule::bootMysql)
// names are quoted with backticks and transactions are PDO's, as in Laravel's MySqlConnection.

namespace WHMCS\Database;

final class Connection
{
    /** @var \PDO */
    private $pdo;
    /** @var int */
    private $depth = 0;
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

    public function beginTransaction(): void
    {
        if ($this->depth === 0 && $this->mysql) {
            $this->pdo->beginTransaction();
        } elseif ($this->depth === 0) {
            // IMMEDIATE takes SQLite's write lock at once, as InnoDB's row locks would on MySQL.
            $this->pdo->exec('BEGIN IMMEDIATE');
        }
        $this->depth++;
    }

    public function commit(): void
    {
        $this->depth--;
        if ($this->depth === 0) {
            $this->mysql ? $this->pdo->commit() : $this->pdo->exec('COMMIT');
        }
    }

    public function rollBack(): void
    {
        $this->depth = 0;
        $this->mysql ? $this->pdo->rollBack() : $this->pdo->exec('ROLLBACK');
    }

    /** @return mixed */
    public function transaction(\Closure $callback)
    {
        $this->beginTransaction();
        try {
            $result = $callback($this);
            $this->commit();
            return $result;
        } catch (\Throwable $error) {
            $this->rollBack();
            throw $error;
        }
    }

    /** @param array<int, mixed> $bindings */
    public function statement(string $sql, array $bindings = []): \PDOStatement
    {
        $statement = $this->pdo->prepare($sql);
        $statement->execute($bindings);
        return $statement;
    }
}
