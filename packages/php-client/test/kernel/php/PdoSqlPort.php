<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Kernel\Ledger\SqlPort;

/**
 * The ledger's SQL port over PDO: MySQL/MariaDB as the platforms run it (pdo_mysql, Debian's PHP),
 * or SQLite for the in-process tests, where the few MySQL-only spellings the ledger writes are
 * translated: table options, keys declared inside CREATE TABLE, INSERT IGNORE.
 */
final class PdoSqlPort implements SqlPort
{
    public \PDO $pdo;
    private string $prefix;
    private ?Steps $steps;

    public function __construct(\PDO $pdo, string $prefix = 'test_', ?Steps $steps = null)
    {
        $pdo->setAttribute(\PDO::ATTR_ERRMODE, \PDO::ERRMODE_EXCEPTION);
        $this->pdo = $pdo;
        $this->prefix = $prefix;
        $this->steps = $steps;
    }

    public static function sqlite(?Steps $steps = null, string $file = ':memory:'): self
    {
        return new self(new \PDO('sqlite:' . $file), 'test_', $steps);
    }

    public function table(string $name): string
    {
        return $this->prefix . $name;
    }

    public function select(string $sql, array $parameters = []): array
    {
        $this->step($sql);
        $statement = $this->statement($sql, $parameters);
        return $statement->fetchAll(\PDO::FETCH_ASSOC);
    }

    public function execute(string $sql, array $parameters = []): int
    {
        $this->step($sql);
        $count = 0;
        // Only the first statement carries parameters; the rest are the indexes of a CREATE TABLE.
        foreach ($this->dialect($sql) as $index => $one) {
            $count += $this->statement($one, $index === 0 ? $parameters : [])->rowCount();
        }
        return $count;
    }

    private function step(string $sql): void
    {
        if ($this->steps !== null) {
            $this->steps->enter('sql:' . strtok(ltrim($sql), ' '));
        }
    }

    /** @param list<string|int|null> $parameters */
    private function statement(string $sql, array $parameters): \PDOStatement
    {
        try {
            $statement = $this->pdo->prepare($sql);
            foreach (array_values($parameters) as $index => $value) {
                $statement->bindValue($index + 1, $value, $value === null ? \PDO::PARAM_NULL : (is_int($value) ? \PDO::PARAM_INT : \PDO::PARAM_STR));
            }
            $statement->execute();
            return $statement;
        } catch (\PDOException $exception) {
            throw new \RuntimeException($exception->getMessage() . ' [' . $sql . ']', 0, $exception);
        }
    }

    /** @return list<string> the statement(s) in the connection's dialect */
    private function dialect(string $sql): array
    {
        if ($this->pdo->getAttribute(\PDO::ATTR_DRIVER_NAME) !== 'sqlite') {
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
