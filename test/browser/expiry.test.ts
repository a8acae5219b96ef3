import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCheckout,
  launchChromium,
  openPage,
  PHONE,
  type RunningServer,
  screenshot,
  startMerchantShop,
  startSandboxServer,
} from './support.js';

// Checkouts on this server expire after 12 seconds, so the countdown can run out within a test.
const EXPIRY_MINUTES = 0.2;

let browser: Browser;
let server: RunningServer;
let shop: { origin: string; stop: () => Promise<void> };
let stopServer: () => Promise<void>;

beforeAll(async () => {
  const started = await startSandboxServer({ expiryMinutes: EXPIRY_MINUTES });
  server = started.server;
  stopServer = started.stop;
  shop = await startMerchantShop();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await stopServer?.();
});

describe('expiry', () => {
  it('counts down, then shows the order expired and offers the way back to the shop', async () => {
    const checkout = await createCheckout(server, {
      successUrl: `${shop.origin}/thanks`,
      cancelUrl: `${shop.origin}/cart`,
    });
    const { context, page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } });
    await page.goto(checkout.checkout_url);
    await page.getByRole('link', { name: 'USDC on Polygon' }).click();
    const first = await page.locator('#cc-countdown').textContent();
    expect(first).toMatch(/^Time left: 0:(0\d|1[0-2])$/);
    await expect.poll(() => page.locator('#cc-countdown').textContent(), { timeout: 5_000 }).not.toBe(first);

    await page
      .locator('#cc-status-title', { hasText: 'This payment request has expired' })
      .waitFor({ timeout: 30_000 });
    expect(await page.locator('#cc-countdown').isHidden()).toBe(true);
    expect(await page.locator('#cc-pay').isHidden()).toBe(true);
    expect(await page.locator('#cc-methods').isHidden()).toBe(true);
    await screenshot(page, 'desktop-expired');
    await page.getByRole('link', { name: 'Back to 127.0.0.1' }).click();
    await page.waitForURL(`${shop.origin}/cart`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('renders an expired order as such on a fresh visit', async () => {
    const checkout = await createCheckout(server, { cancelUrl: `${shop.origin}/cart` });
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_MINUTES * 60_000 + 1_500));
    const { context, page } = await openPage(browser, PHONE);
    await page.goto(checkout.checkout_url);
    expect(await page.locator('#cc-status-title').textContent()).toBe('This payment request has expired');
    expect(await page.locator('#cc-methods').count()).toBe(0);
    await screenshot(page, 'mobile-expired');
    await context.close();
  });
});
