import { qrGeometry } from '@cryptocheckout/pay-page';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAILS } from '../src/rails/catalog.js';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';
import { darkModulesInMargin, decodeQrModules, readQrSvg } from './qr-raster.js';

// The QR code is what the buyer's wallet pays from: it must scan to exactly the payment link's URI
// on every rail, as the server renders it and as the browser script redraws it on a rail switch.

let server: TestServer;
let code: string;

beforeAll(async () => {
  server = await startTestServer();
  // 50 EUR is within every rail's bounds, so every rail is available.
  const created = await server.post('/api/checkout', checkoutBody({ fiat_amount: '50.00' }));
  expect(created.status).toBe(201);
  code = created.json.data.transaction_code;
  const offered = created.json.data.payment_options as Array<{ slug: string; available: boolean }>;
  expect(offered.map((option) => option.slug).sort()).toEqual(RAILS.map((rail) => rail.slug).sort());
  expect(offered.every((option) => option.available)).toBe(true);
});
afterAll(async () => {
  await server.dispose();
});

async function paymentLink(slug: string) {
  const answer = await server.get(`/api/payment_link?transaction_code=${code}&payment_method=${slug}`);
  expect(answer.status).toBe(200);
  return answer.json.data as { kind: 'crypto' | 'fiat'; uri?: string };
}

/** The pay page with `slug` chosen, and the contents of its QR element. */
async function pageQr(slug: string): Promise<{ html: string; qr: string; hidden: boolean }> {
  const response = await fetch(`${server.url}/pay/${code}?method=${slug}`);
  expect(response.status).toBe(200);
  const html = await response.text();
  const element = /<div id="cc-qr"([^>]*)>([\s\S]*?)<\/div>/.exec(html);
  if (!element) throw new Error(`no QR element on the page for ${slug}`);
  return { html, qr: element[2]!, hidden: / hidden(?=[\s>]|$)/.test(element[1]!) };
}

describe('the pay page QR code', () => {
  const cryptoRails = RAILS.filter((rail) => rail.kind === 'crypto');
  const fiatRails = RAILS.filter((rail) => rail.kind === 'fiat');

  it.each(cryptoRails.map((rail) => [rail.slug]))('scans to the payment link URI on %s', async (slug) => {
    const link = await paymentLink(slug);
    expect(link.kind).toBe('crypto');
    const uri = link.uri!;
    expect(uri).toMatch(/^[a-z]+:\S+$/);

    const { qr, hidden } = await pageQr(slug);
    expect(hidden).toBe(false);
    const served = readQrSvg(qr);
    expect(darkModulesInMargin(served, 4)).toBe(0);
    expect(decodeQrModules(served)).toBe(uri);

    // The browser script draws the same geometry when the buyer switches rails without a reload.
    const { size, path } = qrGeometry(uri);
    const redrawn = readQrSvg(`<svg viewBox="0 0 ${size} ${size}"><path d="${path}"/></svg>`);
    expect(decodeQrModules(redrawn)).toBe(uri);
  });

  it.each(fiatRails.map((rail) => [rail.slug]))('is absent on the fiat rail %s', async (slug) => {
    const link = await paymentLink(slug);
    expect(link.kind).toBe('fiat');
    expect(link.uri).toBeUndefined();
    const { html, qr, hidden } = await pageQr(slug);
    expect(hidden).toBe(true);
    expect(qr).toBe('');
    expect(html).not.toContain('<svg');
  });
});
