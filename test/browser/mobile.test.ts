import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createCheckout, openPage, PHONE, screenshot, useBrowserWorld } from './support.js';

const world = useBrowserWorld();

function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('pay page on a 320 px phone', () => {
  it('fits the screen without sideways scrolling, with large enough touch targets, through to settlement', async () => {
    const checkout = await createCheckout(world.server, {
      successUrl: `${world.shop.origin}/thanks`,
      cancelUrl: `${world.shop.origin}/cart`,
      reference: 'order-2002',
    });
    const { context, page, problems } = await openPage(world.browser, PHONE);
    await page.goto(checkout.checkout_url);
    expect(await horizontalOverflow(page)).toBe(0);
    const railHeights = await page
      .locator('a.rail')
      .evaluateAll((rails) => rails.map((rail) => rail.getBoundingClientRect().height));
    expect(Math.min(...railHeights)).toBeGreaterThanOrEqual(44);
    await screenshot(page, 'mobile-pending');

    await page.getByRole('link', { name: 'USDC on Polygon' }).tap();
    await page.locator('#cc-pay').waitFor({ state: 'visible' });
    expect(await horizontalOverflow(page)).toBe(0);
    // The long address wraps inside the screen instead of running off it.
    const address = await page.locator('#cc-address').boundingBox();
    expect(address!.x + address!.width).toBeLessThanOrEqual(320);
    const qr = await page.locator('#cc-qr svg').boundingBox();
    expect(qr!.width).toBeGreaterThanOrEqual(160);
    expect(await page.locator('#cc-pay-title').isVisible()).toBe(true);
    await screenshot(page, 'mobile-crypto');

    await page.getByRole('button', { name: 'Pay in full' }).tap();
    await page.locator('#cc-status-title', { hasText: 'Payment complete' }).waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'mobile-settled');
    await page.waitForURL(`${world.shop.origin}/thanks`);
    expect(problems).toEqual([]);
    await context.close();
  });
});
