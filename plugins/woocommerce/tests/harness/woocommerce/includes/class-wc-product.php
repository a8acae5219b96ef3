<?php
/** Harness (WooCommerce 10.0): the stock side of WC_Product (simple products managing stock). */

defined('ABSPATH') || exit;

class WC_Product
{
    private int $id;

    public function __construct(int $id)
    {
        $this->id = $id;
    }

    public function get_id()
    {
        return $this->id;
    }

    public function get_name()
    {
        return get_the_title($this->id);
    }

    public function managing_stock()
    {
        return get_post_meta($this->id, '_manage_stock', true) === 'yes';
    }

    public function get_stock_quantity()
    {
        $stock = get_post_meta($this->id, '_stock', true);
        return $stock === '' ? null : (int) $stock;
    }
}
