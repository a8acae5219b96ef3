import { decimalToScaled } from '@cryptocheckout/core';
import { qrGeometry } from '@cryptocheckout/pay-page';
import type { KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers.js';
import { darkModulesInMargin, decodeQrModules, readQrSvg } from '../qr-raster.js';
import {
  createStablecoinMints,
  openSolanaCheckout,
  type SolanaMints,
  solanaLiveOptions,
  transferRequestOf,
  waitForSolanaStatus,
} from './solana-live-helpers.js';
import { type SolanaTestChain, startSolanaTestChain } from './solana-test-chain.js';

// The pay page of a live Solana checkout, served by a server watching the SVM test chain: its QR
// code must scan to exactly the payment link's Solana Pay transfer request (recipient, amount,
// spl-token, reference, label, message), as the server renders it and as the browser script
// redraws it, and a wallet paying what it scanned pays the checkout.

let chain: SolanaTestChain;
let mints: SolanaMints;
let server: TestServer;
let buyer: KeyPairSigner;
let merchant: string;

beforeAll(async () => {
  chain = await startSolanaTestChain();
  mints = await createStablecoinMints(chain);
  buyer = await chain.newWallet(100_000_000_000n);
  await chain.mintTo(mints.usdc, buyer.address, 1_000_000_000_000n);
  merchant = (await chain.newWallet(1_000_000_000n)).address;
  server = await startTestServer(solanaLiveOptions(chain, mints));
});
afterAll(async () => {
  await server?.dispose();
  await chain?.stop();
});

/** The pay page of `code` with `slug` chosen, and the parts of it a buyer pays from. */
async function payPage(code: string, slug: string) {
  const response = await fetch(`${server.url}/pay/${code}?method=${slug}`);
  expect(response.status).toBe(200);
  const html = await response.text();
  const element = (id: string) => {
    const found = new RegExp(`<(\\w+) id="${id}"([^>]*)>([\\s\\S]*?)</\\1>`).exec(html);
    if (!found) throw new Error(`no #${id} on the page for ${slug}`);
    return { attributes: found[2]!, content: found[3]!, hidden: / hidden(?=[\s>]|$)/.test(found[2]!) };
  };
  const qr = /<div id="cc-qr"([^>]*)>([\s\S]*?)<\/div>/.exec(html);
  if (!qr) throw new Error(`no QR element on the page for ${slug}`);
  return { html, element, qr: qr[2]!, qrHidden: / hidden(?=[\s>]|$)/.test(qr[1]!) };
}

const decodeEntities = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

describe('the pay page QR code of a live Solana checkout', () => {
  it.each([
    ['USDC', 'usdc_solana'],
    ['USDT', 'usdt_solana'],
    ['SOL', 'sol_solana'],
  ])('scans to the Solana Pay transfer request of %s (%s)', async (asset, slug) => {
    const { code, link, request } = await openSolanaCheckout(server, merchant, asset, {
      external_reference: `qr-${asset.toLowerCase()}`,
    });
    expect(link.payment_method).toBe(slug);
    expect(request).toMatchObject({
      recipient: merchant,
      amount: link.amount,
      splToken: asset === 'SOL' ? null : asset === 'USDC' ? mints.usdc : mints.usdt,
      label: 'Crypto Checkout',
      message: `Order qr-${asset.toLowerCase()}`,
    });
    expect(request.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

    const page = await payPage(code, slug);
    expect(page.qrHidden).toBe(false);
    const served = readQrSvg(page.qr);
    expect(darkModulesInMargin(served, 4)).toBe(0);
    expect(decodeQrModules(served)).toBe(link.uri);

    // The browser script draws the same geometry when the buyer switches rails without a reload.
    const { size, path } = qrGeometry(link.uri);
    const redrawn = readQrSvg(`<svg viewBox="0 0 ${size} ${size}"><path d="${path}"/></svg>`);
    expect(decodeQrModules(redrawn)).toBe(link.uri);

    // The wallet link opens the same request; the page shows the merchant's wallet, the amount
    // and the network, and the note that fits Solana: the reference, not an exact amount.
    const wallet = page.element('cc-wallet');
    expect(wallet.hidden).toBe(false);
    expect(decodeEntities(/href="([^"]*)"/.exec(wallet.attributes)![1]!)).toBe(link.uri);
    expect(page.element('cc-address').content).toBe(merchant);
    expect(page.element('cc-amount').content).toBe(link.amount);
    expect(page.element('cc-asset').content).toBe(asset);
    expect(page.element('cc-network').content).toBe('Solana');
    expect(page.element('cc-pay-title').content).toBe(`Send ${link.amount} ${asset}`);
    expect(page.element('cc-exact-amount').hidden).toBe(true);
    const note = page.element('cc-reference-note');
    expect(note.hidden).toBe(false);
    expect(note.content).toMatch(/^Pay with the QR code or “Open in wallet”/);
  });

  it('is paid by a wallet that pays what it scanned', async () => {
    const { code, link } = await openSolanaCheckout(server, merchant, 'USDC', {
      external_reference: 'qr-paid',
    });
    const scanned = decodeQrModules(readQrSvg((await payPage(code, 'usdc_solana')).qr));
    expect(scanned).toBe(link.uri);
    // What a Solana Pay wallet reads from the code: recipient, amount, mint and reference.
    const request = transferRequestOf({ ...link, uri: scanned! });
    expect(request.splToken).toBe(mints.usdc);
    await chain.payToken({
      payer: buyer,
      recipient: request.recipient,
      mint: request.splToken!,
      amount: decimalToScaled(request.amount, 6),
      references: [request.reference],
    });
    await waitForSolanaStatus(server, code, 'processing');
    chain.finalize();
    const settled = await waitForSolanaStatus(server, code, 'settled');
    expect(settled.received_usd).toBe(settled.amount_in_usd);
  });
});
