import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decimalToScaled } from '@cryptocheckout/core';
import { buildPayAssets } from '@cryptocheckout/pay-page/build-assets';
import { startServer } from '@cryptocheckout/server';
import { type SolanaTestChain, startSolanaTestChain } from '@cryptocheckout/server/testing/solana-chain';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanQrCode } from './qr-screenshot.js';
import {
  fetchPaymentLink,
  launchChromium,
  openPage,
  PHONE,
  type RunningServer,
  screenshot,
  startMerchantShop,
} from './support.js';

// The pay page in live mode on Solana, against the SVM test chain (packages/server/test/solana/):
// on a phone, the buyer sees the merchant's wallet, the amount and the note that fits Solana (pay
// with the QR code or wallet link, which carry the reference), the QR code scans to the Solana Pay
// transfer request, and a wallet paying that request takes the page to settled on its own.

const USDC_DECIMALS = 6;

let chain: SolanaTestChain;
let usdc: string;
let merchant: string;
let server: RunningServer;
let dataDir: string;
let shop: Awaited<ReturnType<typeof startMerchantShop>>;
let browser: Browser;

beforeAll(async () => {
  chain = await startSolanaTestChain();
  usdc = await chain.createMint({ decimals: USDC_DECIMALS });
  const usdt = await chain.createMint({ decimals: USDC_DECIMALS });
  merchant = (await chain.newWallet(1_000_000_000n)).address;
  await buildPayAssets();
  dataDir = mkdtempSync(join(tmpdir(), 'cc-browser-solana-'));
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    mode: 'live',
    // The dated static table keeps amounts fixed (docs/rates.md).
    rates: { source: 'static', fixedPricesInLiveMode: true },
    live: {
      rpcUrls: { SOLANA: chain.rpcUrl },
      tokens: { 'SOLANA:USDC': usdc, 'SOLANA:USDT': usdt },
      pollIntervalMs: 100,
    },
  });
  shop = await startMerchantShop();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await server?.close();
  await chain?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('hosted pay page in live mode on Solana', () => {
  it('shows the Solana Pay request as QR code and wallet link on a phone, and settles once a wallet pays it', async () => {
    const response = await fetch(`${server.url}/api/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        fiat_amount: '25.00',
        fiat_currency: 'EUR',
        external_reference: 'solana-browser-1',
        success_url: `${shop.origin}/thanks`,
        cancel_url: `${shop.origin}/cart`,
        customer: { wallet_address: merchant, crypto_currency: 'USDC', crypto_currency_network: 'SOLANA' },
      }),
    });
    expect(response.status).toBe(201);
    const checkout = ((await response.json()) as { data: { transaction_code: string; checkout_url: string } })
      .data;

    const { context, page, problems } = await openPage(browser, PHONE);
    await page.goto(checkout.checkout_url);
    await page.locator('#cc-status-title', { hasText: 'Waiting for your payment' }).waitFor();
    await page.locator('a[data-rail="usdc_solana"]').click();
    await page.locator('#cc-pay').waitFor({ state: 'visible' });

    const link = await fetchPaymentLink(server, checkout.transaction_code, 'usdc_solana');
    const request = new URL(link.uri);
    expect(request.protocol).toBe('solana:');
    expect(request.pathname).toBe(merchant);
    expect(request.searchParams.get('spl-token')).toBe(usdc);
    expect(request.searchParams.get('amount')).toBe(link.amount);
    const reference = request.searchParams.get('reference')!;
    expect(reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

    expect(await page.locator('#cc-amount').textContent()).toBe(link.amount);
    expect(await page.locator('#cc-address').textContent()).toBe(merchant);
    expect(await page.locator('#cc-network').textContent()).toBe('Solana');
    expect(await page.locator('#cc-wallet').getAttribute('href')).toBe(link.uri);
    // Solana Pay requests are matched by their reference, not by an exact amount.
    expect(await page.locator('#cc-exact-amount').isVisible()).toBe(false);
    const note = page.locator('#cc-reference-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/^Pay with the QR code or “Open in wallet”/);
    // What a wallet's camera reads off the screen is the transfer request, reference included.
    expect(await scanQrCode(page.locator('#cc-qr svg'))).toBe(link.uri);
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'live-solana-crypto', { fullPage: true });

    const buyer = await chain.newWallet(10_000_000_000n);
    await chain.mintTo(usdc, buyer.address, 1_000_000_000n);
    await chain.payToken({
      payer: buyer,
      recipient: request.pathname,
      mint: usdc,
      amount: decimalToScaled(link.amount, USDC_DECIMALS),
      references: [reference],
    });
    await page
      .locator('#cc-status-title', { hasText: 'Payment received, waiting for confirmation' })
      .waitFor({ timeout: 20_000 });
    chain.finalize();
    await page.locator('#cc-status-title', { hasText: 'Payment complete' }).waitFor({ timeout: 20_000 });
    await page.waitForURL(`${shop.origin}/thanks`);
    expect(problems).toEqual([]);
    await context.close();
  });
});
