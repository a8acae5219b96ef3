import { decimalToScaled } from '@cryptocheckout/core';
import { qrGeometry } from '@cryptocheckout/pay-page';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers.js';
import { darkModulesInMargin, decodeQrModules, readQrSvg } from '../qr-raster.js';
import {
  bitcoinLiveOptions,
  cents,
  MERCHANT_ADDRESS,
  MERCHANT_ZPUB,
  openBitcoinCheckout,
  waitForBitcoinStatus,
} from './bitcoin-live-helpers.js';
import { type BitcoinTestNode, startBitcoinTestNode } from './bitcoin-test-node.js';

// The pay page of a live Bitcoin checkout, served by a server watching the loopback node: its QR code
// scans to exactly the payment link's BIP21 URI (address and amount), as the server renders it and as
// the browser script redraws it, and a wallet paying what it scanned pays the checkout.

let node: BitcoinTestNode;
let server: TestServer;

beforeAll(async () => {
  node = await startBitcoinTestNode();
  server = await startTestServer(bitcoinLiveOptions(node, { bitcoinConfirmations: 1 }));
});
afterAll(async () => {
  await server?.dispose();
  await node?.close();
});

async function payPage(code: string) {
  const response = await fetch(`${server.url}/pay/${code}?method=btc_bitcoin`);
  expect(response.status).toBe(200);
  const html = await response.text();
  const element = (id: string) => {
    const found = new RegExp(`<(\\w+) id="${id}"([^>]*)>([\\s\\S]*?)</\\1>`).exec(html);
    if (!found) throw new Error(`no #${id} on the page`);
    return { attributes: found[2]!, content: found[3]!, hidden: / hidden(?=[\s>]|$)/.test(found[2]!) };
  };
  const qr = /<div id="cc-qr"([^>]*)>([\s\S]*?)<\/div>/.exec(html);
  if (!qr) throw new Error('no QR element on the page');
  return { element, qr: qr[2]! };
}

/** What a BIP21 wallet reads from a URI: the address and the amount in satoshis. */
function bip21(uri: string) {
  const url = new URL(uri);
  expect(url.protocol).toBe('bitcoin:');
  return { address: url.pathname, sats: decimalToScaled(url.searchParams.get('amount')!, 8) };
}

describe('the pay page QR code of a live Bitcoin checkout', () => {
  it.each([
    ['an extended key', MERCHANT_ZPUB],
    ['a plain address', MERCHANT_ADDRESS],
  ])('scans to the BIP21 URI with the amount (%s)', async (_kind, wallet) => {
    const { code, link } = await openBitcoinCheckout(server, wallet, { external_reference: 'qr-btc' });
    const page = await payPage(code);
    const served = readQrSvg(page.qr);
    expect(darkModulesInMargin(served, 4)).toBe(0);
    expect(decodeQrModules(served)).toBe(link.uri);
    const { size, path } = qrGeometry(link.uri);
    expect(decodeQrModules(readQrSvg(`<svg viewBox="0 0 ${size} ${size}"><path d="${path}"/></svg>`))).toBe(
      link.uri,
    );
    expect(bip21(link.uri)).toEqual({ address: link.address, sats: decimalToScaled(link.amount, 8) });
    expect(page.element('cc-address').content).toBe(link.address);
    expect(page.element('cc-amount').content).toBe(link.amount);
    expect(page.element('cc-network').content).toBe('Bitcoin');
  });

  it('is paid by a wallet that pays what it scanned, and the page then says it is seen and waiting', async () => {
    const { code } = await openBitcoinCheckout(server, MERCHANT_ZPUB, { external_reference: 'qr-btc-paid' });
    const scanned = bip21(decodeQrModules(readQrSvg((await payPage(code)).qr))!);
    const buyer = node.newBuyer(10_000_000_000n);
    node.pay(buyer, [{ address: scanned.address, sats: scanned.sats }]);
    await waitForBitcoinStatus(server, code, 'processing');
    const html = await (await fetch(`${server.url}/pay/${code}`)).text();
    expect(html).toContain('Payment received, waiting for confirmation');
    node.mine(1);
    const settled = await waitForBitcoinStatus(server, code, 'settled');
    expect(cents(settled.received_usd)).toBe(cents(settled.amount_in_usd));
  });
});
