<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Schema\Blueprint subset. On MySQL it writes what
// Laravel 8/9's MySqlGrammar writes: `int unsigned not null auto_increment primary key` for
// increments(), int, varchar(n), text; "create table" with Laravel's default charset and collation
// (and ENGINE InnoDB, which Laravel adds when the connection names an engine; MariaDB's default
// anyway); then each key as its own "alter table … add unique|index `<table>_<columns>_unique|index`";
// and for Schema::table() one "alter table … add …, add …" for the columns before their keys.

namespace WHMCS\Database;

final class Blueprint
{
    /** @var string */
    private $table;
    /** @var array<int, ColumnDefinition> */
    private $columns = [];
    /** @var array<int, array{0: string, 1: array<int, string>}> */
    private $indexes = [];
    /** @var bool */
    private $mysql;

    public function __construct(string $table, bool $mysql = false)
    {
        $this->table = $table;
        $this->mysql = $mysql;
    }

    public function increments(string $name): ColumnDefinition
    {
        return $this->add($name, $this->mysql ? 'INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT');
    }

    public function integer(string $name): ColumnDefinition
    {
        return $this->add($name, $this->mysql ? 'INT' : 'INTEGER');
    }

    public function unsignedInteger(string $name): ColumnDefinition
    {
        return $this->add($name, $this->mysql ? 'INT UNSIGNED' : 'INTEGER');
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
        return $this->add($name, $this->mysql ? 'TIMESTAMP' : 'DATETIME');
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
        if ($this->mysql) {
            return $this->toMysql(false);
        }
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
        if ($this->mysql) {
            return $this->toMysql(true);
        }
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

    /** @return array<int, string> the MySQL statements of Schema::create() or, with $alter, Schema::table() */
    private function toMysql(bool $alter): array
    {
        $definitions = [];
        foreach ($this->columns as $column) {
            $definitions[] = ($alter ? 'ADD ' : '') . $column->toSql('`');
            if ($column->isUnique()) {
                $this->indexes[] = ['UNIQUE', [$column->getName()]];
            }
            if ($column->isIndexed()) {
                $this->indexes[] = ['INDEX', [$column->getName()]];
            }
        }
        $statements = $alter
            ? ['ALTER TABLE `' . $this->table . '` ' . implode(', ', $definitions)]
            : ['CREATE TABLE `' . $this->table . '` (' . implode(', ', $definitions) . ") DEFAULT CHARACTER SET utf8mb4 COLLATE 'utf8mb4_unicode_ci' ENGINE = InnoDB"];
        foreach ($this->indexes as [$kind, $columns]) {
            $name = strtolower($this->table . '_' . implode('_', $columns) . '_' . ($kind === 'INDEX' ? 'index' : 'unique'));
            $kind = $kind === 'UNIQUE INDEX' ? 'UNIQUE' : $kind;
            $statements[] = sprintf('ALTER TABLE `%s` ADD %s `%s`(`%s`)', $this->table, $kind, $name, implode('`, `', $columns));
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
