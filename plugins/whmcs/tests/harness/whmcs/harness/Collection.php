<?php
// Test harness (WHMCS 8.13): Illuminate\Support\Collection subset returned by get().

namespace WHMCS\Database;

final class Collection implements \IteratorAggregate, \Countable
{
    /** @var array<int, object> */
    private $items;

    /** @param array<int, object> $items */
    public function __construct(array $items)
    {
        $this->items = $items;
    }

    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->items);
    }

    public function count(): int
    {
        return count($this->items);
    }

    /** @return array<int, object> */
    public function all(): array
    {
        return $this->items;
    }

    public function isEmpty(): bool
    {
        return $this->items === [];
    }

    /** @return object|null */
    public function first()
    {
        return $this->items[0] ?? null;
    }
}
