<?php
/**
 * Harness (WooCommerce 10.0): WC_Meta_Data, class-wc-meta-data.php. One meta row of an object
 * (id, key, value); get_changes() tells save_meta_data() whether the row must be written.
 */

defined('ABSPATH') || exit;

class WC_Meta_Data implements JsonSerializable
{
    /** @var array<string, mixed> */
    protected $current_data;
    /** @var array<string, mixed> */
    protected $data;

    /** @param array<string, mixed> $meta */
    public function __construct($meta = [])
    {
        $this->current_data = $meta;
        $this->apply_changes();
    }

    #[\ReturnTypeWillChange]
    public function jsonSerialize()
    {
        return $this->get_data();
    }

    public function apply_changes()
    {
        $this->data = $this->current_data;
    }

    public function __set($key, $value)
    {
        $this->current_data[$key] = $value;
    }

    public function __isset($key)
    {
        return array_key_exists($key, $this->current_data);
    }

    public function __get($key)
    {
        return $this->current_data[$key] ?? null;
    }

    /** @return array<string, mixed> */
    public function get_changes()
    {
        $changes = [];
        foreach ($this->current_data as $id => $value) {
            if (!array_key_exists($id, $this->data) || $value !== $this->data[$id]) {
                $changes[$id] = $value;
            }
        }
        return $changes;
    }

    /** @return array<string, mixed> */
    public function get_data()
    {
        return array_intersect_key($this->current_data, array_flip(['id', 'key', 'value']));
    }
}
