import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPhpSource, PHP_VERSIONS } from '@cryptocheckout/php-testkit';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, VENDOR_DIR } from '../scripts/package.mjs';
import { bootWhmcs } from './harness/harness.js';

// Builds the installable zip, inspects it, checks every PHP file in it with the shared static
// rules, and installs it into the WHMCS harness to activate the gateway and render its button.

const outDir = mkdtempSync(join(tmpdir(), 'whmcs-package-'));
let files: Map<string, Uint8Array>;
const log: string[] = [];

beforeAll(async () => {
  const built = await buildPackage({ outDir, log: (line) => log.push(line) });
  files = new Map(Object.entries(unzipSync(readFileSync(built.zipPath))));
});

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

const text = (path: string) => new TextDecoder().decode(files.get(path));

describe('package zip', () => {
  it('is laid out like the WHMCS root, with the built script and the PHP client', () => {
    const names = [...files.keys()];
    expect(log.some((line) => line.startsWith('wrote '))).toBe(true);
    for (const required of [
      'modules/gateways/cryptocheckout.php',
      'modules/gateways/callback/cryptocheckout.php',
      'includes/hooks/cryptocheckout.php',
      'modules/gateways/cryptocheckout/autoload.php',
      'modules/gateways/cryptocheckout/assets/invoice.js',
      `${VENDOR_DIR}/autoload.php`,
      `${VENDOR_DIR}/Reconciler.php`,
      `${VENDOR_DIR}/Wallet/AddressValidator.php`,
    ]) {
      expect(names).toContain(required);
    }
    expect(
      names.every((name) => name.startsWith('modules/gateways/') || name.startsWith('includes/hooks/')),
    ).toBe(true);
    expect(
      names.filter((name) => /(^|\/)(tests?|node_modules|src)\//.test(name) || /\.(ts|mts|map)$/.test(name)),
    ).toEqual([]);
    expect(text(`${VENDOR_DIR}/Client.php`)).toContain('namespace CryptoCheckout\\Whmcs\\Vendor\\Client;');
    expect(text(`${VENDOR_DIR}/Client.php`)).not.toMatch(/CryptoCheckout\\Client\b/);
    expect(text('modules/gateways/cryptocheckout/assets/invoice.js').length).toBeGreaterThan(1000);
  });

  it('has the gateway functions and the WHMCS guard in its main file', () => {
    const main = text('modules/gateways/cryptocheckout.php');
    for (const name of [
      'cryptocheckout_MetaData',
      'cryptocheckout_config',
      'cryptocheckout_config_validate',
      'cryptocheckout_link',
      'cryptocheckout_refund',
    ]) {
      expect(main).toContain(`function ${name}(`);
    }
    expect(main).toMatch(/if \(!defined\('WHMCS'\)\) \{\s+die\(/);
    const callback = text('modules/gateways/callback/cryptocheckout.php');
    expect(callback).toContain("require_once __DIR__ . '/../../../init.php';");
    expect(callback).toContain('getGatewayVariables(');
    expect(text('includes/hooks/cryptocheckout.php')).toContain("add_hook('AfterCronJob'");
    expect(text('includes/hooks/cryptocheckout.php')).toContain("add_hook('AdminInvoicesControlsOutput'");
  });

  it('passes the static PHP checks', () => {
    const problems: string[] = [];
    for (const [name, data] of files) {
      if (name.endsWith('.php'))
        problems.push(...checkPhpSource(name, new TextDecoder().decode(data), 'whmcs'));
    }
    expect(problems).toEqual([]);
  });
});

for (const version of PHP_VERSIONS) {
  describe(`package zip installed in WHMCS [PHP ${version}]`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), `whmcs-package-${version}-`));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    it('activates and renders the pay button', async () => {
      const whmcs = await bootWhmcs(version, { dataDir, moduleFiles: files });
      try {
        const html = await whmcs.driver<string>(`
          harness_setup('https://billing.example.com/', ['USD' => '1.00000']);
          $saved = harness_save_gateway(['serviceUrl' => 'https://pay.example.com', 'walletAddress' => '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359']);
          if (!$saved['saved']) { throw new RuntimeException($saved['error']); }
          echo json_encode(harness_view_invoice(harness_create_invoice(harness_create_client('USD'), '10.00')));
        `);
        expect(html).toContain(
          'action="https://billing.example.com/modules/gateways/callback/cryptocheckout.php?action=pay"',
        );
        expect(html).toContain('name="amount" value="10.00"');
      } finally {
        whmcs.dispose();
      }
    });
  });
}
