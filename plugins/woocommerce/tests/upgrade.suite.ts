/**
 * The upgrade from 0.1.0 in place, in real WordPress on SQLite (PHP 8), for each order storage
 * WooCommerce has: HPOS, and the legacy posts storage. The orders of both released layouts are
 * written while the plugin is not active, as its earlier versions left them; then the new plugin
 * is switched on and the next requests upgrade it (support/upgrade-scenario.ts). upgrade-hpos.test.ts
 * and upgrade-posts.test.ts each run it on one storage, so the two run side by side.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  type LegacyOrder,
  type LegacyOrderName,
  storeSettings,
  type UpgradeSite,
  writeLegacyOrders,
} from './support/legacy-orders.js';
import { lit, useShop } from './support/shop.js';
import { FAIL_IMPORT_MU_PLUGIN, upgradeScenario } from './support/upgrade-scenario.js';
import { PLUGIN_FILE } from './support/wordpress.js';

/** The upgrade suite with the orders in `storage`, as its own test file runs it. */
export function upgradeSuite(storage: 'hpos' | 'posts'): void {
  describe(`upgrade from 0.1.0 in place, orders in ${storage} storage, on PHP 8`, () => {
    const shop = useShop({ php: '8' });
    const site: UpgradeSite = {
      json: (code) => shop.wp.json(code),
      webhook: (body) => shop.postWebhook(body),
      log: () => shop.wp.log(),
    };
    let orders = {} as Record<LegacyOrderName, LegacyOrder>;

    beforeAll(async () => {
      writeFileSync(join(shop.wp.contentDir, 'mu-plugins', 'test-fail-import.php'), FAIL_IMPORT_MU_PLUGIN);
      expect(
        await shop.wp.json(`
          require_once ABSPATH . 'wp-admin/includes/plugin.php';
          update_option('woocommerce_custom_orders_table_enabled', ${lit(storage === 'hpos' ? 'yes' : 'no')});
          echo json_encode(activate_plugin('woocommerce/woocommerce.php'));
        `),
      ).toBeNull();
      await storeSettings(site, shop.service);
      orders = await writeLegacyOrders(site, shop.service);
      // The new version's files are in place and active; the next request upgrades.
      expect(
        await shop.wp.json(
          `require_once ABSPATH . 'wp-admin/includes/plugin.php'; echo json_encode(activate_plugin(${lit(PLUGIN_FILE)}));`,
        ),
      ).toBeNull();
      expect(
        await shop.wp.json(
          `echo json_encode(\\Automattic\\WooCommerce\\Utilities\\OrderUtil::custom_orders_table_usage_is_enabled());`,
        ),
      ).toBe(storage === 'hpos');
    });

    upgradeScenario(() => ({ site, service: shop.service, orders }));
  });
}
