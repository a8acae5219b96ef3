<?php
/**
 * Removes the plugin's settings and scheduled work when the plugin is deleted. Orders keep their
 * Crypto Checkout notes and data: they are the merchant's accounting records.
 *
 * @package CryptoCheckout\WooCommerce
 */

declare(strict_types=1);

defined('WP_UNINSTALL_PLUGIN') || exit;

delete_option('woocommerce_cryptocheckout_settings');

// Claim markers of runs that never finished (Order\ClaimStore).
global $wpdb;
$wpdb->query($wpdb->prepare("DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like('cryptocheckout_claim_') . '%'));

if (function_exists('as_unschedule_all_actions')) {
    as_unschedule_all_actions('cryptocheckout_poll_open_orders', [], 'cryptocheckout');
}
wp_clear_scheduled_hook('cryptocheckout_poll_open_orders');
