<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Schema\Blueprint subset. On MySQL it writes what
// Laravel 8/9's MySqlGrammar writes: `int unsigned not null auto_increment primary key` for
// increments(), int, varchar(n), text; "create table" with Laravel's default charset and collation
// (and ENGINE InnoDB, which Laravel adds when the connection names an engine; MariaDB's default
// anyway); then each key as its own "alter table … add unique|index `<table>_<columns>_unique|index`".

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

    public function string(string $name, int $length = 255): ColumnDefinition
    {
        return $this->add($name, 'VARCHAR(' . $length . ')');
    }

    public function text(string $name): ColumnDefinition
    {
        return $this->add($name, 'TEXT');
    }

    /** @return array<int, string> */
    public function toSql(): array
    {
        if ($this->mysql) {
            return $this->toMysql();
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

    /** @return array<int, string> the MySQL statements of Schema::create() */
    private function toMysql(): array
    {
        $definitions = [];
        foreach ($this->columns as $column) {
            $definitions[] = $column->toSql('`');
            if ($column->isUnique()) {
                $this->indexes[] = ['UNIQUE', [$column->getName()]];
            }
            if ($column->isIndexed()) {
                $this->indexes[] = ['INDEX', [$column->getName()]];
            }
        }
        $statements = ['CREATE TABLE `' . $this->table . '` (' . implode(', ', $definitions) . ") DEFAULT CHARACTER SET utf8mb4 COLLATE 'utf8mb4_unicode_ci' ENGINE = InnoDB"];
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
