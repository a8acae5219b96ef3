import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPayAssets, PAY_ASSETS_GZIP_BUDGET } from '../scripts/build-assets.mjs';
import { assetUrl, PAY_ASSETS_DIR } from './assets.js';

const outdir = mkdtempSync(join(tmpdir(), 'pay-assets-'));
let sizes: Awaited<ReturnType<typeof buildPayAssets>>;

beforeAll(async () => {
  sizes = await buildPayAssets({ outdir });
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('browser assets', () => {
  it('build within the gzipped size budget', () => {
    const total = sizes['pay.js'].gzipBytes + sizes['pay.css'].gzipBytes;
    expect(sizes['pay.js'].gzipBytes).toBeGreaterThan(1_000);
    expect(total).toBeLessThanOrEqual(PAY_ASSETS_GZIP_BUDGET);
    // Neither validation schemas nor address checks belong in the buyer's download.
    const script = readFileSync(join(outdir, 'pay.js'), 'utf8');
    expect(script).not.toMatch(/ZodError|keccak/);
    expect(script).not.toMatch(/\beval\(|new Function\(/);
  });

  it('resolve to the package’s dist/assets and carry a content hash once built', () => {
    expect(PAY_ASSETS_DIR.replace(/\\/g, '/')).toMatch(/packages\/pay-page\/dist\/assets$/);
    expect(assetUrl('pay.js', outdir)).toMatch(/^\/pay\/assets\/pay\.js\?v=[0-9a-f]{12}$/);
    expect(assetUrl('pay.css', join(outdir, 'missing'))).toBe('/pay/assets/pay.css');
  });
});
