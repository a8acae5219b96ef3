<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Connection subset.

namespace WHMCS\Database;

final class Connection
{
    /** @var \PDO */
    private $pdo;
    /** @var int */
    private $depth = 0;

    public function __construct(\PDO $pdo)
    {
        $this->pdo = $pdo;
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
        if ($this->depth === 0) {
            // IMMEDIATE takes SQLite's write lock at once, as InnoDB's row locks would on MySQL.
            $this->pdo->exec('BEGIN IMMEDIATE');
        }
        $this->depth++;
    }

    public function commit(): void
    {
        $this->depth--;
        if ($this->depth === 0) {
            $this->pdo->exec('COMMIT');
        }
    }

    public function rollBack(): void
    {
        $this->depth = 0;
        $this->pdo->exec('ROLLBACK');
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
