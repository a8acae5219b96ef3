<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Blocks;

defined('ABSPATH') || exit;

use Automattic\WooCommerce\Blocks\Payments\Integrations\AbstractPaymentMethodType;
use CryptoCheckout\WooCommerce\Gateway\Gateway;
use CryptoCheckout\WooCommerce\Helper\Assets;
use CryptoCheckout\WooCommerce\Vendor\Client\Money;

/**
 * Crypto Checkout in the block checkout. The block script (build/blocks.js) registers the method
 * with these settings; payment itself runs through Gateway::process_payment, as in the classic
 * checkout.
 */
final class PaymentMethod extends AbstractPaymentMethodType
{
    public const SCRIPT_HANDLE = 'cryptocheckout-blocks';

    /** @var string */
    protected $name = Gateway::ID;

    public function initialize()
    {
        $settings = get_option('woocommerce_cryptocheckout_settings', []);
        $this->settings = is_array($settings) ? $settings : [];
    }

    public function is_active()
    {
        $gateway = $this->gateway();
        return $gateway !== null && $gateway->is_available();
    }

    /** @return string[] */
    public function get_payment_method_script_handles()
    {
        return Assets::register(self::SCRIPT_HANDLE, 'blocks') ? [self::SCRIPT_HANDLE] : [];
    }

    /** @return array<string, mixed> */
    public function get_payment_method_data()
    {
        $gateway = $this->gateway();
        return [
            'title' => (string) $this->get_setting('title', __('Pay with crypto', 'cryptocheckout-for-woocommerce')),
            'description' => (string) $this->get_setting('description', ''),
            'buttonLabel' => __('Pay with crypto', 'cryptocheckout-for-woocommerce'),
            'supports' => $gateway !== null ? array_values(array_filter($gateway->supports, [$gateway, 'supports'])) : ['products'],
            'isConfigured' => $gateway !== null && $gateway->serviceConfig() !== null,
            'supportedCurrencies' => array_keys(Money::currencies()),
            'checkoutDisplay' => (string) $this->get_setting('checkout_display', 'redirect'),
            'settlement' => [
                'asset' => (string) $this->get_setting('wallet_currency', 'USDC'),
                'network' => (string) $this->get_setting('wallet_network', 'POLYGON'),
            ],
        ];
    }

    private function gateway(): ?Gateway
    {
        if (!function_exists('WC')) {
            return null;
        }
        $gateways = WC()->payment_gateways()->payment_gateways();
        $gateway = $gateways[Gateway::ID] ?? null;
        return $gateway instanceof Gateway ? $gateway : null;
    }
}
