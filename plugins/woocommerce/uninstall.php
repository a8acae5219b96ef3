<?php
/**
 * Removes the plugin's settings and scheduled work when the plugin is deleted. Orders keep their
 * notes and the kernel's tables ({prefix}cryptocheckout_*) their checkouts: the merchant's records.
 *
 * @package CryptoCheckout\WooCommerce
 */

declare(strict_types=1);

defined('WP_UNINSTALL_PLUGIN') || exit;

delete_option('woocommerce_cryptocheckout_settings');
delete_option('cryptocheckout_wc_ledger');
delete_option('cryptocheckout_wc_ledger_schema');

if (function_exists('as_unschedule_all_actions')) {
    as_unschedule_all_actions('cryptocheckout_poll_open_orders', [], 'cryptocheckout');
    as_unschedule_all_actions('cryptocheckout_import_legacy_orders', [], 'cryptocheckout');
}
