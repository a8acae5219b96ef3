<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Admin;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\SettingsRules;

/**
 * The merchant key setting (docs/refunds.md, "Credentials"): the `ccm_…` key the Crypto Checkout
 * operator issues for the shop's wallet (or the operator token), which refunds need; its shape and
 * its masked form are the kernel's (SettingsRules::isMerchantKey(), maskedMerchantKey()). It is a
 * secret, so it is never written back in full: the settings form shows an empty password field
 * with the key's first and last characters as its placeholder (an empty field keeps the saved key;
 * a box removes it), and the REST API shows the same masked form, which written back keeps the
 * saved key too.
 */
final class MerchantKeyField
{
    public const KEY = 'merchant_key';
    /** The form's "remove the saved key" box: the field's name with this suffix. */
    public const REMOVE_SUFFIX = '_remove';
    /** In a masked key (SettingsRules::maskedMerchantKey()), between its first and last characters; never part of a real key. */
    private const ELLIPSIS = '…';

    private function __construct()
    {
    }

    /** @return array<string, mixed> the field for Gateway::init_form_fields() */
    public static function formField(): array
    {
        return [
            'title' => __('Merchant key', 'cryptocheckout-for-woocommerce'),
            'type' => 'password',
            'description' => __('For refunds from the order screen: the merchant key for your wallet address, as your Crypto Checkout operator issued it (ccm_…). Leave the field empty to keep the saved key.', 'cryptocheckout-for-woocommerce'),
            'default' => '',
            'placeholder' => 'ccm_…',
        ];
    }

    /** Where the key is set, for messages. */
    public static function missingMessage(): string
    {
        return __('No merchant key is set, so Crypto Checkout cannot refund: enter the merchant key your Crypto Checkout operator issued for your wallet under WooCommerce > Settings > Payments > Crypto Checkout > Merchant key. Nothing was refunded.', 'cryptocheckout-for-woocommerce');
    }

    /** What is wrong with a key that is not empty, or null. */
    public static function problem(string $key): ?string
    {
        if (SettingsRules::isMerchantKey($key)) {
            return null;
        }
        return __('Merchant key: paste the key as your Crypto Checkout operator issued it (ccm_…): one word of at least 24 characters, without spaces. The saved key was kept.', 'cryptocheckout-for-woocommerce');
    }

    /** The key as shown back: its first four and last four characters, or nothing. */
    public static function mask(string $key): string
    {
        return SettingsRules::maskedMerchantKey($key);
    }

    /** True when $value is what mask() shows (or earlier versions showed: bullets), not a key (a form or REST client writing back what it read). */
    public static function isMasked(string $value): bool
    {
        return strpos($value, self::ELLIPSIS) !== false || strpos($value, '•') !== false;
    }

    /**
     * The key to store from the form: the saved one when the field is empty or masked, none when
     * the remove box is ticked, else the new key trimmed.
     *
     * @param mixed $posted
     * @throws \Exception naming the field when the new key cannot be one (WooCommerce keeps the saved key and shows it)
     */
    public static function fromForm($posted, string $stored, bool $remove): string
    {
        if ($remove) {
            return '';
        }
        $value = trim(stripslashes(is_scalar($posted) ? (string) $posted : ''));
        if ($value === '' || self::isMasked($value)) {
            return $stored;
        }
        $problem = self::problem($value);
        if ($problem !== null) {
            throw new \Exception($problem); // phpcs:ignore WordPress.Security.EscapeOutput.ExceptionNotEscaped -- WooCommerce prints settings errors through wp_kses_post
        }
        return $value;
    }

    /**
     * The field's row of the settings form (WC_Settings_API::generate_text_html's markup): an empty
     * password input whose placeholder shows the saved key masked, and the remove box.
     *
     * @param array<string, mixed> $data the form field
     */
    public static function render(string $fieldKey, array $data, string $stored): string
    {
        $placeholder = $stored === '' ? (string) ($data['placeholder'] ?? '') : self::mask($stored);
        $html = '<tr valign="top"><th scope="row" class="titledesc"><label for="' . esc_attr($fieldKey) . '">' . wp_kses_post((string) ($data['title'] ?? '')) . '</label></th><td class="forminp"><fieldset>'
            . '<legend class="screen-reader-text"><span>' . wp_kses_post((string) ($data['title'] ?? '')) . '</span></legend>'
            . '<input class="input-text regular-input" type="password" name="' . esc_attr($fieldKey) . '" id="' . esc_attr($fieldKey) . '" value="" placeholder="' . esc_attr($placeholder) . '" autocomplete="new-password" spellcheck="false" />';
        if ($stored !== '') {
            $html .= '<p class="cryptocheckout-merchant-key-saved">' . esc_html(sprintf(
                /* translators: %s: the saved key's first and last characters */
                __('A key is saved (%s).', 'cryptocheckout-for-woocommerce'),
                self::mask($stored)
            )) . ' <label><input type="checkbox" name="' . esc_attr($fieldKey . self::REMOVE_SUFFIX) . '" value="1" /> '
                . esc_html__('Remove the saved key', 'cryptocheckout-for-woocommerce') . '</label></p>';
        }
        if (!empty($data['description'])) {
            $html .= '<p class="description">' . wp_kses_post((string) $data['description']) . '</p>';
        }
        return $html . '</fieldset></td></tr>';
    }

    /**
     * woocommerce_rest_prepare_payment_gateway: the REST API shows the key masked.
     *
     * @param mixed $response
     * @param mixed $gateway
     * @return mixed
     */
    public static function maskRestResponse($response, $gateway, $request)
    {
        if (!$response instanceof \WP_REST_Response || !is_object($gateway) || ($gateway->id ?? '') !== Gateway::ID) {
            return $response;
        }
        $data = $response->get_data();
        if (is_array($data) && isset($data['settings'][self::KEY]) && is_array($data['settings'][self::KEY])) {
            $data['settings'][self::KEY]['value'] = self::mask((string) ($data['settings'][self::KEY]['value'] ?? ''));
            $response->set_data($data);
        }
        return $response;
    }
}
