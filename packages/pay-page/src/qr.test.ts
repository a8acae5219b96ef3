import { describe, expect, it } from 'vitest';
import { qrGeometry, qrSvg } from './qr.js';

/** Expands the path back into a set of dark "x,y" modules. */
function darkModules(path: string): Set<string> {
  const dark = new Set<string>();
  for (const [, x, y, width] of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    for (let offset = 0; offset < Number(width); offset += 1) dark.add(`${Number(x) + offset},${y}`);
  }
  return dark;
}

describe('qrGeometry', () => {
  it('draws a QR symbol with a 4-module quiet zone and the three finder patterns', () => {
    const { size, path } = qrGeometry('bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.0004');
    const modules = size - 8;
    // Versions are 21, 25, 29, … modules wide.
    expect((modules - 21) % 4).toBe(0);
    const dark = darkModules(path);
    for (let i = 0; i < size; i += 1) {
      for (const edge of [0, 1, 2, 3, size - 4, size - 3, size - 2, size - 1]) {
        expect(dark.has(`${i},${edge}`) || dark.has(`${edge},${i}`)).toBe(false);
      }
    }
    for (const [left, top] of [
      [4, 4],
      [size - 11, 4],
      [4, size - 11],
    ]) {
      // A finder pattern: a dark 7×7 ring, a light ring, a dark 3×3 core.
      expect(dark.has(`${left},${top}`)).toBe(true);
      expect(dark.has(`${left! + 6},${top! + 6}`)).toBe(true);
      expect(dark.has(`${left! + 1},${top! + 1}`)).toBe(false);
      expect(dark.has(`${left! + 3},${top! + 3}`)).toBe(true);
    }
  });

  it('grows with the data', () => {
    expect(qrGeometry('x'.repeat(200)).size).toBeGreaterThan(qrGeometry('x').size);
  });
});

describe('qrSvg', () => {
  it('is a self-contained SVG without style attributes, hidden from assistive technology', () => {
    const svg = qrSvg('solana:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU?amount=1');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 (\d+) \1"/);
    expect(svg).toContain('aria-hidden="true"');
    expect(svg).not.toContain('style=');
  });
});
