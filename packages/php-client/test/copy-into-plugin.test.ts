import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPhpSource, describeEachPhp } from '@cryptocheckout/php-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPhpClient, rewriteNamespace, SOURCE_DIR } from '../scripts/copy-into-plugin.mjs';
import { CLIENT_ROOT, LOAD_CLIENT } from './harness.js';

const workDir = mkdtempSync(join(tmpdir(), 'php-client-copy-'));
const wooDir = join(workDir, 'woo');
const prestaDir = join(workDir, 'presta');
const WOO_NAMESPACE = 'CryptoCheckoutWoo\\Vendor\\Client';
const PRESTA_NAMESPACE = 'CryptoCheckoutPresta\\Client';
let written: string[] = [];

function phpFilesUnder(directory: string, prefix = ''): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? phpFilesUnder(join(directory, entry.name), `${prefix}${entry.name}/`)
      : entry.name.endsWith('.php')
        ? [`${prefix}${entry.name}`]
        : [],
  );
}

beforeAll(async () => {
  written = await copyPhpClient({
    dest: wooDir,
    namespace: WOO_NAMESPACE,
    guard: "defined('ABSPATH') || exit;",
  });
  await copyPhpClient({ dest: prestaDir, namespace: PRESTA_NAMESPACE });
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('copyPhpClient', () => {
  it('copies every PHP file of src, keeping the layout', () => {
    expect(written).toEqual(phpFilesUnder(SOURCE_DIR).sort());
    expect(written).toContain('autoload.php');
    expect(written).toContain('Http/CurlTransport.php');
  });

  it('leaves no trace of the shared namespace', () => {
    for (const file of written) {
      const source = readFileSync(join(wooDir, file), 'utf8');
      expect(source, file).not.toMatch(/CryptoCheckout\\{1,2}Client(?!\w)/);
      expect(source, file).toMatch(/^namespace CryptoCheckoutWoo\\Vendor\\Client(\\\w+)*;$/m);
    }
    expect(readFileSync(join(wooDir, 'Client.php'), 'utf8')).toContain(
      'use CryptoCheckoutWoo\\Vendor\\Client\\Exception\\ApiException;',
    );
  });

  it('puts the guard into the autoloader only', () => {
    const autoloader = readFileSync(join(wooDir, 'autoload.php'), 'utf8');
    expect(autoloader).toMatch(
      /^namespace CryptoCheckoutWoo\\Vendor\\Client;\n\ndefined\('ABSPATH'\) \|\| exit;\n/m,
    );
    expect(readFileSync(join(wooDir, 'Money.php'), 'utf8')).not.toContain('ABSPATH');
    expect(readFileSync(join(prestaDir, 'autoload.php'), 'utf8')).not.toContain('defined(');
  });

  it("passes the platforms' static rules, with or without the guard", () => {
    for (const file of written) {
      expect(checkPhpSource(file, readFileSync(join(wooDir, file), 'utf8'), 'woocommerce')).toEqual([]);
      expect(checkPhpSource(file, readFileSync(join(prestaDir, file), 'utf8'), 'prestashop')).toEqual([]);
    }
  });

  it('removes what a previous copy left when asked to clean', async () => {
    const target = join(workDir, 'clean');
    await copyPhpClient({ dest: target, namespace: 'Clean\\Client' });
    writeFileSync(join(target, 'Stale.php'), '<?php');
    await copyPhpClient({ dest: target, namespace: 'Clean\\Client', clean: true });
    expect(phpFilesUnder(target)).not.toContain('Stale.php');
  });
});

describe('rewriteNamespace', () => {
  it('rewrites whole names only', () => {
    const source = [
      'namespace CryptoCheckout\\Client\\Http;',
      'use CryptoCheckout\\Client\\Money;',
      '/** @throws \\CryptoCheckout\\Client\\Exception\\ApiException */',
      'class MyCryptoCheckout\\ClientX {}',
    ].join('\n');
    expect(rewriteNamespace(source, 'Acme\\Pay')).toBe(
      [
        'namespace Acme\\Pay\\Http;',
        'use Acme\\Pay\\Money;',
        '/** @throws \\Acme\\Pay\\Exception\\ApiException */',
        'class MyCryptoCheckout\\ClientX {}',
      ].join('\n'),
    );
  });

  it('refuses names it cannot rewrite and namespaces that are not namespaces', () => {
    expect(() => rewriteNamespace("$class = 'CryptoCheckout\\\\Client\\\\Money';", 'Acme\\Pay')).toThrow(
      /could not be rewritten/,
    );
    expect(() => rewriteNamespace('', '\\Acme\\Pay')).toThrow(/not a PHP namespace/);
    expect(() => rewriteNamespace('', 'Acme\\Pay\\')).toThrow(/not a PHP namespace/);
    expect(() => rewriteNamespace('', '9Lives')).toThrow(/not a PHP namespace/);
    expect(() => rewriteNamespace('', 'CryptoCheckout\\Client')).toThrow(/its own namespace/);
  });
});

describe('command line', () => {
  it('copies with --dest and --namespace', () => {
    const target = join(workDir, 'cli');
    const output = execFileSync(
      process.execPath,
      [join(CLIENT_ROOT, 'scripts/copy-into-plugin.mjs'), '--dest', target, '--namespace', 'Cli\\Client'],
      { encoding: 'utf8' },
    );
    expect(output).toMatch(/^Copied \d+ files into .*cli as Cli\\Client\n$/);
    expect(readFileSync(join(target, 'Client.php'), 'utf8')).toContain('namespace Cli\\Client;');
  });

  it('explains its usage when an option is missing', () => {
    expect(() =>
      execFileSync(process.execPath, [join(CLIENT_ROOT, 'scripts/copy-into-plugin.mjs'), '--dest', workDir], {
        encoding: 'utf8',
        stdio: 'pipe',
      }),
    ).toThrow(/Usage: copy-into-plugin\.mjs --dest <dir> --namespace <Prefix>/);
  });
});

describeEachPhp(
  'copies in PHP',
  ({ php }) => {
    it('load side by side with the original and with each other', async () => {
      const classes = await php().runJson(`${LOAD_CLIENT}
        define('ABSPATH', '/');
        require '/copies/woo/autoload.php';
        require '/copies/presta/autoload.php';
        $clients = [
            new CryptoCheckout\\Client\\Client('https://a.example/api'),
            new CryptoCheckoutWoo\\Vendor\\Client\\Client('https://b.example/api'),
            new CryptoCheckoutPresta\\Client\\Client('https://c.example/api'),
        ];
        echo json_encode([
            array_map(static function ($client) { return get_class($client) . ' ' . $client->getBaseUrl(); }, $clients),
            CryptoCheckoutWoo\\Vendor\\Client\\Wallet\\AddressValidator::validate('POLYGON', '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359'),
            get_class(CryptoCheckoutPresta\\Client\\Client::createDefaultTransport(false)),
        ]);
      `);
      expect(classes).toEqual([
        [
          'CryptoCheckout\\Client\\Client https://a.example/api',
          'CryptoCheckoutWoo\\Vendor\\Client\\Client https://b.example/api',
          'CryptoCheckoutPresta\\Client\\Client https://c.example/api',
        ],
        { valid: true, address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
        'CryptoCheckoutPresta\\Client\\Http\\StreamTransport',
      ]);
    });

    it('refuse direct access once the guard is in place', async () => {
      const result = await php().runScript(`
        require '/copies/woo/autoload.php';
        echo class_exists('CryptoCheckoutWoo\\\\Vendor\\\\Client\\\\Money') ? 'loaded' : 'not loaded';
      `);
      expect(result).toMatchObject({ stdout: '', exitCode: 0 });
      const withAbspath = await php().runScript(`
        define('ABSPATH', '/');
        require '/copies/woo/autoload.php';
        echo class_exists('CryptoCheckoutWoo\\\\Vendor\\\\Client\\\\Money') ? 'loaded' : 'not loaded';
      `);
      expect(withAbspath.stdout).toBe('loaded');
    });
  },
  { mounts: { '/client': CLIENT_ROOT, '/copies': workDir } },
);
