import { describe, expect, it } from 'vitest';
import { checkPhpSource, platformForPath } from '../src/index.js';

const DECLARATIONS_ONLY = `<?php
declare(strict_types=1);

namespace Acme\\Plugin;

use Acme\\Other\\Thing;

const VERSION = '1.0';

interface Shape {}

final class Square implements Shape
{
    public function area(): int
    {
        return 4;
    }
}

function helper(): void
{
}
`;

describe('checkPhpSource', () => {
  it.each([
    'woocommerce',
    'prestashop',
    'whmcs',
    'library',
  ] as const)('accepts a declarations-only file on %s without a guard', (platform) => {
    expect(checkPhpSource('src/Square.php', DECLARATIONS_ONLY, platform)).toEqual([]);
  });

  it('reports a syntax error with the path', () => {
    const problems = checkPhpSource('src/Broken.php', '<?php function (', 'library');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^src\/Broken\.php: does not parse as PHP 7\.4/);
  });

  it('refuses syntax that PHP 7.4 does not have', () => {
    expect(
      checkPhpSource(
        'a.php',
        '<?php class A { public function f() { return match (1) { 1 => 2 }; } }',
        'library',
      ),
    ).toEqual([expect.stringMatching(/does not parse as PHP 7\.4/)]);
  });

  it('reports short open tags but accepts <?php and <?=', () => {
    const source = '<?php\nclass View {}\n?>\n<p><?= "ok" ?></p>\n<? echo "short"; ?>\n';
    const problems = checkPhpSource('templates/view.php', source, 'library');
    expect(problems.filter((problem) => problem.includes('short open tag'))).toEqual([
      'templates/view.php: short open tag on line 5; use <?php',
    ]);
    expect(checkPhpSource('ok.php', '<?PHP\nclass A {}\n', 'library')).toEqual([]);
  });

  describe('WooCommerce', () => {
    it.each([
      ["defined('ABSPATH') || exit;", 'short form'],
      ["if (!defined('ABSPATH')) {\n    exit;\n}", 'if form'],
      ["defined( 'ABSPATH' ) or die( 'No direct access' );", 'or die'],
    ])('accepts %s (%s)', (guard) => {
      const source = `<?php\n/**\n * Plugin Name: Test\n */\n${guard}\nrequire __DIR__ . '/includes/loader.php';\nadd_action('init', 'f');\n`;
      expect(checkPhpSource('plugins/woocommerce/plugin.php', source, 'woocommerce')).toEqual([]);
    });

    it('refuses code that runs before the guard', () => {
      const source = "<?php\nrequire __DIR__ . '/x.php';\ndefined('ABSPATH') || exit;\n";
      expect(checkPhpSource('plugins/woocommerce/plugin.php', source, 'woocommerce')).toEqual([
        expect.stringMatching(
          /runs code on load \(line 2\) without first guarding direct access; start with defined\('ABSPATH'\) \|\| exit;/,
        ),
      ]);
    });

    it("refuses another platform's guard and a guard that does not stop", () => {
      const prestaGuard = "<?php\nif (!defined('_PS_VERSION_')) { exit; }\nrun();\n";
      expect(checkPhpSource('plugins/woocommerce/a.php', prestaGuard, 'woocommerce')).toHaveLength(1);
      const warnsOnly = "<?php\nif (!defined('ABSPATH')) { echo 'no'; }\nrun();\n";
      expect(checkPhpSource('plugins/woocommerce/a.php', warnsOnly, 'woocommerce')).toHaveLength(1);
      const withElse = "<?php\nif (!defined('ABSPATH')) { exit; } else { run(); }\n";
      expect(checkPhpSource('plugins/woocommerce/a.php', withElse, 'woocommerce')).toHaveLength(1);
    });

    it('accepts the uninstall marker in uninstall.php only', () => {
      const source = "<?php\ndefined('WP_UNINSTALL_PLUGIN') || exit;\ndelete_option('x');\n";
      expect(checkPhpSource('plugins/woocommerce/uninstall.php', source, 'woocommerce')).toEqual([]);
      expect(checkPhpSource('plugins/woocommerce/other.php', source, 'woocommerce')).toHaveLength(1);
    });

    it('treats output outside PHP tags as code', () => {
      expect(
        checkPhpSource('plugins/woocommerce/t.php', '<p>hello</p>\n<?php class A {}\n', 'woocommerce'),
      ).toHaveLength(1);
    });
  });

  describe('PrestaShop', () => {
    it('accepts the module guard', () => {
      const source =
        "<?php\nif (!defined('_PS_VERSION_')) {\n    exit;\n}\n\nclass CryptoCheckout extends PaymentModule {}\nreturn;\n";
      expect(checkPhpSource('plugins/prestashop/cryptocheckout.php', source, 'prestashop')).toEqual([]);
    });

    it('exempts index.php files that only redirect', () => {
      const source = `<?php
header('Expires: Mon, 26 Jul 1997 05:00:00 GMT');
header('Cache-Control: no-store, no-cache, must-revalidate');
header('Location: ../');
exit;
`;
      expect(checkPhpSource('plugins/prestashop/controllers/index.php', source, 'prestashop')).toEqual([]);
      expect(checkPhpSource('cryptocheckout/index.php', source, 'prestashop')).toEqual([]);
    });

    it('holds index.php files to the exemption', () => {
      const source = "<?php\nheader('Location: ../');\ninclude 'config.php';\nexit;\n";
      expect(checkPhpSource('plugins/prestashop/index.php', source, 'prestashop')).toEqual([
        expect.stringMatching(/may only send headers and exit/),
      ]);
    });
  });

  describe('WHMCS', () => {
    it('accepts the gateway guard', () => {
      const source =
        "<?php\nif (!defined('WHMCS')) {\n    die('This file cannot be accessed directly');\n}\n\nfunction cryptocheckout_config() { return []; }\nuse_something();\n";
      expect(checkPhpSource('plugins/whmcs/modules/gateways/cryptocheckout.php', source, 'whmcs')).toEqual(
        [],
      );
    });

    it('exempts the callback, which must load init.php first', () => {
      const callback =
        "<?php\nrequire_once __DIR__ . '/../../../init.php';\nrequire_once __DIR__ . '/../../../includes/gatewayfunctions.php';\nrun();\n";
      expect(
        checkPhpSource('plugins/whmcs/modules/gateways/callback/cryptocheckout.php', callback, 'whmcs'),
      ).toEqual([]);
      const late = "<?php\nrun();\nrequire_once __DIR__ . '/../../../init.php';\n";
      expect(checkPhpSource('modules/gateways/callback/cryptocheckout.php', late, 'whmcs')).toEqual([
        expect.stringMatching(/must require init\.php before anything else/),
      ]);
    });

    it('does not exempt other callback files', () => {
      const callback = "<?php\nrequire_once __DIR__ . '/../../../init.php';\n";
      expect(
        checkPhpSource('plugins/whmcs/modules/gateways/callback/other.php', callback, 'whmcs'),
      ).toHaveLength(1);
    });
  });

  describe('library', () => {
    it('refuses code that runs on load', () => {
      expect(
        checkPhpSource('packages/php-client/src/X.php', '<?php\nnamespace A;\necho 1;\n', 'library'),
      ).toEqual([expect.stringMatching(/declarations only, but line 3 runs code on load/)]);
    });

    it('accepts a registration-only autoloader on every platform', () => {
      const autoloader =
        "<?php\nnamespace A;\nspl_autoload_register(static function (string $class): void {\n    require __DIR__ . '/x.php';\n});\n";
      for (const platform of ['library', 'woocommerce', 'prestashop', 'whmcs'] as const) {
        expect(checkPhpSource('autoload.php', autoloader, platform)).toEqual([]);
      }
      expect(checkPhpSource('autoload.php', `${autoloader}run();\n`, 'library')).toHaveLength(1);
    });
  });
});

describe('platformForPath', () => {
  it('maps plugin folders to their platform and everything else to the library rules', () => {
    expect(platformForPath('plugins/woocommerce/includes/a.php')).toBe('woocommerce');
    expect(platformForPath('plugins/prestashop/cryptocheckout.php')).toBe('prestashop');
    expect(platformForPath('plugins/whmcs/modules/gateways/cryptocheckout.php')).toBe('whmcs');
    expect(platformForPath('packages/php-client/src/Client.php')).toBe('library');
  });

  it('maps test folders to the test rules, which skip the guard but not the syntax', () => {
    expect(platformForPath('plugins/woocommerce/tests/php/bootstrap.php')).toBe('test');
    expect(platformForPath('packages/php-client/test/fixtures/run.php')).toBe('test');
    expect(platformForPath('test/php/e2e.php')).toBe('test');
    expect(platformForPath('plugins/woocommerce/latest/a.php')).toBe('woocommerce');
    expect(checkPhpSource('test/php/e2e.php', '<?php\nrun();\n', 'test')).toEqual([]);
    expect(checkPhpSource('test/php/e2e.php', '<?php\nrun(\n', 'test')).toHaveLength(1);
  });
});
