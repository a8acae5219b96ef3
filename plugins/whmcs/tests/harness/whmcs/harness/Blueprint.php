<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Schema\Blueprint subset.

namespace WHMCS\Database;

final class Blueprint
{
    /** @var string */
    private $table;
    /** @var array<int, ColumnDefinition> */
    private $columns = [];
    /** @var array<int, array{0: string, 1: array<int, string>}> */
    private $indexes = [];

    public function __construct(string $table)
    {
        $this->table = $table;
    }

    public function increments(string $name): ColumnDefinition
    {
        return $this->add($name, 'INTEGER PRIMARY KEY AUTOINCREMENT');
    }

    public function integer(string $name): ColumnDefinition
    {
        return $this->add($name, 'INTEGER');
    }

    public function unsignedInteger(string $name): ColumnDefinition
    {
        return $this->add($name, 'INTEGER');
    }

    public function string(string $name, int $length = 255): ColumnDefinition
    {
        return $this->add($name, 'VARCHAR(' . $length . ')');
    }

    public function text(string $name): ColumnDefinition
    {
        return $this->add($name, 'TEXT');
    }

    public function decimal(string $name, int $total = 8, int $places = 2): ColumnDefinition
    {
        return $this->add($name, 'DECIMAL(' . $total . ',' . $places . ')');
    }

    public function dateTime(string $name): ColumnDefinition
    {
        return $this->add($name, 'DATETIME');
    }

    public function timestamp(string $name): ColumnDefinition
    {
        return $this->add($name, 'DATETIME');
    }

    /** @param string|array<int, string> $columns */
    public function unique($columns): void
    {
        $this->indexes[] = ['UNIQUE INDEX', (array) $columns];
    }

    /** @param string|array<int, string> $columns */
    public function index($columns): void
    {
        $this->indexes[] = ['INDEX', (array) $columns];
    }

    /** @return array<int, string> */
    public function toSql(): array
    {
        $definitions = [];
        foreach ($this->columns as $column) {
            $definitions[] = $column->toSql();
            if ($column->isUnique()) {
                $this->indexes[] = ['UNIQUE INDEX', [$column->getName()]];
            }
            if ($column->isIndexed()) {
                $this->indexes[] = ['INDEX', [$column->getName()]];
            }
        }
        $statements = ['CREATE TABLE "' . $this->table . '" (' . implode(', ', $definitions) . ')'];
        foreach ($this->indexes as $number => [$kind, $columns]) {
            $statements[] = sprintf(
                'CREATE %s "%s_%d" ON "%s" ("%s")',
                $kind,
                $this->table,
                $number,
                $this->table,
                implode('", "', $columns)
            );
        }
        return $statements;
    }

    /**
     * ALTER TABLE statements adding every column defined, one per statement as SQLite needs (a
     * NOT NULL column without a default is refused there, as strict MySQL would refuse it).
     *
     * @return array<int, string>
     */
    public function toAlterSql(): array
    {
        $statements = [];
        foreach ($this->columns as $column) {
            $statements[] = 'ALTER TABLE "' . $this->table . '" ADD COLUMN ' . $column->toSql();
            if ($column->isUnique()) {
                $this->indexes[] = ['UNIQUE INDEX', [$column->getName()]];
            }
            if ($column->isIndexed()) {
                $this->indexes[] = ['INDEX', [$column->getName()]];
            }
        }
        foreach ($this->indexes as [$kind, $columns]) {
            $statements[] = sprintf('CREATE %s "%s_%s" ON "%s" ("%s")', $kind, $this->table, implode('_', $columns), $this->table, implode('", "', $columns));
        }
        return $statements;
    }

    private function add(string $name, string $type): ColumnDefinition
    {
        $column = new ColumnDefinition($name, $type);
        $this->columns[] = $column;
        return $column;
    }
}
