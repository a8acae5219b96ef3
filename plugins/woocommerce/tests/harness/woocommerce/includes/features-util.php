<?php
/**
 * Harness (WooCommerce 10.0): Automattic\WooCommerce\Utilities\FeaturesUtil over the features
 * controller's compatibility rules: declarations count only inside before_woocommerce_init, for a
 * known feature and a known plugin file.
 */

namespace Automattic\WooCommerce\Utilities;

defined('ABSPATH') || exit;

class FeaturesUtil
{
    public const FEATURES = ['custom_order_tables', 'cart_checkout_blocks', 'product_block_editor', 'email_improvements', 'order_attribution'];

    /** @var array<string, array{compatible: string[], incompatible: string[]}> */
    private static array $by_feature = [];

    public static function declare_compatibility(string $feature_id, string $plugin_file, bool $positive_compatibility = true): bool
    {
        $plugin_id = plugin_basename($plugin_file);
        if (!doing_action('before_woocommerce_init')) {
            wc_doing_it_wrong('FeaturesController::declare_compatibility', 'FeaturesController::declare_compatibility should be called inside the before_woocommerce_init action.', '7.0');
            return false;
        }
        if (!in_array($feature_id, self::FEATURES, true)) {
            return false;
        }
        $key = $positive_compatibility ? 'compatible' : 'incompatible';
        $opposite = $positive_compatibility ? 'incompatible' : 'compatible';
        self::$by_feature[$feature_id] = self::$by_feature[$feature_id] ?? ['compatible' => [], 'incompatible' => []];
        if (in_array($plugin_id, self::$by_feature[$feature_id][$opposite], true)) {
            throw new \Exception(esc_html("Plugin $plugin_id is trying to declare itself as $key with the '$feature_id' feature, but it already declared itself as $opposite"));
        }
        if (!in_array($plugin_id, self::$by_feature[$feature_id][$key], true)) {
            self::$by_feature[$feature_id][$key][] = $plugin_id;
        }
        return true;
    }

    /** @return array{compatible: string[], incompatible: string[], uncertain: string[]} */
    public static function get_compatible_plugins_for_feature(string $feature_id, bool $active_only = false): array
    {
        $info = self::$by_feature[$feature_id] ?? ['compatible' => [], 'incompatible' => []];
        return ['compatible' => $info['compatible'], 'incompatible' => $info['incompatible'], 'uncertain' => []];
    }
}
