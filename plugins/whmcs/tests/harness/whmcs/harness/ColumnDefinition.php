<?php
// Test harness (WHMCS 8.13): Illuminate\Database\Schema\ColumnDefinition subset: nullable, and a
// key on the column.

namespace WHMCS\Database;

final class ColumnDefinition
{
    /** @var string */
    private $name;
    /** @var string */
    private $type;
    /** @var bool */
    private $nullable = false;
    /** @var bool */
    private $unique = false;
    /** @var bool */
    private $indexed = false;

    public function __construct(string $name, string $type)
    {
        $this->name = $name;
        $this->type = $type;
    }

    public function nullable(bool $value = true): self
    {
        $this->nullable = $value;
        return $this;
    }

    public function unique(): self
    {
        $this->unique = true;
        return $this;
    }

    public function index(): self
    {
        $this->indexed = true;
        return $this;
    }

    public function getName(): string
    {
        return $this->name;
    }

    public function isUnique(): bool
    {
        return $this->unique;
    }

    public function isIndexed(): bool
    {
        return $this->indexed;
    }

    /** @param string $quote '"' on SQLite, '`' on MySQL */
    public function toSql(string $quote = '"'): string
    {
        $sql = $quote . $this->name . $quote . ' ' . $this->type;
        if (strpos($this->type, 'PRIMARY KEY') === false) {
            $sql .= $this->nullable ? ' NULL' : ' NOT NULL';
        }
        return $sql;
    }
}
