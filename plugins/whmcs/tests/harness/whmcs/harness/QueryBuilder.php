<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Query\Builder subset. On MySQL, as Laravel's
// MySqlGrammar: backtick-quoted names, and update()/delete() returning PDO's row count, which
// MySQL gives as the rows changed (see Capsule::bootMysql).

namespace WHMCS\Database;

final class QueryBuilder
{
    /** @var Connection */
    private $connection;
    /** @var string */
    private $table;
    /** @var array<int, string> */
    private $wheres = [];
    /** @var array<int, mixed> */
    private $bindings = [];
    /** @var array<int, string> */
    private $orders = [];
    /** @var int|null */
    private $limit;

    public function __construct(Connection $connection, string $table)
    {
        $this->connection = $connection;
        $this->table = $this->identifier($table);
    }

    /** where('col', value): the column equals the value (the conditions joined with AND). @param mixed $value */
    public function where(string $column, $value): self
    {
        $this->wheres[] = $this->identifier($column) . ' = ?';
        $this->bindings[] = $value;
        return $this;
    }

    public function orderBy(string $column, string $direction = 'asc'): self
    {
        $this->orders[] = $this->identifier($column) . (strtolower($direction) === 'desc' ? ' DESC' : ' ASC');
        return $this;
    }

    public function limit(int $limit): self
    {
        $this->limit = $limit;
        return $this;
    }

    public function get(): Collection
    {
        $sql = 'SELECT * FROM ' . $this->table . $this->whereSql() . $this->orderSql() . ($this->limit !== null ? ' LIMIT ' . (int) $this->limit : '');
        return new Collection($this->connection->statement($sql, $this->bindings)->fetchAll(\PDO::FETCH_OBJ));
    }

    /** @return object|null */
    public function first()
    {
        $copy = clone $this;
        $copy->limit = 1;
        return $copy->get()->first();
    }

    /** @return mixed */
    public function value(string $column)
    {
        $row = $this->first();
        return $row === null ? null : ($row->{$column} ?? null);
    }

    /** Laravel's pluck($column, $key): the column's values, keyed by another column's. */
    public function pluck(string $column, string $key): Collection
    {
        $values = [];
        foreach ($this->get()->all() as $row) {
            $values[$row->{$key}] = $row->{$column};
        }
        return new Collection($values);
    }

    public function exists(): bool
    {
        return $this->first() !== null;
    }

    /** @param array<string, mixed> $values */
    public function insert(array $values): bool
    {
        $this->insertGetId($values);
        return true;
    }

    /** @param array<string, mixed> $values */
    public function insertGetId(array $values): int
    {
        $columns = array_map([$this, 'identifier'], array_keys($values));
        $sql = 'INSERT INTO ' . $this->table . ' (' . implode(', ', $columns) . ') VALUES ('
            . implode(', ', array_fill(0, count($values), '?')) . ')';
        $this->connection->statement($sql, array_values($values));
        return (int) $this->connection->getPdo()->lastInsertId();
    }

    /**
     * @param array<string, mixed> $values
     * @return int the number of rows changed
     */
    public function update(array $values): int
    {
        $sets = [];
        foreach (array_keys($values) as $column) {
            $sets[] = $this->identifier($column) . ' = ?';
        }
        $sql = 'UPDATE ' . $this->table . ' SET ' . implode(', ', $sets) . $this->whereSql();
        return $this->connection->statement($sql, array_merge(array_values($values), $this->bindings))->rowCount();
    }

    public function delete(): int
    {
        return $this->connection->statement('DELETE FROM ' . $this->table . $this->whereSql(), $this->bindings)->rowCount();
    }

    private function whereSql(): string
    {
        return $this->wheres === [] ? '' : ' WHERE ' . implode(' AND ', $this->wheres);
    }

    private function orderSql(): string
    {
        return $this->orders === [] ? '' : ' ORDER BY ' . implode(', ', $this->orders);
    }

    private function identifier(string $name): string
    {
        return $this->connection->wrap($name);
    }
}
