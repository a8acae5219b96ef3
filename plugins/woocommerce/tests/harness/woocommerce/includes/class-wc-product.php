<?php
/**
 * Harness (WooCommerce 10.0.2): the stock side of WC_Product (abstract-wc-product.php) for simple
 * products: stock quantity, backorders, the stock status a save derives from them (out of stock at
 * or below woocommerce_notify_no_stock_amount unless backorders are allowed), formatted name.
 */

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

    /** Simple products manage their own stock. */
    public function get_stock_managed_by_id()
    {
        return $this->get_id();
    }

    public function get_backorders()
    {
        $backorders = get_post_meta($this->id, '_backorders', true);
        return $backorders === '' ? 'no' : $backorders;
    }

    public function backorders_allowed()
    {
        return apply_filters('woocommerce_product_backorders_allowed', ('yes' === $this->get_backorders() || 'notify' === $this->get_backorders()), $this->get_id(), $this);
    }

    /** WC_Product_Data_Store_CPT / validate_props(): the status follows the quantity when stock is managed. */
    public function get_stock_status()
    {
        if (!$this->managing_stock()) {
            $status = get_post_meta($this->id, '_stock_status', true);
            return $status === '' ? 'instock' : $status;
        }
        if ((int) $this->get_stock_quantity() > absint(get_option('woocommerce_notify_no_stock_amount', 0))) {
            return 'instock';
        }
        return $this->backorders_allowed() ? 'onbackorder' : 'outofstock';
    }

    public function is_in_stock()
    {
        return apply_filters('woocommerce_product_is_in_stock', 'outofstock' !== $this->get_stock_status(), $this);
    }

    public function get_formatted_name()
    {
        return sprintf('%2$s (%1$s)', '#' . $this->get_id(), $this->get_name());
    }
}
