/**
 * The plugin's SQL as written on a real MariaDB (Debian's mariadbd, PHP 8 CLI with mysqli): real
 * WordPress 6.5 installed on it with the WooCommerce harness and the staged plugin, in a temporary
 * folder. php-wasm has no MySQL driver, so each step is a PHP CLI run that loads WordPress; the
 * service's webhooks are delivered in-process (rest_do_request), as no web server runs.
 *
 * - the kernel's ledger through the plugin's SqlPort over $wpdb (CREATE TABLE with its keys and
 *   InnoDB options, the refunds table added to a ledger of before refunds, INSERT IGNORE, the
 *   claim's conditional UPDATE, the poll's due query);
 * - the upgrade from 0.1.0 in place, for both released layouts, on HPOS and on the posts storage
 *   (support/upgrade-scenario.ts, the same steps as upgrade.test.ts on SQLite).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  findDebianPhp,
  type MariaDb,
  mariaDbUnavailable,
  phpCliJson,
  phpString,
  runPhpCli,
  type SandboxService,
  startMariaDb,
  startSandboxService,
} from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LegacyOrder,
  type LegacyOrderName,
  storeSettings,
  type UpgradeSite,
  writeLegacyOrders,
} from './support/legacy-orders.js';
import { lit } from './support/shop.js';
import { stagedPlugin } from './support/staged-plugin.js';
import { FAIL_IMPORT_MU_PLUGIN, upgradeScenario } from './support/upgrade-scenario.js';
import { extractWordPress, HARNESS_DIR, PLUGIN_FILE } from './support/wordpress.js';

// Skipped on a machine without MariaDB; on CI this throws rather than skip.
const unavailable = mariaDbUnavailable();

interface CliSite extends UpgradeSite {
  /** What PHP wrote to WordPress' debug.log (WP_DEBUG_LOG). */
  debugLog(): string;
  dispose(): void;
}

/** WordPress installed on a new database of the MariaDB server, with the harness and the plugin in place. */
async function installWordPress(mariadb: MariaDb, php: string, database: string): Promise<CliSite> {
  const root = mkdtempSync(join(tmpdir(), 'cryptocheckout-wp-mariadb-'));
  extractWordPress(root);
  const content = join(root, 'wp-content');
  cpSync(HARNESS_DIR, join(content, 'plugins', 'woocommerce'), { recursive: true });
  cpSync(await stagedPlugin(), join(content, 'plugins', 'cryptocheckout-for-woocommerce'), {
    recursive: true,
  });
  mkdirSync(join(content, 'mu-plugins'), { recursive: true });
  writeFileSync(join(content, 'mu-plugins', 'test-fail-import.php'), FAIL_IMPORT_MU_PLUGIN);
  writeFileSync(
    join(root, 'wp-config.php'),
    `<?php
define('DB_NAME', ${phpString(database)});
define('DB_USER', ${phpString(mariadb.user)});
define('DB_PASSWORD', ${phpString(mariadb.password)});
define('DB_HOST', ${phpString(`localhost:${mariadb.socket}`)});
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
define('WP_HOME', 'http://shop.test');
define('WP_SITEURL', 'http://shop.test');
define('WP_DEBUG', true);
define('WP_DEBUG_DISPLAY', false);
define('WP_DEBUG_LOG', ${phpString(join(root, 'debug.log'))});
$table_prefix = 'wp_';
if (!defined('ABSPATH')) { define('ABSPATH', __DIR__ . '/'); }
require_once ABSPATH . 'wp-settings.php';
`,
  );
  const prelude = (installing: boolean) => `<?php
${installing ? "define('WP_INSTALLING', true);" : ''}
$_SERVER['HTTP_HOST'] = 'shop.test';
$_SERVER['SERVER_NAME'] = 'shop.test';
$_SERVER['SERVER_PORT'] = '80';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';
require ${phpString(join(root, 'wp-load.php'))};
`;
  const json = async <T>(code: string, installing = false) =>
    phpCliJson(await runPhpCli(php, `${prelude(installing)}\n${code}`)) as T;
  phpCliJson(
    await runPhpCli(
      php,
      `<?php $admin = new mysqli('localhost', ${phpString(mariadb.user)}, ${phpString(mariadb.password)}, '', 0, ${phpString(mariadb.socket)});
      echo json_encode($admin->query('CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4'));`,
    ),
  );
  await json(
    `require_once ABSPATH . 'wp-admin/includes/upgrade.php'; wp_install('Shop', 'admin', 'admin@example.com', true, '', 'password'); echo json_encode(true);`,
    true,
  );
  return {
    json: (code) => json(code),
    webhook: (body) =>
      json(`
        $request = new WP_REST_Request('POST', '/cryptocheckout/v1/webhook');
        $request->set_header('content-type', 'application/json');
        $request->set_body(${lit(JSON.stringify(body))});
        $response = rest_do_request($request);
        echo json_encode(['status' => $response->get_status(), 'json' => $response->get_data()]);
      `),
    log: () => {
      const file = join(content, 'uploads', 'wc-logs', 'cryptocheckout.log');
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    },
    debugLog: () =>
      existsSync(join(root, 'debug.log')) ? readFileSync(join(root, 'debug.log'), 'utf8') : '',
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

describe.skipIf(unavailable !== null)('on a real MariaDB', () => {
  let mariadb: MariaDb;
  let php: string;
  let service: SandboxService;
  const sites: CliSite[] = [];

  beforeAll(async () => {
    php = findDebianPhp();
    [mariadb, service] = await Promise.all([startMariaDb(), startSandboxService()]);
  });

  afterAll(async () => {
    for (const site of sites) site.dispose();
    await mariadb?.stop();
    await service?.close();
  });

  /** WordPress on its own database, WooCommerce active on `storage`, the plugin's settings stored. */
  const shop = async (database: string, storage: 'hpos' | 'posts') => {
    const site = await installWordPress(mariadb, php, database);
    sites.push(site);
    expect(
      await site.json(`
        require_once ABSPATH . 'wp-admin/includes/plugin.php';
        update_option('woocommerce_custom_orders_table_enabled', ${lit(storage === 'hpos' ? 'yes' : 'no')});
        echo json_encode(activate_plugin('woocommerce/woocommerce.php'));
      `),
    ).toBeNull();
    await storeSettings(site, service);
    return site;
  };
  const activatePlugin = (site: UpgradeSite) =>
    site.json(
      `require_once ABSPATH . 'wp-admin/includes/plugin.php'; echo json_encode(activate_plugin(${lit(PLUGIN_FILE)}));`,
    );

  describe('the ledger over $wpdb', () => {
    let site: CliSite;
    beforeAll(async () => {
      site = await shop('ledger', 'hpos');
      expect(await activatePlugin(site)).toBeNull();
    });

    it('creates its tables with their keys, and installs again without error', async () => {
      const tables = await site.json<{
        tables: string[];
        keys: string[];
        refundKeys: string[];
        again: boolean;
      }>(`
        global $wpdb;
        $ledger = \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->ledger();
        $ledger->install();
        echo json_encode([
          'tables' => $wpdb->get_col("SHOW TABLES LIKE 'wp\\\\_cryptocheckout\\\\_%'"),
          'keys' => array_values(array_unique($wpdb->get_col('SHOW INDEX FROM wp_cryptocheckout_checkouts', 2))),
          'refundKeys' => array_values(array_unique($wpdb->get_col('SHOW INDEX FROM wp_cryptocheckout_refunds', 2))),
          'again' => $ledger->isInstalled() && $ledger->isCurrent(),
        ]);
      `);
      // The kernel's schema 2: the refunds the plugin started (docs/plugin-kernel.md, "Refunds").
      expect(tables.tables.sort()).toEqual([
        'wp_cryptocheckout_checkouts',
        'wp_cryptocheckout_orders',
        'wp_cryptocheckout_refunds',
        'wp_cryptocheckout_state',
      ]);
      expect(tables.keys.sort()).toEqual([
        'PRIMARY',
        'wp_cryptocheckout_checkouts_due',
        'wp_cryptocheckout_checkouts_order',
      ]);
      expect(tables.refundKeys.sort()).toEqual([
        'PRIMARY',
        'wp_cryptocheckout_refunds_open',
        'wp_cryptocheckout_refunds_order',
      ]);
      expect(tables.again).toBe(true);
    });

    it('gives a ledger installed before refunds (schema 1, three tables) its refunds table on the next request, once', async () => {
      await site.json(`
        global $wpdb;
        $wpdb->query('DROP TABLE wp_cryptocheckout_refunds');
        $wpdb->update('wp_cryptocheckout_state', ['state_value' => '1'], ['state_key' => 'schema_version']);
        delete_option('cryptocheckout_wc_ledger_schema');
        echo json_encode(true);
      `);
      // That request loaded WordPress before the change; the next one (a visitor, the cron) upgrades.
      const upgraded = await site.json<{ tables: string[]; schema: string | null; option: string | false }>(`
        global $wpdb;
        echo json_encode([
          'tables' => $wpdb->get_col("SHOW TABLES LIKE 'wp\\\\_cryptocheckout\\\\_refunds'"),
          'schema' => $wpdb->get_var("SELECT state_value FROM wp_cryptocheckout_state WHERE state_key = 'schema_version'"),
          'option' => get_option('cryptocheckout_wc_ledger_schema'),
        ]);
      `);
      expect(upgraded).toEqual({ tables: ['wp_cryptocheckout_refunds'], schema: '2', option: '2' });
    });

    it('claims an order once among racing requests, and refuses a statement the database refuses with an exception', async () => {
      const claims = await Promise.all(
        Array.from({ length: 6 }, () =>
          site.json<boolean>(
            `echo json_encode(\\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->ledger()->claim('4242', 'run', 'x', time()) !== null);`,
          ),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(
        await site.json<string>(`
          try { (new \\CryptoCheckout\\WooCommerce\\Order\\WpdbSqlPort())->select('SELECT * FROM wp_cryptocheckout_nothing WHERE x = ?', ['a']); echo json_encode('no error'); }
          catch (RuntimeException $refused) { echo json_encode($refused->getMessage()); }
        `),
      ).toBe(
        `The database refused "SELECT * FROM wp_cryptocheckout_nothing WHERE x …": Table 'ledger.wp_cryptocheckout_nothing' doesn't exist`,
      );
    });

    it('selects the due checkouts as PollPolicy::select does, in one query on the site database', async () => {
      const result = await site.json<{ query: string[][]; reference: string[][] }>(`
        use CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\PollPolicy;
        use CryptoCheckout\\WooCommerce\\Vendor\\Client\\Kernel\\StoredCheckout;
        $ledger = \\CryptoCheckout\\WooCommerce\\Helper\\Kernel::get()->ledger();
        $now = time() + 40 * DAY_IN_SECONDS;
        $entries = [];
        foreach ([
          ['never', ['created_at' => $now - 60, 'expires_at' => $now + 1800]],
          ['open-due', ['created_at' => $now - 900, 'expires_at' => $now + 1800, 'checked_at' => $now - 300]],
          ['open-fresh', ['created_at' => $now - 900, 'expires_at' => $now + 1800, 'checked_at' => $now - 20]],
          ['expired-since', ['created_at' => $now - 3600, 'expires_at' => $now - 30, 'checked_at' => $now - 120]],
          ['late-due', ['created_at' => $now - 7200, 'expires_at' => $now - 3600, 'checked_at' => $now - 660]],
          ['late-fresh', ['created_at' => $now - 7200, 'expires_at' => $now - 3600, 'checked_at' => $now - 300]],
          ['booked-unseen', ['created_at' => $now - 900, 'expires_at' => $now + 1800, 'checked_at' => $now - 100, 'resolution' => 'booked']],
          ['booked-seen', ['created_at' => $now - 900, 'expires_at' => $now + 1800, 'checked_at' => $now - 120, 'resolution' => 'booked', 'confirmed_at' => $now - 60]],
        ] as [$name, $fields]) {
          $checkout = StoredCheckout::fromArray($fields + ['transaction_code' => 'due-' . $name, 'service_url' => 'http://127.0.0.1:9', 'fiat_amount' => '1.00', 'fiat_currency' => 'EUR']);
          $ledger->add('due-' . $name, $checkout);
          $entries[] = ['due-' . $name, $checkout];
        }
        $policy = new PollPolicy();
        echo json_encode(['query' => $ledger->due($policy, $now), 'reference' => $policy->select($entries, $now)]);
      `);
      expect(result.query).toEqual(result.reference);
      expect(result.query.map(([order]) => order)).toEqual([
        'due-never',
        'due-late-due',
        'due-open-due',
        'due-expired-since',
        'due-booked-unseen',
      ]);
    });
  });

  describe.each([
    'hpos',
    'posts',
  ] as const)('upgrade from 0.1.0 in place, orders in %s storage', (storage) => {
    let site: CliSite;
    let orders = {} as Record<LegacyOrderName, LegacyOrder>;
    beforeAll(async () => {
      site = await shop(`upgrade_${storage}`, storage);
      orders = await writeLegacyOrders(site, service);
      expect(await activatePlugin(site)).toBeNull();
      // The first request after the new files came (a visitor, the cron) upgrades.
      expect(await site.json(`echo json_encode(get_option('cryptocheckout_wc_ledger'));`)).toBe('importing');
    });

    upgradeScenario(() => ({ site, service, orders }));

    it('leaves no PHP notice, warning or error of the plugin in debug.log', () => {
      expect(
        site
          .debugLog()
          .split('\n')
          .filter((line) => /cryptocheckout/i.test(line)),
      ).toEqual([]);
    });
  });
});
