import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { checkPhpSource } from '@cryptocheckout/php-testkit';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAssets, MODULE_DIR, PLUGIN_ROOT } from '../scripts/build.mjs';
import { packageModule } from '../scripts/package.mjs';

// Builds cryptocheckout.zip as `npm run package` does and inspects what a merchant would upload.

const out = mkdtempSync(join(tmpdir(), 'cc-prestashop-zip-'));
let files: Record<string, Uint8Array>;
let logged: string[];

beforeAll(async () => {
  logged = [];
  const result = await packageModule({
    outFile: join(out, 'cryptocheckout.zip'),
    log: (line) => logged.push(line),
  });
  files = unzipSync(readFileSync(result.file));
});

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

const text = (name: string) => strFromU8(files[name]!);

describe('cryptocheckout.zip', () => {
  it('has one top folder, cryptocheckout/', () => {
    const tops = new Set(Object.keys(files).map((name) => name.split('/')[0]));
    expect([...tops]).toEqual(['cryptocheckout']);
  });

  it('holds the module, its controllers, templates, upgrade script, built scripts and the client copy', () => {
    for (const name of [
      'cryptocheckout/cryptocheckout.php',
      'cryptocheckout/config.xml',
      'cryptocheckout/logo.png',
      'cryptocheckout/controllers/front/validation.php',
      'cryptocheckout/controllers/front/webhook.php',
      'cryptocheckout/controllers/front/status.php',
      'cryptocheckout/controllers/front/poll.php',
      'cryptocheckout/src/PrestaShopOrderPort.php',
      'cryptocheckout/src/PrestaShopSqlPort.php',
      'cryptocheckout/src/JsonFrontController.php',
      'cryptocheckout/upgrade/upgrade-1.1.0.php',
      'cryptocheckout/upgrade/upgrade-1.3.0.php',
      'cryptocheckout/views/templates/hook/retry.tpl',
      'cryptocheckout/views/templates/admin/status.tpl',
      'cryptocheckout/views/templates/admin/index.php',
      'cryptocheckout/src/index.php',
      'cryptocheckout/views/templates/front/embedded.tpl',
      'cryptocheckout/translations/fr-FR/ModulesCryptocheckoutAdmin.fr-FR.xlf',
      'cryptocheckout/translations/de-DE/ModulesCryptocheckoutShop.de-DE.xlf',
      'cryptocheckout/views/js/admin.js',
      'cryptocheckout/views/js/front.js',
      'cryptocheckout/vendor/cryptocheckout-client/autoload.php',
      'cryptocheckout/vendor/cryptocheckout-client/Client.php',
      'cryptocheckout/vendor/cryptocheckout-client/Reconciler.php',
      'cryptocheckout/vendor/cryptocheckout-client/Kernel/Runner.php',
      'cryptocheckout/vendor/cryptocheckout-client/Kernel/Ledger/Ledger.php',
      'cryptocheckout/vendor/cryptocheckout-client/Kernel/index.php',
    ]) {
      expect(files, name).toHaveProperty([name]);
    }
    expect(text('cryptocheckout/vendor/cryptocheckout-client/Client.php')).toContain(
      'namespace CryptoCheckout\\PrestaShop\\Vendor\\Client;',
    );
    expect(text('cryptocheckout/vendor/cryptocheckout-client/autoload.php')).toContain(
      "if (!defined('_PS_VERSION_'))",
    );
    expect(logged.at(-1)).toMatch(/^wrote .*cryptocheckout\.zip \(\d+ files, \d+ B\)$/);
  });

  it('ships the committed sources unchanged', () => {
    const sourceFiles = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return name === 'vendor' ? [] : sourceFiles(path);
        return /\.js$/.test(name) ? [] : [relative(MODULE_DIR, path).split('\\').join('/')];
      });
    for (const file of sourceFiles(MODULE_DIR)) {
      expect(files[`cryptocheckout/${file}`], file).toEqual(
        new Uint8Array(readFileSync(join(MODULE_DIR, file))),
      );
    }
  });

  it('has an index.php guard in every folder', () => {
    const folders = new Set<string>();
    for (const name of Object.keys(files)) {
      const parts = name.split('/');
      for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
    }
    for (const folder of folders) expect(files, folder).toHaveProperty([`${folder}/index.php`]);
  });

  it('carries no development files', () => {
    for (const name of Object.keys(files)) {
      expect(name).not.toMatch(/\.(ts|map|mjs)$/);
      expect(name).not.toMatch(/(^|\/)(tests?|node_modules|assets|scripts)\//);
      expect(name).not.toMatch(/(^|\/)(\.[^/]+|package\.json|tsconfig\.json|README\.md)$/);
    }
  });

  it('declares the same version everywhere', () => {
    const version = (
      JSON.parse(readFileSync(join(PLUGIN_ROOT, 'package.json'), 'utf8')) as { version: string }
    ).version;
    expect(text('cryptocheckout/config.xml')).toContain(`<version><![CDATA[${version}]]></version>`);
    expect(text('cryptocheckout/cryptocheckout.php')).toContain(`$this->version = '${version}';`);
    expect(files).toHaveProperty([`cryptocheckout/upgrade/upgrade-${version}.php`]);
  });

  it('has a main file declaring the module class the way PrestaShop loads it', () => {
    const main = text('cryptocheckout/cryptocheckout.php');
    expect(main).toMatch(/^<\?php\n/);
    expect(main).toContain('class Cryptocheckout extends PaymentModule');
    expect(main).toContain("$this->name = 'cryptocheckout';");
    expect(main).toContain("$this->tab = 'payments_gateways';");
    expect(main).not.toMatch(/^namespace /m);
  });

  it('has a valid PNG logo', () => {
    const logo = files['cryptocheckout/logo.png']!;
    expect([...logo.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(new DataView(logo.buffer, logo.byteOffset).getUint32(16)).toBe(64);
  });

  it('passes the static PHP checks (PHP 7.4 syntax, guard before code)', () => {
    const phpFiles = Object.keys(files).filter((name) => name.endsWith('.php'));
    expect(phpFiles.length).toBeGreaterThan(40);
    const problems = phpFiles.flatMap((name) =>
      checkPhpSource(`plugins/prestashop/${name}`, text(name), 'prestashop'),
    );
    expect(problems).toEqual([]);
  });

  it('declares strict types in every namespaced class file', () => {
    for (const name of Object.keys(files).filter((file) => /\/(src|vendor)\/.*[A-Z]\w*\.php$/.test(file))) {
      expect(text(name), name).toContain('declare(strict_types=1);');
    }
  });

  it('escapes every template variable', () => {
    for (const name of Object.keys(files).filter((file) => file.endsWith('.tpl'))) {
      for (const [tag] of text(name).matchAll(/\{\$[^}]*\}/g)) {
        expect(tag, `${name}: ${tag}`).toMatch(/\|escape:'(html|htmlall|javascript|url)':'UTF-8'\}$/);
      }
    }
  });
});

describe('browser bundles', () => {
  const out = mkdtempSync(join(tmpdir(), 'cc-prestashop-js-'));
  let sizes: Record<string, { bytes: number; gzipBytes: number }>;

  beforeAll(async () => {
    sizes = await buildAssets(out);
  });

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('bundle admin.js and front.js as self-contained scripts within budget', async () => {
    expect(sizes['front.js']!.gzipBytes).toBeLessThan(8 * 1024);
    expect(sizes['admin.js']!.gzipBytes).toBeLessThan(16 * 1024);
    for (const name of ['admin.js', 'front.js']) {
      const source = await readFile(join(out, name), 'utf8');
      expect(source).not.toMatch(/\bimport\b\s*[{*"']/);
      expect(source).not.toContain('require(');
    }
  });
});
