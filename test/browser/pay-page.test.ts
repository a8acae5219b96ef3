import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  createCheckout,
  fetchPaymentLink,
  openPage,
  screenshot,
  startMerchantShop,
  useBrowserWorld,
} from './support.js';

const world = useBrowserWorld();

function shopCheckout(fields: Parameters<typeof createCheckout>[1] = {}) {
  return createCheckout(world.server, {
    successUrl: `${world.shop.origin}/thanks`,
    cancelUrl: `${world.shop.origin}/cart`,
    ...fields,
  });
}

const DESKTOP = { viewport: { width: 1280, height: 900 } };

async function chooseRail(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name }).first().click();
  await page.locator('#cc-pay').waitFor({ state: 'visible' });
}

describe('hosted pay page', () => {
  it('walks a buyer from the order to a settled payment and back to the shop', async () => {
    const checkout = await shopCheckout({ reference: 'order-1001' });
    const { context, page, problems } = await openPage(world.browser, DESKTOP);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.server.url });
    const response = await page.goto(checkout.checkout_url);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain(`frame-ancestors 'self' ${world.shop.origin}`);
    expect(headers['referrer-policy']).toBe('no-referrer');

    await expect.poll(() => page.locator('.merchant-name').textContent()).toBe('127.0.0.1');
    expect(await page.locator('.amount .fiat').textContent()).toBe('€25.00');
    expect(await page.locator('.amount .usd').textContent()).toMatch(/^\$\d+\.\d{2} in US dollars$/);
    expect(await page.locator('.reference').textContent()).toBe('Order order-1001');
    const cryptoRails = page.locator('.methods ul').first().locator('.rail');
    expect(await cryptoRails.count()).toBeGreaterThan(3);
    expect(await page.locator('a[data-rail="card"]').textContent()).toContain('€25.00');
    expect(await page.locator('#cc-status-title').textContent()).toBe('Waiting for your payment');
    expect(await page.locator('#cc-countdown').textContent()).toMatch(/^Time left: (1:00:00|59:\d\d)$/);
    await screenshot(page, 'desktop-pending');

    await chooseRail(page, 'USDC on Polygon');
    const link = await fetchPaymentLink(world.server, checkout.transaction_code, 'usdc_polygon');
    expect(await page.locator('#cc-address').textContent()).toBe(link.address);
    expect(await page.locator('#cc-amount').textContent()).toBe(link.amount);
    expect(await page.locator('#cc-pay-title').textContent()).toBe(`Send ${link.amount} USDC`);
    expect(await page.locator('#cc-wallet').getAttribute('href')).toBe(link.uri);
    expect(link.uri).toMatch(/^ethereum:/);
    expect(await page.locator('#cc-qr svg path').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('method')).toBe('usdc_polygon');
    // Focus moves to the instructions so keyboard and screen reader users land on them.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cc-pay-title');

    await page.getByRole('button', { name: 'Copy address' }).click();
    await expect.poll(() => page.locator('#cc-copy-status').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link.address);
    await screenshot(page, 'desktop-crypto');

    await page.getByRole('button', { name: 'Pay in full' }).click();
    await page.locator('#cc-status-title', { hasText: 'Payment complete' }).waitFor();
    expect(await page.locator('#cc-methods').isHidden()).toBe(true);
    expect(await page.locator('#cc-status-detail').textContent()).toContain('Taking you back to 127.0.0.1');
    await screenshot(page, 'desktop-settled');
    await page.waitForURL(`${world.shop.origin}/thanks`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows an underpayment with the amount still due, then confirmation, then settlement', async () => {
    const checkout = await shopCheckout();
    const { context, page, problems } = await openPage(world.browser, DESKTOP);
    await page.goto(checkout.checkout_url);
    await chooseRail(page, 'USDC on Polygon');

    await page.getByRole('button', { name: 'Pay part' }).click();
    await page.locator('#cc-status-title', { hasText: 'Partly paid' }).waitFor();
    expect(await page.locator('#cc-status-detail').textContent()).toMatch(/^\$\d+\.\d{2} still to pay$/);
    await screenshot(page, 'desktop-underpaid');

    await page.getByLabel('Show the confirmation step first').check();
    await page.getByRole('button', { name: 'Pay in full' }).click();
    await page.locator('#cc-status-title', { hasText: 'waiting for confirmation' }).waitFor();
    await page.locator('#cc-status-title', { hasText: 'Payment complete' }).waitFor({ timeout: 15_000 });
    await page.waitForURL(`${world.shop.origin}/thanks`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sends the buyer to a fiat rail and back, then on to the shop', async () => {
    const checkout = await shopCheckout();
    const { context, page, problems } = await openPage(world.browser, DESKTOP);
    await page.goto(checkout.checkout_url);
    await page.getByRole('link', { name: /Card/ }).click();
    await page.waitForURL(new RegExp(`/sandbox/card/${checkout.transaction_code}`));
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${world.shop.origin}/thanks`, { timeout: 20_000 });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('links the cancel button to the shop', async () => {
    const checkout = await shopCheckout();
    const { context, page } = await openPage(world.browser, DESKTOP);
    await page.goto(checkout.checkout_url);
    await page.getByRole('link', { name: 'Cancel and return to 127.0.0.1' }).click();
    await page.waitForURL(`${world.shop.origin}/cart`);
    await context.close();
  });

  it('works through the embed helper in a merchant page, which returns the buyer to its success page', async () => {
    const checkout = await shopCheckout();
    const { context, page, problems } = await openPage(world.browser, DESKTOP);
    await page.goto(
      `${world.shop.origin}/shop?redirect=1&checkout=${encodeURIComponent(checkout.checkout_url)}`,
    );
    await page.getByRole('button', { name: 'Pay with crypto' }).click();
    await page.getByRole('dialog').waitFor();
    const frame = page.frameLocator('iframe');
    await frame.locator('#cc-status-title', { hasText: 'Waiting for your payment' }).waitFor();
    await frame.getByRole('link', { name: 'USDC on Polygon' }).click();
    await frame.locator('#cc-address').waitFor();
    expect(await frame.locator('#cc-address').textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The page reports its height and the helper sizes the frame to it (640 px before any report).
    await expect
      .poll(() => page.locator('iframe').evaluate((iframe) => iframe.style.height))
      .not.toBe('640px');
    await screenshot(page, 'embedded-modal');

    await frame.getByRole('button', { name: 'Pay in full' }).click();
    await frame.locator('#cc-status-title', { hasText: 'Payment complete' }).waitFor();
    await page.waitForURL(`${world.shop.origin}/thanks`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('reports settled, then closed, to the embedding page only', async () => {
    const checkout = await shopCheckout();
    const { context, page } = await openPage(world.browser, DESKTOP);
    await page.goto(`${world.shop.origin}/shop?checkout=${encodeURIComponent(checkout.checkout_url)}`);
    await page.evaluate(() => {
      const log: unknown[] = [];
      (window as unknown as { rawMessages: unknown[] }).rawMessages = log;
      window.addEventListener('message', (event) =>
        log.push({ origin: event.origin, type: event.data?.type }),
      );
    });
    await page.getByRole('button', { name: 'Pay with crypto' }).click();
    const frame = page.frameLocator('iframe');
    await frame.getByRole('link', { name: 'USDC on Polygon' }).click();
    await frame.getByRole('button', { name: 'Pay in full' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 15_000 });
    const events = await page.evaluate(
      () => (window as unknown as { checkoutEvents: unknown[] }).checkoutEvents,
    );
    expect(events).toEqual([
      {
        type: 'settled',
        message: {
          source: 'cryptocheckout',
          version: 1,
          type: 'settled',
          transaction_code: checkout.transaction_code,
          status: 'settled',
        },
      },
      { type: 'closed', reason: 'checkout' },
    ]);
    const raw = await page.evaluate(
      () => (window as unknown as { rawMessages: { origin: string }[] }).rawMessages,
    );
    expect(raw.length).toBeGreaterThanOrEqual(2);
    expect(new Set(raw.map((message) => message.origin))).toEqual(new Set([world.server.url]));
    await context.close();
  });

  it("cannot be framed by a page outside the order's own origins", async () => {
    const checkout = await shopCheckout();
    const stranger = await startMerchantShop();
    try {
      const { context, page } = await openPage(world.browser, DESKTOP);
      await page.goto(`${stranger.origin}/shop?checkout=${encodeURIComponent(checkout.checkout_url)}`);
      await page.getByRole('button', { name: 'Pay with crypto' }).click();
      await page.getByRole('dialog').waitFor();
      // Chromium replaces a frame its CSP refuses with an error page.
      await expect
        .poll(() =>
          page
            .frames()
            .find((candidate) => candidate !== page.mainFrame())
            ?.url(),
        )
        .toMatch(/^chrome-error:/);
      await context.close();
    } finally {
      await stranger.stop();
    }
  });

  it('closes the modal when the buyer cancels inside it', async () => {
    const checkout = await shopCheckout();
    const { context, page } = await openPage(world.browser, DESKTOP);
    await page.goto(`${world.shop.origin}/shop?checkout=${encodeURIComponent(checkout.checkout_url)}`);
    await page.getByRole('button', { name: 'Pay with crypto' }).click();
    const frame = page.frameLocator('iframe');
    await frame.getByRole('link', { name: 'Cancel and return to 127.0.0.1' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const events = await page.evaluate(
      () => (window as unknown as { checkoutEvents: unknown[] }).checkoutEvents,
    );
    expect(events).toEqual([{ type: 'closed', reason: 'checkout' }]);
    expect(page.url()).toContain('/shop');
    await context.close();
  });

  it('speaks the language of the world.browser, or of the lang parameter', async () => {
    const checkout = await shopCheckout();
    const german = await openPage(world.browser, { ...DESKTOP, locale: 'de-DE' });
    await german.page.goto(checkout.checkout_url);
    expect(await german.page.locator('html').getAttribute('lang')).toBe('de');
    expect(await german.page.locator('#cc-status-title').textContent()).toBe('Warten auf Ihre Zahlung');
    expect(await german.page.locator('.amount .fiat').textContent()).toMatch(/^25,00\s€$/);
    await german.page.getByRole('link', { name: 'Français' }).click();
    expect(await german.page.locator('#cc-status-title').textContent()).toBe('En attente de votre paiement');
    await german.context.close();

    const spanish = await openPage(world.browser, DESKTOP);
    await spanish.page.goto(`${checkout.checkout_url}?lang=es`);
    expect(await spanish.page.locator('#cc-amount-label').textContent()).toBe('Importe a pagar');
    await spanish.context.close();
  });

  it('can be used with the keyboard alone', async () => {
    const checkout = await shopCheckout();
    const { context, page } = await openPage(world.browser, DESKTOP);
    await page.goto(checkout.checkout_url);
    let focused = '';
    for (let presses = 0; presses < 10 && focused !== 'usdc_polygon'; presses += 1) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.rail ?? '');
    }
    expect(focused).toBe('usdc_polygon');
    await page.keyboard.press('Enter');
    await page.locator('#cc-pay').waitFor({ state: 'visible' });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cc-pay-title');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Copy amount');
    await context.close();
  });

  it('shows amount, address and QR code without JavaScript', async () => {
    const checkout = await shopCheckout();
    const { context, page } = await openPage(world.browser, { ...DESKTOP, javaScriptEnabled: false });
    await page.goto(checkout.checkout_url);
    await page.getByRole('link', { name: 'USDC on Polygon' }).click();
    await page.waitForURL(/method=usdc_polygon/);
    const link = await fetchPaymentLink(world.server, checkout.transaction_code, 'usdc_polygon');
    expect(await page.locator('#cc-address').textContent()).toBe(link.address);
    expect(await page.locator('#cc-amount').textContent()).toBe(link.amount);
    expect(await page.locator('#cc-qr svg').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Refresh status' }).isVisible()).toBe(true);
    expect(await page.locator('#cc-sandbox').isHidden()).toBe(true);
    await screenshot(page, 'desktop-no-javascript');
    await context.close();
  });

  it('shows a hostile order reference as text', async () => {
    const reference = `<img src=x onerror="document.title='pwned'">`;
    const checkout = await shopCheckout({ reference });
    const { context, page, problems } = await openPage(world.browser, DESKTOP);
    await page.goto(checkout.checkout_url);
    expect(await page.locator('.reference').textContent()).toBe(`Order ${reference}`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(problems).toEqual([]);
    await context.close();
  });
});
