<?php
/**
 * Harness (WooCommerce 10.0): the block checkout's payment method integration API —
 * IntegrationInterface, PaymentMethodTypeInterface, AbstractPaymentMethodType and
 * PaymentMethodRegistry, initialised on init (priority 5) with the
 * woocommerce_blocks_payment_method_type_registration action, as Payments\Api does.
 */

namespace Automattic\WooCommerce\Blocks\Integrations {

    defined('ABSPATH') || exit;

    interface IntegrationInterface
    {
        public function get_name();

        public function initialize();

        public function get_script_handles();

        public function get_editor_script_handles();

        public function get_script_data();
    }

    class IntegrationRegistry
    {
        /** @var array<string, IntegrationInterface> */
        protected $registered_integrations = [];
        /** @var string */
        protected $registry_identifier = '';

        public function initialize($registry_identifier = '')
        {
            if ($registry_identifier) {
                $this->registry_identifier = $registry_identifier;
            }
            do_action('woocommerce_blocks_' . $this->registry_identifier . '_registration', $this);
            foreach ($this->get_all_registered() as $registered_integration) {
                $registered_integration->initialize();
            }
        }

        public function register(IntegrationInterface $integration)
        {
            $name = $integration->get_name();
            if ($this->is_registered($name)) {
                _doing_it_wrong(__METHOD__, esc_html(sprintf('"%s" is already registered.', $name)), '4.6.0'); // phpcs:ignore
                return false;
            }
            $this->registered_integrations[$name] = $integration;
            return true;
        }

        public function is_registered($name)
        {
            return isset($this->registered_integrations[$name]);
        }

        public function get_all_registered()
        {
            return $this->registered_integrations;
        }
    }
}

namespace Automattic\WooCommerce\Blocks\Payments {

    use Automattic\WooCommerce\Blocks\Integrations\IntegrationInterface;
    use Automattic\WooCommerce\Blocks\Integrations\IntegrationRegistry;

    interface PaymentMethodTypeInterface extends IntegrationInterface
    {
        public function is_active();

        public function get_payment_method_script_handles();

        public function get_payment_method_script_handles_for_admin();

        public function get_supported_features();

        public function get_payment_method_data();
    }

    final class PaymentMethodRegistry extends IntegrationRegistry
    {
        protected $registry_identifier = 'payment_method_type';

        public function get_all_active_registered()
        {
            return array_filter($this->get_all_registered(), static function ($payment_method) {
                return $payment_method->is_active();
            });
        }

        public function get_all_active_payment_method_script_dependencies()
        {
            $script_handles = [];
            foreach ($this->get_all_active_registered() as $payment_method) {
                $script_handles = array_merge(
                    $script_handles,
                    is_admin() ? $payment_method->get_payment_method_script_handles_for_admin() : $payment_method->get_payment_method_script_handles()
                );
            }
            return array_unique(array_filter($script_handles));
        }

        public function get_all_registered_script_data()
        {
            $script_data = [];
            foreach ($this->get_all_active_registered() as $payment_method) {
                $script_data[$payment_method->get_name()] = $payment_method->get_payment_method_data();
            }
            return ['paymentMethodData' => array_filter($script_data)];
        }
    }
}

namespace Automattic\WooCommerce\Blocks\Payments\Integrations {

    use Automattic\WooCommerce\Blocks\Payments\PaymentMethodTypeInterface;

    abstract class AbstractPaymentMethodType implements PaymentMethodTypeInterface
    {
        /** @var string */
        protected $name = '';
        /** @var array */
        protected $settings = [];

        protected function get_setting($name, $default = '')
        {
            return isset($this->settings[$name]) ? $this->settings[$name] : $default;
        }

        public function get_name()
        {
            return $this->name;
        }

        public function is_active()
        {
            return true;
        }

        public function get_payment_method_script_handles()
        {
            return [];
        }

        public function get_payment_method_script_handles_for_admin()
        {
            return $this->get_payment_method_script_handles();
        }

        public function get_supported_features()
        {
            return ['products'];
        }

        public function get_payment_method_data()
        {
            return [];
        }

        public function get_script_handles()
        {
            return $this->get_payment_method_script_handles();
        }

        public function get_editor_script_handles()
        {
            return $this->get_payment_method_script_handles_for_admin();
        }

        public function get_script_data()
        {
            return $this->get_payment_method_data();
        }
    }
}

namespace {

    defined('ABSPATH') || exit;

    add_action('init', static function () {
        $GLOBALS['wc_harness_payment_method_registry'] = new \Automattic\WooCommerce\Blocks\Payments\PaymentMethodRegistry();
        $GLOBALS['wc_harness_payment_method_registry']->initialize();
    }, 5);
}
