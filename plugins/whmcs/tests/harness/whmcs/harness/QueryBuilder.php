<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Query\Builder subset. On MySQL, as Laravel's
// MySqlGrammar: backtick-quoted names, lockForUpdate() as "FOR UPDATE", and update()/delete()
// returning PDO's row count, which MySQL gives as the rows changed (see Capsule::bootMysql).

namespace WHMCS\Database;

final class QueryBuilder
{
    private const OPERATORS = ['=', '<', '>', '<=', '>=', '<>', '!=', 'like'];

    /** @var Connection */
    private $connection;
    /** @var string */
    private $table;
    /** @var string */
    private $tableName;
    /** @var array<int, string> */
    private $wheres = [];
    /** @var array<int, mixed> */
    private $bindings = [];
    /** @var array<int, string> */
    private $orders = [];
    /** @var int|null */
    private $limit;
    /** @var bool */
    private $lock = false;

    public function __construct(Connection $connection, string $table)
    {
        $this->connection = $connection;
        $this->tableName = $table;
        $this->table = $this->identifier($table);
    }

    /**
     * where('col', value), where('col', '<', value), where(['col' => value, ...]) or
     * where(function ($query) { ... }) for a parenthesised group.
     *
     * @param string|array<string, mixed>|\Closure $column
     * @param mixed $operator
     * @param mixed $value
     */
    public function where($column, $operator = null, $value = null): self
    {
        return $this->addWhere('AND', func_num_args(), $column, $operator, $value);
    }

    /**
     * The same conditions joined with OR.
     *
     * @param string|array<string, mixed>|\Closure $column
     * @param mixed $operator
     * @param mixed $value
     */
    public function orWhere($column, $operator = null, $value = null): self
    {
        return $this->addWhere('OR', func_num_args(), $column, $operator, $value);
    }

    public function whereNull(string $column): self
    {
        return $this->push('AND', $this->identifier($column) . ' IS NULL', []);
    }

    public function whereNotNull(string $column): self
    {
        return $this->push('AND', $this->identifier($column) . ' IS NOT NULL', []);
    }

    /**
     * @param string|array<string, mixed>|\Closure $column
     * @param mixed $operator
     * @param mixed $value
     */
    private function addWhere(string $boolean, int $argumentCount, $column, $operator, $value): self
    {
        if ($column instanceof \Closure) {
            $group = new self($this->connection, $this->tableName);
            $column($group);
            return $group->wheres === [] ? $this : $this->push($boolean, '(' . implode(' ', $group->wheres) . ')', $group->bindings);
        }
        if (is_array($column)) {
            foreach ($column as $name => $expected) {
                $this->addWhere($boolean, 3, $name, '=', $expected);
            }
            return $this;
        }
        if ($argumentCount === 2) {
            $value = $operator;
            $operator = '=';
        }
        if (!in_array(strtolower((string) $operator), self::OPERATORS, true)) {
            throw new \InvalidArgumentException('Unsupported operator ' . $operator);
        }
        if ($value === null) {
            return $this->push($boolean, $this->identifier($column) . ($operator === '=' ? ' IS NULL' : ' IS NOT NULL'), []);
        }
        return $this->push($boolean, $this->identifier($column) . ' ' . $operator . ' ?', [$value]);
    }

    /** @param array<int, mixed> $bindings */
    private function push(string $boolean, string $condition, array $bindings): self
    {
        $this->wheres[] = ($this->wheres === [] ? '' : $boolean . ' ') . $condition;
        foreach ($bindings as $binding) {
            $this->bindings[] = $binding;
        }
        return $this;
    }

    /** @param array<int, mixed> $values */
    public function whereIn(string $column, array $values): self
    {
        if ($values === []) {
            return $this->push('AND', '0 = 1', []);
        }
        return $this->push('AND', $this->identifier($column) . ' IN (' . implode(', ', array_fill(0, count($values), '?')) . ')', array_values($values));
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

    public function take(int $limit): self
    {
        return $this->limit($limit);
    }

    /** FOR UPDATE on MySQL; a no-op on SQLite, whose write transactions already serialise (Connection::beginTransaction). */
    public function lockForUpdate(): self
    {
        $this->lock = $this->connection->isMysql();
        return $this;
    }

    public function get(): Collection
    {
        $sql = 'SELECT * FROM ' . $this->table . $this->whereSql() . $this->orderSql()
            . ($this->limit !== null ? ' LIMIT ' . (int) $this->limit : '') . ($this->lock ? ' FOR UPDATE' : '');
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

    public function exists(): bool
    {
        return $this->first() !== null;
    }

    public function count(): int
    {
        $sql = 'SELECT COUNT(*) AS aggregate FROM ' . $this->table . $this->whereSql();
        return (int) $this->connection->statement($sql, $this->bindings)->fetch(\PDO::FETCH_OBJ)->aggregate;
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
        return $this->wheres === [] ? '' : ' WHERE ' . implode(' ', $this->wheres);
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
