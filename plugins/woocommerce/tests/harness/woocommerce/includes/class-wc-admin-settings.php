<?php
/** Harness (WooCommerce 10.0): WC_Admin_Settings' message store. */

defined('ABSPATH') || exit;

class WC_Admin_Settings
{
    /** @var string[] */
    private static $errors = [];
    /** @var string[] */
    private static $messages = [];

    public static function add_error($text)
    {
        self::$errors[] = $text;
    }

    public static function add_message($text)
    {
        self::$messages[] = $text;
    }

    /** Harness helper. */
    public static function get_errors(): array
    {
        return self::$errors;
    }

    /** Harness helper. */
    public static function get_messages(): array
    {
        return self::$messages;
    }
}
