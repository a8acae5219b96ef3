import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard } from '../scripts/build.mjs';

const outdir = mkdtempSync(join(tmpdir(), 'dashboard-build-'));
let sizes: Awaited<ReturnType<typeof buildDashboard>>;
const read = (file: string) => readFileSync(join(outdir, file), 'utf8');
const hashOf = (file: string) =>
  createHash('sha256')
    .update(readFileSync(join(outdir, file)))
    .digest('hex')
    .slice(0, 12);

beforeAll(async () => {
  sizes = await buildDashboard({ outdir });
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('buildDashboard', () => {
  it('writes a page that loads its hashed assets and carries no inline script or style', () => {
    const html = read('index.html');
    expect(html).toContain(
      `<script defer src="/dashboard/assets/dashboard.js?v=${hashOf('assets/dashboard.js')}"></script>`,
    );
    expect(html).toContain(
      `<link rel="stylesheet" href="/dashboard/assets/dashboard.css?v=${hashOf('assets/dashboard.css')}">`,
    );
    // Every script element has a src and is empty; no style element or attribute, no event handler attribute.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts).toHaveLength(1);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\ssrc="/);
      expect(body).toBe('');
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/javascript:/i);
  });

  it('bundles the script without schemas or markup strings, and the stylesheet with the shared base', () => {
    const script = read('assets/dashboard.js');
    expect(script).toMatch(/^("use strict";)?\(\(\)=>\{/);
    expect(script).not.toMatch(/ZodError|innerHTML|insertAdjacentHTML|outerHTML/);
    expect(script).not.toMatch(/\beval\(|new Function\(/);
    // The bundle sets no style attribute from markup either.
    expect(script).not.toMatch(/setAttribute\("style"/);
    const css = read('assets/dashboard.css');
    expect(css).toMatch(/--accent:\s*#1d4ed8/);
    expect(css).toContain('.badge--webhook-failed');
    expect(css).not.toContain('@import');
  });

  it('reports raw and gzipped sizes of every file', () => {
    expect(Object.keys(sizes).sort()).toEqual(['assets/dashboard.css', 'assets/dashboard.js', 'index.html']);
    for (const size of Object.values(sizes)) {
      expect(size.bytes).toBeGreaterThan(0);
      expect(size.gzipBytes).toBeGreaterThan(0);
    }
    expect(sizes['assets/dashboard.js'].bytes).toBe(Buffer.byteLength(read('assets/dashboard.js')));
    // A small page: a regression that bundles a framework or the schemas shows here.
    expect(sizes['assets/dashboard.js'].gzipBytes).toBeLessThan(30 * 1024);
  });
});
