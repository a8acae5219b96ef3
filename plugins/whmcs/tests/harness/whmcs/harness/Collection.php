<?php
// Test harness (WHMCS 8.13): Illuminate\Support\Collection subset returned by get() and pluck().

namespace WHMCS\Database;

final class Collection implements \IteratorAggregate
{
    /** @var array<int|string, mixed> */
    private $items;

    /** @param array<int|string, mixed> $items */
    public function __construct(array $items)
    {
        $this->items = $items;
    }

    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->items);
    }

    /** @return array<int|string, mixed> */
    public function all(): array
    {
        return $this->items;
    }

    /** @return object|null */
    public function first()
    {
        return $this->items[0] ?? null;
    }
}
