/** `npm run package`: the installable zip holds the plugin and nothing of its tooling. Written to a temporary folder. */
import { type Dirent, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { checkPhpSource, platformForPath } from '@cryptocheckout/php-testkit';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLUGIN_DIR } from '../scripts/build.mjs';
import { packagePlugin, SLUG } from '../scripts/package.mjs';
import { stagedPlugin } from './support/staged-plugin.js';

let files: Record<string, Uint8Array> = {};
const log: string[] = [];
const outDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-wc-zip-'));
let zipPath = '';

beforeAll(async () => {
  const { path } = await packagePlugin({
    outFile: join(outDir, `${SLUG}.zip`),
    log: (line) => log.push(line),
  });
  zipPath = path;
  files = unzipSync(new Uint8Array(readFileSync(path)));
});

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const names = () => Object.keys(files).sort();
const text = (name: string) => strFromU8(files[`${SLUG}/${name}`] as Uint8Array);

describe('plugin zip', () => {
  it('reports its progress and writes where it is told', () => {
    expect(zipPath).toBe(join(outDir, `${SLUG}.zip`));
    expect(log[0]).toBe('Copying the plugin files…');
    expect(log).toEqual(
      expect.arrayContaining(['Copying the PHP client…', 'Building scripts with wp-scripts…', 'Zipping…']),
    );
    expect(log.at(-1)).toBe(
      `Wrote ${zipPath}: ${names().length} files, ${readFileSync(zipPath).length} bytes`,
    );
  });

  it('holds exactly the staged plugin the WordPress tests install', async () => {
    const staged = await stagedPlugin();
    const stagedFiles = (readdirSync(staged, { recursive: true, withFileTypes: true }) as Dirent[])
      .filter((entry) => entry.isFile())
      .map((entry) => relative(staged, join(entry.parentPath, entry.name)).split('\\').join('/'));
    expect(names()).toEqual(stagedFiles.map((name) => `${SLUG}/${name}`).sort());
  });

  it('unpacks into one folder named after the plugin slug, with the main file WordPress looks for', () => {
    expect(names().every((name) => name.startsWith(`${SLUG}/`))).toBe(true);
    expect(names()).toEqual(
      expect.arrayContaining([
        `${SLUG}/${SLUG}.php`,
        `${SLUG}/uninstall.php`,
        `${SLUG}/readme.txt`,
        `${SLUG}/languages/${SLUG}.pot`,
        `${SLUG}/src/Gateway/Gateway.php`,
        `${SLUG}/src/Blocks/PaymentMethod.php`,
      ]),
    );
  });

  it('declares the headers WordPress and WooCommerce read', () => {
    const header = text(`${SLUG}.php`).slice(0, 2_000);
    const value = (name: string) => new RegExp(`^ \\* ${name}:\\s*(.+)$`, 'm').exec(header)?.[1]?.trim();
    expect(value('Plugin Name')).toBe('Crypto Checkout for WooCommerce');
    expect(value('Version')).toMatch(/^\d+\.\d+\.\d+$/);
    expect(value('Requires PHP')).toBe('7.4');
    expect(value('Requires Plugins')).toBe('woocommerce');
    expect(value('Text Domain')).toBe(SLUG);
    expect(value('Domain Path')).toBe('/languages');
    expect(value('WC requires at least')).toMatch(/^\d+\.\d+$/);
    expect(value('WC tested up to')).toBe('10.0');
    expect(value('License')).toBe('GPL-2.0-or-later');
    const readme = text('readme.txt');
    expect(readme).toMatch(/^=== Crypto Checkout for WooCommerce ===$/m);
    expect(readme).toMatch(/^Stable tag: /m);
    expect(readme).toMatch(/^Requires PHP: 7\.4$/m);
    expect(readme).toMatch(/^== Installation ==$/m);
  });

  it('holds the built scripts with their dependency files', () => {
    for (const name of ['blocks', 'admin-settings', 'thankyou']) {
      expect(names()).toContain(`${SLUG}/build/${name}.js`);
      expect(text(`build/${name}.asset.php`)).toMatch(
        /^<\?php\ndefined\('ABSPATH'\) \|\| exit;\nreturn array\('dependencies' => array\(/,
      );
    }
    expect(text('build/blocks.asset.php')).toContain("'wc-blocks-registry'");
  });

  it("holds the PHP client under the plugin's own namespace", () => {
    expect(names()).toEqual(
      expect.arrayContaining([
        `${SLUG}/lib/cryptocheckout-client/autoload.php`,
        `${SLUG}/lib/cryptocheckout-client/Client.php`,
        `${SLUG}/lib/cryptocheckout-client/Reconciler.php`,
      ]),
    );
    expect(text('lib/cryptocheckout-client/Reconciler.php')).toContain(
      'namespace CryptoCheckout\\WooCommerce\\Vendor\\Client;',
    );
    for (const name of names().filter((entry) => entry.endsWith('.php'))) {
      expect(strFromU8(files[name] as Uint8Array), name).not.toMatch(/CryptoCheckout\\{1,2}Client\b/);
    }
  });

  it('leaves out tests, sources, tooling and dependencies', () => {
    const forbidden = [
      /\/tests?\//,
      /\/node_modules\//,
      /\.ts$/,
      /\.map$/,
      /\/assets\/src\//,
      /\/scripts\//,
      /package(-lock)?\.json$/,
      /tsconfig/,
      /webpack\.config/,
      /\/README\.md$/,
      /\/\.git/,
      /\/dist\//,
    ];
    for (const name of names()) {
      for (const pattern of forbidden) expect(name, `${name} matches ${pattern}`).not.toMatch(pattern);
    }
  });

  it('passes the static PHP checks (PHP 7.4 syntax, direct-access guards) in every PHP file', () => {
    const php = names().filter((name) => name.endsWith('.php'));
    expect(php.length).toBeGreaterThan(30);
    const problems = php.flatMap((name) =>
      checkPhpSource(
        `plugins/woocommerce/${name.slice(SLUG.length + 1)}`,
        strFromU8(files[name] as Uint8Array),
        'woocommerce',
      ),
    );
    expect(problems).toEqual([]);
  });
});

describe('PHP sources in the repository', () => {
  it('pass the static checks for their place (plugin code, test harness)', () => {
    const files: string[] = [];
    const walk = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const path = join(directory, entry.name);
        if (entry.isDirectory() && !['lib', 'node_modules', 'dist', 'build'].includes(entry.name)) walk(path);
        else if (entry.isFile() && entry.name.endsWith('.php')) files.push(path);
      }
    };
    walk(PLUGIN_DIR);
    expect(files.length).toBeGreaterThan(30);
    const problems = files.flatMap((file) => {
      const path = `plugins/woocommerce/${relative(PLUGIN_DIR, file).split('\\').join('/')}`;
      return checkPhpSource(path, readFileSync(file, 'utf8'), platformForPath(path));
    });
    expect(problems).toEqual([]);
  });
});
