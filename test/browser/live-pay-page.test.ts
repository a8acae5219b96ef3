import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decimalToScaled, type PaymentOption } from '@cryptocheckout/core';
import { buildPayAssets } from '@cryptocheckout/pay-page/build-assets';
import { startServer } from '@cryptocheckout/server';
import { liveCheckoutBody, liveOptions, MERCHANT_WALLET } from '@cryptocheckout/server/testing/live-helpers';
import { type LocalChain, startLocalChain } from '@cryptocheckout/server/testing/local-chain';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanQrCode } from './qr-screenshot.js';
import {
  fetchPaymentLink,
  launchChromium,
  openPage,
  type RunningServer,
  screenshot,
  startMerchantShop,
} from './support.js';

// The pay page in live mode, against a real (local) EVM chain: the buyer sees the exact, tagged
// amount at the merchant's own wallet, pays it on chain, and the page follows the confirmations
// to the settled state on its own.

const CONFIRMATIONS = 3;
const USDC_DECIMALS = 6;
const DESKTOP = { viewport: { width: 1280, height: 900 } };

let chain: LocalChain;
let usdc: `0x${string}`;
let server: RunningServer;
let dataDir: string;
let shop: Awaited<ReturnType<typeof startMerchantShop>>;
let browser: Browser;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', USDC_DECIMALS);
  await buildPayAssets();
  dataDir = mkdtempSync(join(tmpdir(), 'cc-browser-live-'));
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    sweepIntervalMs: 250,
    ...liveOptions(chain, usdc, CONFIRMATIONS),
  });
  shop = await startMerchantShop();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await server?.close();
  await chain?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Creates a live checkout paid to {@link MERCHANT_WALLET}, returning to the stand-in shop. */
async function createLiveCheckout(reference: string) {
  const response = await fetch(`${server.url}/api/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      liveCheckoutBody({
        external_reference: reference,
        success_url: `${shop.origin}/thanks`,
        cancel_url: `${shop.origin}/cart`,
      }),
    ),
  });
  const body = (await response.json()) as {
    data: {
      transaction_code: string;
      checkout_url: string;
      amount_in_usd: number;
      payment_options: PaymentOption[];
    };
  };
  expect(response.status).toBe(201);
  return body.data;
}

describe('hosted pay page in live mode', () => {
  it('shows the exact amount at the merchant’s wallet, and settles by itself once paid on chain', async () => {
    const checkout = await createLiveCheckout('live-browser-1');
    const { context, page, problems } = await openPage(browser, DESKTOP);
    await page.goto(checkout.checkout_url);
    await page.locator('#cc-status-title', { hasText: 'Waiting for your payment' }).waitFor();

    // Live money: no sandbox banner and no simulate controls anywhere in the page.
    expect(await page.locator('.sandbox-banner').count()).toBe(0);
    expect(await page.locator('#cc-sandbox, [data-simulate]').count()).toBe(0);
    expect(await page.locator('body').getAttribute('class')).not.toContain('is-sandbox');

    // Rails this merchant cannot take are folded under one line, each disabled and described by
    // the server's reason once unfolded.
    const options = new Map(checkout.payment_options.map((option) => [option.slug, option]));
    expect(options.get('usdc_polygon')?.available).toBe(true);
    const notOffered = checkout.payment_options.filter((option) => !option.available).length;
    const fold = page.locator('details.rails-unavailable > summary');
    expect(await fold.textContent()).toBe(`Not offered for this order (${notOffered})`);
    expect(await page.locator('.rail-reason').first().isVisible()).toBe(false);
    await screenshot(page, 'live-pending', { fullPage: true });
    await fold.click();
    for (const [name, slug] of [
      [/^USDT on Polygon/, 'usdt_polygon'],
      [/^Card/, 'card'],
    ] as const) {
      const expected = options.get(slug)!;
      expect(expected.available).toBe(false);
      const rail = page.getByRole('link', { name });
      expect(await rail.getAttribute('aria-disabled')).toBe('true');
      const reasonId = (await rail.getAttribute('aria-describedby'))!;
      const reason = page.locator(`[id="${reasonId}"]`);
      expect(await reason.textContent()).toBe(expected.unavailable_reason);
      expect(await reason.isVisible()).toBe(true);
    }
    expect(options.get('usdt_polygon')!.unavailable_reason).toMatch(/paid in USDC on Polygon PoS/);
    // The keyboard passes over the disabled rails and stops at the one that can be paid.
    const tabStops: string[] = [];
    for (let presses = 0; presses < 30; presses += 1) {
      await page.keyboard.press('Tab');
      tabStops.push(
        await page.evaluate(() => {
          const focused = document.activeElement as HTMLElement | null;
          return focused?.getAttribute('aria-disabled') === 'true'
            ? 'disabled rail'
            : (focused?.dataset.rail ?? focused?.tagName ?? '');
        }),
      );
    }
    expect(tabStops).toContain('usdc_polygon');
    expect(tabStops).not.toContain('disabled rail');

    await page.getByRole('link', { name: /^USDC on Polygon/ }).click();
    await page.locator('#cc-pay').waitFor({ state: 'visible' });
    const link = await fetchPaymentLink(server, checkout.transaction_code, 'usdc_polygon');
    const baseUnits = decimalToScaled(link.amount, USDC_DECIMALS);
    // The amount is the due amount plus a few base units that tell this checkout apart on chain.
    const due = decimalToScaled(checkout.amount_in_usd.toFixed(2), USDC_DECIMALS);
    expect(baseUnits - due).toBeGreaterThanOrEqual(1n);
    expect(baseUnits - due).toBeLessThanOrEqual(9999n);
    expect(link.address).toBe(MERCHANT_WALLET);
    expect(link.uri).toBe(`ethereum:${usdc}@137/transfer?address=${MERCHANT_WALLET}&uint256=${baseUnits}`);

    expect(await page.locator('#cc-amount').textContent()).toBe(link.amount);
    expect(await page.locator('#cc-pay-title').textContent()).toBe(`Send ${link.amount} USDC`);
    expect(await page.locator('#cc-address').textContent()).toBe(MERCHANT_WALLET);
    expect(await page.locator('#cc-network').textContent()).toBe('Polygon PoS');
    const exactNote = page.locator('#cc-exact-amount');
    expect(await exactNote.isVisible()).toBe(true);
    expect(await exactNote.textContent()).toBe(
      'Send exactly this amount: a different amount cannot be matched to your order.',
    );
    expect(await page.locator('#cc-wallet').getAttribute('href')).toBe(link.uri);
    // What a wallet's camera reads off the screen is the payment link's URI, to the base unit.
    expect(await scanQrCode(page.locator('#cc-qr svg'))).toBe(link.uri);
    expect(await page.locator('#cc-sandbox, [data-simulate]').count()).toBe(0);
    await screenshot(page, 'live-crypto');

    // A marker that a reload or navigation would wipe: the page must follow the chain by polling.
    await page.evaluate(() => {
      (window as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
    });
    await chain.transfer(usdc, MERCHANT_WALLET, baseUnits, { mine: true });
    await page
      .locator('#cc-status-title', { hasText: 'Payment received, waiting for confirmation' })
      .waitFor({ timeout: 20_000 });
    await screenshot(page, 'live-processing');

    await chain.mine(CONFIRMATIONS - 1);
    await page.locator('#cc-status-title', { hasText: 'Payment complete' }).waitFor({ timeout: 20_000 });
    expect(
      await page.evaluate(() => (window as unknown as { stillTheSamePage?: boolean }).stillTheSamePage),
    ).toBe(true);
    expect(await page.locator('#cc-methods').isHidden()).toBe(true);
    expect(await page.locator('#cc-status-detail').textContent()).toContain('Taking you back to 127.0.0.1');
    await screenshot(page, 'live-settled');

    const settled = (await (
      await fetch(`${server.url}/api/transaction?transaction_code=${checkout.transaction_code}`)
    ).json()) as {
      data: { status: string; payments: Array<{ amount: string }> };
    };
    expect(settled.data.status).toBe('settled');
    expect(settled.data.payments.map((payment) => payment.amount)).toEqual([link.amount]);
    await page.waitForURL(`${shop.origin}/thanks`);
    expect(problems).toEqual([]);
    await context.close();
  });
});
