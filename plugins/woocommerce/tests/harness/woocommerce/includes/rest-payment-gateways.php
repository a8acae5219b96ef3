<?php
/**
 * Harness (WooCommerce 10.0): the REST API's payment gateway routes, following
 * includes/rest-api/Controllers/Version2/class-wc-rest-payment-gateways-v2-controller.php and
 * Version3/class-wc-rest-payment-gateways-controller.php, with the setting validators of
 * Version3/class-wc-rest-controller.php and wc_rest_check_manager_permissions() of
 * includes/wc-rest-functions.php.
 *
 * What matters for a gateway is reproduced as WooCommerce does it: GET and PUT/POST/PATCH
 * /wc/v2|v3/payment_gateways/<id> need manage_woocommerce (through woocommerce_rest_check_permissions);
 * the update starts from the gateway's loaded settings, takes each posted `settings` value of a
 * form field, checked by the field's TYPE only (text/textarea: stripslashes, trim, wp_kses_post;
 * select/radio: one of the options; checkbox: yes/no; any invalid one answers 400
 * rest_setting_value_invalid and nothing is written), applies `enabled`, `title`, `description`,
 * then writes the whole array with update_option(<option key>,
 * apply_filters('woocommerce_gateway_<id>_settings_values', $settings, $gateway)) and answers
 * the gateway as the v3 controller prepares it. The routes are registered on rest_api_init like
 * WooCommerce's REST server does. Not reproduced: the collection route, `order`, the API keys'
 * authentication (tests act as a logged-in user).
 */

defined('ABSPATH') || exit;

if (!function_exists('wc_string_to_bool')) {
    function wc_string_to_bool($string)
    {
        $string = $string ?? '';
        return is_bool($string) ? $string : ('yes' === strtolower((string) $string) || 1 === $string || 'true' === strtolower((string) $string) || '1' === $string);
    }
}

if (!function_exists('wc_bool_to_string')) {
    function wc_bool_to_string($bool)
    {
        return true === (is_bool($bool) ? $bool : wc_string_to_bool($bool)) ? 'yes' : 'no';
    }
}

function wc_rest_check_manager_permissions($object, $context = 'read')
{
    $capabilities = ['settings' => 'manage_woocommerce', 'payment_gateways' => 'manage_woocommerce'];
    $permission = current_user_can($capabilities[$object] ?? 'manage_woocommerce');
    return apply_filters('woocommerce_rest_check_permissions', $permission, $context, 0, $object);
}

abstract class WC_REST_Controller extends WP_REST_Controller
{
    public function validate_setting_text_field($value, $setting)
    {
        return wp_kses_post(trim(stripslashes(is_null($value) ? '' : $value)));
    }

    public function validate_setting_textarea_field($value, $setting)
    {
        return wp_kses_post(trim(stripslashes(is_null($value) ? '' : $value)));
    }

    public function validate_setting_select_field($value, $setting)
    {
        if (array_key_exists($value, $setting['options'])) {
            return $value;
        }
        return new WP_Error('rest_setting_value_invalid', __('An invalid setting value was passed.', 'woocommerce'), ['status' => 400]);
    }

    public function validate_setting_radio_field($value, $setting)
    {
        return $this->validate_setting_select_field($value, $setting);
    }

    public function validate_setting_checkbox_field($value, $setting)
    {
        if (in_array($value, ['yes', 'no'])) { // phpcs:ignore WordPress.PHP.StrictInArray -- as WooCommerce compares
            return $value;
        }
        if (empty($value)) {
            return isset($setting['default']) ? $setting['default'] : 'no';
        }
        return new WP_Error('rest_setting_value_invalid', __('An invalid setting value was passed.', 'woocommerce'), ['status' => 400]);
    }
}

class WC_REST_Payment_Gateways_V2_Controller extends WC_REST_Controller
{
    protected $namespace = 'wc/v2';
    protected $rest_base = 'payment_gateways';

    public function register_routes()
    {
        register_rest_route($this->namespace, '/' . $this->rest_base . '/(?P<id>[\w-]+)', [
            'args' => ['id' => ['description' => 'Unique identifier for the resource.', 'type' => 'string']],
            [
                'methods' => WP_REST_Server::READABLE,
                'callback' => [$this, 'get_item'],
                'permission_callback' => [$this, 'get_item_permissions_check'],
                'args' => ['context' => $this->get_context_param(['default' => 'view'])],
            ],
            [
                'methods' => WP_REST_Server::EDITABLE,
                'callback' => [$this, 'update_item'],
                'permission_callback' => [$this, 'update_items_permissions_check'],
                'args' => $this->get_endpoint_args_for_item_schema(WP_REST_Server::EDITABLE),
            ],
            'schema' => [$this, 'get_public_item_schema'],
        ]);
    }

    public function get_item_permissions_check($request)
    {
        if (!wc_rest_check_manager_permissions('payment_gateways', 'read')) {
            return new WP_Error('woocommerce_rest_cannot_view', __('Sorry, you cannot view this resource.', 'woocommerce'), ['status' => rest_authorization_required_code()]);
        }
        return true;
    }

    public function update_items_permissions_check($request)
    {
        if (!wc_rest_check_manager_permissions('payment_gateways', 'edit')) {
            return new WP_Error('woocommerce_rest_cannot_edit', __('Sorry, you are not allowed to edit this resource.', 'woocommerce'), ['status' => rest_authorization_required_code()]);
        }
        return true;
    }

    public function get_item($request)
    {
        $gateway = $this->get_gateway($request);
        if (is_null($gateway)) {
            return new WP_Error('woocommerce_rest_payment_gateway_invalid', __('Resource does not exist.', 'woocommerce'), ['status' => 404]);
        }
        return rest_ensure_response($this->prepare_item_for_response($gateway, $request));
    }

    public function update_item($request)
    {
        $gateway = $this->get_gateway($request);
        if (is_null($gateway)) {
            return new WP_Error('woocommerce_rest_payment_gateway_invalid', __('Resource does not exist.', 'woocommerce'), ['status' => 404]);
        }
        $gateway->init_form_fields();
        $settings = $gateway->settings;
        if (isset($request['settings'])) {
            foreach ($gateway->form_fields as $key => $field) {
                if (!isset($request['settings'][$key])) {
                    continue;
                }
                $validator = 'validate_setting_' . $field['type'] . '_field';
                $value = is_callable([$this, $validator])
                    ? $this->{$validator}($request['settings'][$key], $field)
                    : $this->validate_setting_text_field($request['settings'][$key], $field);
                if (is_wp_error($value)) {
                    return new WP_Error('rest_setting_value_invalid', __('An invalid setting value was passed.', 'woocommerce'), ['status' => 400]);
                }
                $settings[$key] = $value;
            }
        }
        if (isset($request['enabled'])) {
            $settings['enabled'] = wc_bool_to_string($request['enabled']);
            $gateway->enabled = $settings['enabled'];
        }
        if (isset($request['title'])) {
            $settings['title'] = $request['title'];
            $gateway->title = $settings['title'];
        }
        if (isset($request['description'])) {
            $settings['description'] = $request['description'];
            $gateway->description = $settings['description'];
        }
        $gateway->settings = $settings;
        update_option($gateway->get_option_key(), apply_filters('woocommerce_gateway_' . $gateway->id . '_settings_values', $settings, $gateway));
        return rest_ensure_response($this->prepare_item_for_response($gateway, $request));
    }

    public function get_gateway($request)
    {
        $gateway = null;
        foreach (WC()->payment_gateways->payment_gateways() as $id => $candidate) {
            if ($request['id'] === $id) {
                $candidate->id = $id;
                $gateway = $candidate;
            }
        }
        return $gateway;
    }

    public function prepare_item_for_response($gateway, $request)
    {
        $item = $this->gateway_item($gateway);
        $context = !empty($request['context']) ? $request['context'] : 'view';
        $data = $this->filter_response_by_context($this->add_additional_fields_to_object($item, $request), $context);
        return apply_filters('woocommerce_rest_prepare_payment_gateway', rest_ensure_response($data), $gateway, $request);
    }

    /** The members of a gateway in an answer. */
    protected function gateway_item($gateway)
    {
        $order = (array) get_option('woocommerce_gateway_order');
        return [
            'id' => $gateway->id,
            'title' => $gateway->title,
            'description' => $gateway->description,
            'order' => isset($order[$gateway->id]) ? $order[$gateway->id] : '',
            'enabled' => ('yes' === $gateway->enabled),
            'method_title' => $gateway->get_method_title(),
            'method_description' => $gateway->method_description,
            'settings' => $this->get_settings($gateway),
        ];
    }

    /** The form fields with their current values, as v2 lists them ('title' fields left out). */
    public function get_settings($gateway)
    {
        $settings = [];
        $gateway->init_form_fields();
        foreach ($gateway->form_fields as $id => $field) {
            if (empty($field['title']) || empty($field['type']) || 'title' === $field['type'] || in_array($id, ['enabled', 'description'], true)) {
                continue;
            }
            $settings[$id] = $this->describe_setting($gateway, $id, $field);
        }
        return $settings;
    }

    protected function describe_setting($gateway, $id, $field)
    {
        $data = [
            'id' => $id,
            'label' => empty($field['label']) ? $field['title'] : $field['label'],
            'description' => empty($field['description']) ? '' : $field['description'],
            'type' => $field['type'],
            'value' => empty($gateway->settings[$id]) ? '' : $gateway->settings[$id],
            'default' => empty($field['default']) ? '' : $field['default'],
            'tip' => empty($field['description']) ? '' : $field['description'],
            'placeholder' => empty($field['placeholder']) ? '' : $field['placeholder'],
        ];
        if (!empty($field['options'])) {
            $data['options'] = $field['options'];
        }
        return $data;
    }

    public function get_item_schema()
    {
        $readonly = static function (string $type): array {
            return ['type' => $type, 'context' => ['view', 'edit'], 'readonly' => true];
        };
        $writable = static function (string $type): array {
            return ['type' => $type, 'context' => ['view', 'edit']];
        };
        return $this->add_additional_fields_schema([
            '$schema' => 'http://json-schema.org/draft-04/schema#',
            'title' => 'payment_gateway',
            'type' => 'object',
            'properties' => [
                'id' => $readonly('string'),
                'title' => $writable('string'),
                'description' => $writable('string'),
                'order' => $writable('integer') + ['arg_options' => ['sanitize_callback' => 'absint']],
                'enabled' => $writable('boolean'),
                'method_title' => $readonly('string'),
                'method_description' => $readonly('string'),
                'settings' => $writable('object') + ['properties' => [
                    'id' => $readonly('string'),
                    'label' => $readonly('string'),
                    'description' => $readonly('string'),
                    'type' => $readonly('string') + ['enum' => ['text', 'email', 'number', 'color', 'password', 'textarea', 'select', 'multiselect', 'radio', 'image_width', 'checkbox']],
                    'value' => $writable('string'),
                    'default' => $readonly('string'),
                    'tip' => $readonly('string'),
                    'placeholder' => $readonly('string'),
                ]],
            ],
        ]);
    }
}

class WC_REST_Payment_Gateways_Controller extends WC_REST_Payment_Gateways_V2_Controller
{
    protected $namespace = 'wc/v3';

    /** v3 adds method_supports, and lists 'title' fields too. */
    protected function gateway_item($gateway)
    {
        $item = parent::gateway_item($gateway);
        return array_slice($item, 0, 7, true) + ['method_supports' => $gateway->supports] + array_slice($item, 7, null, true);
    }

    public function get_item_schema()
    {
        $schema = parent::get_item_schema();
        $schema['properties']['method_supports'] = ['type' => 'array', 'context' => ['view', 'edit'], 'readonly' => true, 'items' => ['type' => 'string']];
        return $schema;
    }

    public function get_settings($gateway)
    {
        $settings = [];
        $gateway->init_form_fields();
        foreach ($gateway->form_fields as $id => $field) {
            if (empty($field['title']) || empty($field['type']) || in_array($id, ['enabled', 'description'], true)) {
                continue;
            }
            $settings[$id] = $this->describe_setting($gateway, $id, $field);
        }
        return $settings;
    }
}

add_action('rest_api_init', static function () {
    (new WC_REST_Payment_Gateways_V2_Controller())->register_routes();
    (new WC_REST_Payment_Gateways_Controller())->register_routes();
}, 10);
