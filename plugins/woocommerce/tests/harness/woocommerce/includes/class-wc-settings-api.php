<?php
/**
 * Harness (WooCommerce 10.0): WC_Settings_API, abstract-wc-settings-api.php. Same properties, option
 * key, field keys, defaults, validate_<key>_field / validate_<type>_field lookup, and the
 * process_admin_options loop that keeps a field's previous value when its validation throws.
 */

defined('ABSPATH') || exit;

abstract class WC_Settings_API
{
    public $plugin_id = 'woocommerce_';
    public $id = '';
    public $errors = [];
    public $settings = [];
    public $form_fields = [];
    protected $data = [];

    public function get_form_fields()
    {
        return apply_filters('woocommerce_settings_api_form_fields_' . $this->id, array_map([$this, 'set_defaults'], $this->form_fields));
    }

    protected function set_defaults($field)
    {
        if (!isset($field['default'])) {
            $field['default'] = '';
        }
        return $field;
    }

    public function admin_options()
    {
        echo '<table class="form-table">' . $this->generate_settings_html($this->get_form_fields(), false) . '</table>'; // phpcs:ignore
    }

    public function init_form_fields()
    {
    }

    public function get_option_key()
    {
        return $this->plugin_id . $this->id . '_settings';
    }

    public function get_field_type($field)
    {
        return empty($field['type']) ? 'text' : $field['type'];
    }

    public function get_field_default($field)
    {
        return empty($field['default']) ? '' : $field['default'];
    }

    public function get_field_value($key, $field, $post_data = [])
    {
        $type = $this->get_field_type($field);
        $field_key = $this->get_field_key($key);
        $post_data = empty($post_data) ? $_POST : $post_data; // phpcs:ignore
        $value = isset($post_data[$field_key]) ? $post_data[$field_key] : null;
        if (isset($field['sanitize_callback']) && is_callable($field['sanitize_callback'])) {
            return call_user_func($field['sanitize_callback'], $value);
        }
        if (is_callable([$this, 'validate_' . $key . '_field'])) {
            return $this->{'validate_' . $key . '_field'}($key, $value);
        }
        if (is_callable([$this, 'validate_' . $type . '_field'])) {
            return $this->{'validate_' . $type . '_field'}($key, $value);
        }
        return $this->validate_text_field($key, $value);
    }

    public function set_post_data($data = [])
    {
        $this->data = $data;
    }

    public function get_post_data()
    {
        if (!empty($this->data) && is_array($this->data)) {
            return $this->data;
        }
        return $_POST; // phpcs:ignore
    }

    public function update_option($key, $value = '')
    {
        if (empty($this->settings)) {
            $this->init_settings();
        }
        $this->settings[$key] = $value;
        return update_option($this->get_option_key(), apply_filters('woocommerce_settings_api_sanitized_fields_' . $this->id, $this->settings), 'yes');
    }

    public function process_admin_options()
    {
        $this->init_settings();
        $post_data = $this->get_post_data();
        foreach ($this->get_form_fields() as $key => $field) {
            if ('title' !== $this->get_field_type($field)) {
                try {
                    $this->settings[$key] = $this->get_field_value($key, $field, $post_data);
                    if ('select' === $field['type'] || 'checkbox' === $field['type']) {
                        do_action('woocommerce_update_non_option_setting', ['id' => $key, 'type' => $field['type'], 'value' => $this->settings[$key]]);
                    }
                } catch (Exception $e) {
                    $this->add_error($e->getMessage());
                }
            }
        }
        $option_key = $this->get_option_key();
        do_action('woocommerce_update_option', ['id' => $option_key]);
        return update_option($option_key, apply_filters('woocommerce_settings_api_sanitized_fields_' . $this->id, $this->settings), 'yes');
    }

    public function add_error($error)
    {
        $this->errors[] = $error;
    }

    public function get_errors()
    {
        return $this->errors;
    }

    public function display_errors()
    {
        if ($this->get_errors()) {
            echo '<div id="woocommerce_errors" class="error notice is-dismissible">';
            foreach ($this->get_errors() as $error) {
                echo '<p>' . wp_kses_post($error) . '</p>';
            }
            echo '</div>';
        }
    }

    public function init_settings()
    {
        $this->settings = get_option($this->get_option_key(), null);
        if (!is_array($this->settings)) {
            $form_fields = $this->get_form_fields();
            $this->settings = array_merge(array_fill_keys(array_keys($form_fields), ''), wp_list_pluck($form_fields, 'default'));
        }
    }

    public function get_option($key, $empty_value = null)
    {
        if (empty($this->settings)) {
            $this->init_settings();
        }
        if (!isset($this->settings[$key])) {
            $form_fields = $this->get_form_fields();
            $this->settings[$key] = isset($form_fields[$key]) ? $this->get_field_default($form_fields[$key]) : '';
        }
        if (!is_null($empty_value) && '' === $this->settings[$key]) {
            $this->settings[$key] = $empty_value;
        }
        return $this->settings[$key];
    }

    public function get_field_key($key)
    {
        return $this->plugin_id . $this->id . '_' . $key;
    }

    /**
     * A plain rendering of the field types the real class renders (text, textarea, select, checkbox);
     * a generate_<type>_html method of the subclass renders its type instead, as in WooCommerce
     * (where a gateway's method replaces the base class's own).
     */
    public function generate_settings_html($form_fields = [], $echo = true)
    {
        if (empty($form_fields)) {
            $form_fields = $this->get_form_fields();
        }
        $html = '';
        foreach ($form_fields as $k => $v) {
            $type = $this->get_field_type($v);
            if (method_exists($this, 'generate_' . $type . '_html')) {
                $html .= $this->{'generate_' . $type . '_html'}($k, $v);
                continue;
            }
            $field_key = $this->get_field_key($k);
            $value = $this->get_option($k);
            $html .= '<tr valign="top"><th scope="row" class="titledesc"><label for="' . esc_attr($field_key) . '">' . wp_kses_post($v['title'] ?? '') . '</label></th><td class="forminp">';
            if ($type === 'select') {
                $html .= '<select name="' . esc_attr($field_key) . '" id="' . esc_attr($field_key) . '">';
                foreach ((array) ($v['options'] ?? []) as $option_key => $option_value) {
                    $html .= '<option value="' . esc_attr((string) $option_key) . '"' . selected((string) $option_key, esc_attr((string) $value), false) . '>' . esc_html((string) $option_value) . '</option>';
                }
                $html .= '</select>';
            } elseif ($type === 'checkbox') {
                $html .= '<input type="checkbox" name="' . esc_attr($field_key) . '" id="' . esc_attr($field_key) . '" value="1" ' . checked($value, 'yes', false) . ' />';
            } elseif ($type === 'textarea') {
                $html .= '<textarea name="' . esc_attr($field_key) . '" id="' . esc_attr($field_key) . '">' . esc_textarea((string) $value) . '</textarea>';
            } else {
                $html .= '<input type="text" name="' . esc_attr($field_key) . '" id="' . esc_attr($field_key) . '" value="' . esc_attr((string) $value) . '" />';
            }
            $html .= $this->get_description_html($v) . '</td></tr>';
        }
        if ($echo) {
            echo $html; // phpcs:ignore
        }
        return $html;
    }

    /** The field's description under it, as WooCommerce prints it (none when desc_tip is true: it is a tooltip then). */
    public function get_description_html($data)
    {
        $desc_tip = $data['desc_tip'] ?? false;
        if (true === $desc_tip) {
            $description = '';
        } elseif (!empty($desc_tip)) {
            $description = $data['description'] ?? '';
        } else {
            $description = $data['description'] ?? '';
        }
        return $description ? '<p class="description">' . wp_kses_post($description) . '</p>' . "\n" : '';
    }

    public function validate_text_field($key, $value)
    {
        $value = is_null($value) ? '' : $value;
        return wp_kses_post(trim(stripslashes($value)));
    }

    public function validate_password_field($key, $value)
    {
        $value = is_null($value) ? '' : $value;
        return trim(stripslashes($value));
    }

    public function validate_textarea_field($key, $value)
    {
        $value = is_null($value) ? '' : $value;
        return wp_kses_post(trim(stripslashes($value)));
    }

    public function validate_checkbox_field($key, $value)
    {
        return !is_null($value) ? 'yes' : 'no';
    }

    public function validate_select_field($key, $value)
    {
        $value = is_null($value) ? '' : $value;
        return wc_clean(stripslashes($value));
    }
}
