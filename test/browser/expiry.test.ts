import { describe, expect, it } from 'vitest';
import { createCheckout, openPage, PHONE, screenshot, useBrowserWorld } from './support.js';

// Checkouts on this server expire after 12 seconds, so the countdown can run out within a test.
const EXPIRY_MINUTES = 0.2;

const world = useBrowserWorld({ expiryMinutes: EXPIRY_MINUTES });

describe('expiry', () => {
  it('counts down, then shows the order expired and offers the way back to the shop', async () => {
    const checkout = await createCheckout(world.server, {
      successUrl: `${world.shop.origin}/thanks`,
      cancelUrl: `${world.shop.origin}/cart`,
    });
    const { context, page, problems } = await openPage(world.browser, {
      viewport: { width: 1280, height: 900 },
    });
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
    await page.waitForURL(`${world.shop.origin}/cart`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('renders an expired order as such on a fresh visit', async () => {
    const checkout = await createCheckout(world.server, { cancelUrl: `${world.shop.origin}/cart` });
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_MINUTES * 60_000 + 1_500));
    const { context, page } = await openPage(world.browser, PHONE);
    await page.goto(checkout.checkout_url);
    expect(await page.locator('#cc-status-title').textContent()).toBe('This payment request has expired');
    expect(await page.locator('#cc-methods').count()).toBe(0);
    await screenshot(page, 'mobile-expired');
    await context.close();
  });
});
