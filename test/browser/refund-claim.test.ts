import type { Refund, RefundCreated } from '@cryptocheckout/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCheckout,
  launchChromium,
  openPage,
  PHONE,
  type RunningServer,
  screenshot,
  startSandboxServer,
} from './support.js';

// The buyer's refund claim page on a 320 px phone with JavaScript off, served by the reference
// server in sandbox mode: a settled order, a refund made with the operator token, the claim link
// the shop would send, and the claim form's plain posts reaching the server's real route.

const OPERATOR_TOKEN = 'browser-operator-token-0123456789abcdef';
/** The buyer's wallet (an EIP-55 example address), other than the merchant's. */
const BUYER_ADDRESS = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const OTHER_ADDRESS = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';

let browser: Browser;
let server: RunningServer;
let stopServer: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const started = await startSandboxServer({ operatorToken: OPERATOR_TOKEN });
  server = started.server;
  stopServer = started.stop;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stopServer?.();
});

/** A JSON call to the server's API, its `data`; fails the test on an answer other than `expectedStatus`. */
async function callApi<Data>(
  path: string,
  options: { body?: unknown; asOperator?: boolean; expectedStatus?: number } = {},
): Promise<Data> {
  const response = await fetch(`${server.url}${path}`, {
    method: options.body === undefined ? 'GET' : 'POST',
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.asOperator ? { authorization: `Bearer ${OPERATOR_TOKEN}` } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const json = (await response.json()) as { status: string; data: Data };
  expect(response.status, `${path}: ${JSON.stringify(json)}`).toBe(options.expectedStatus ?? 200);
  return json.data;
}

/** A settled sandbox order and a 12.34 USDC refund of it: the refund's id and the buyer's claim link. */
async function refundAwaitingAddress(): Promise<{ refundId: string; claimUrl: string }> {
  const checkout = await createCheckout(server, {
    reference: 'order-2024-000123456',
    // The page names the shop by this host; a long one tests the narrow screen.
    successUrl: 'https://a-rather-long-shop-name.example/thanks',
  });
  const paid = await callApi<{ status: string }>('/api/sandbox/pay', {
    body: { transaction_code: checkout.transaction_code, payment_method: 'usdc_polygon', confirmed: true },
  });
  expect(paid.status).toBe('settled');
  const refund = await callApi<RefundCreated>('/api/refunds', {
    asOperator: true,
    body: { transaction_code: checkout.transaction_code, amount: '12.34', currency: 'USDC' },
    expectedStatus: 201,
  });
  expect(refund).toMatchObject({ status: 'awaiting_address', amount: '12.34', asset: 'USDC' });
  expect(refund.claim_url).toMatch(new RegExp(`^${server.url}/refund/[A-Za-z0-9_-]{43}$`));
  return { refundId: refund.refund_id, claimUrl: refund.claim_url };
}

function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** The fields of every form the page posts, as the browser sent them. */
function recordFormPosts(page: Page): Record<string, string>[] {
  const posts: Record<string, string>[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST')
      posts.push(Object.fromEntries(new URLSearchParams(request.postData() ?? '')));
  });
  return posts;
}

describe('refund claim page on a 320 px phone without JavaScript', () => {
  it('fits the screen on every step, stores the confirmed address through plain form posts, and shows the refund paid', async () => {
    const { refundId, claimUrl } = await refundAwaitingAddress();
    const { context, page, problems } = await openPage(browser, { ...PHONE, javaScriptEnabled: false });
    const posts = recordFormPosts(page);
    const response = await page.goto(claimUrl);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("form-action 'self'");
    expect(await page.locator('.refund-amount').textContent()).toBe('12.34 USDC on Polygon PoS');
    expect(await page.getByText('a-rather-long-shop-name.example').count()).toBeGreaterThan(0);
    expect(await horizontalOverflow(page)).toBe(0);
    for (const field of await page.locator('.refund-input, button[type="submit"]').all()) {
      expect((await field.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    }
    await screenshot(page, 'refund-enter-mobile', { fullPage: true });

    // Two different addresses: the form comes back with the problem on the second field, focused.
    await page.getByLabel('Your address on Polygon PoS').fill(`  ${BUYER_ADDRESS.toLowerCase()} `);
    await page.getByLabel('The same address again').fill(OTHER_ADDRESS);
    await page.getByRole('button', { name: 'Continue' }).tap();
    await page.locator('#cc-refund-address-again-error').waitFor();
    expect(
      await page.locator('#cc-refund-address-again').evaluate((input) => input === document.activeElement),
    ).toBe(true);
    expect(await page.getByLabel('Your address on Polygon PoS').inputValue()).toBe(
      `  ${BUYER_ADDRESS.toLowerCase()} `,
    );
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'refund-problem-mobile', { fullPage: true });

    await page.getByLabel('The same address again').fill(BUYER_ADDRESS);
    await page.getByRole('button', { name: 'Continue' }).tap();
    await page.getByRole('heading', { name: 'Check your address' }).waitFor();
    expect(posts.at(-1)).toEqual({
      step: 'check',
      address: `  ${BUYER_ADDRESS.toLowerCase()} `,
      address_again: BUYER_ADDRESS,
    });
    expect(await horizontalOverflow(page)).toBe(0);
    const shown = page.locator('#cc-refund-review-address');
    const box = (await shown.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(320);
    // Shown in groups, copied as one string, in its checksummed form.
    const copied = await shown.evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const selection = window.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
      return selection.toString();
    });
    expect(copied).toBe(BUYER_ADDRESS);
    expect(await shown.locator('span').count()).toBe(11);
    await screenshot(page, 'refund-review-mobile', { fullPage: true });

    // Confirming without ticking the box is refused; ticking it (on its label) and confirming stores it.
    await page.getByRole('button', { name: 'Confirm address' }).tap();
    await page.locator('#cc-refund-confirmed-error').waitFor();
    expect(posts.at(-1)).toEqual({ step: 'confirm', address: BUYER_ADDRESS });
    expect((await callApi<Refund>(`/api/refund?refund_id=${refundId}`)).status).toBe('awaiting_address');
    await page.getByText('This is my address on Polygon PoS and it can receive USDC.').tap();
    expect(await page.getByRole('checkbox').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Confirm address' }).tap();
    await page.getByRole('heading', { name: 'Address confirmed' }).waitFor();
    expect(posts.at(-1)).toEqual({ step: 'confirm', address: BUYER_ADDRESS, confirmed: 'yes' });
    expect(page.url()).toBe(`${claimUrl}?lang=en`);
    expect(await page.locator('.refund-status .refund-address').textContent()).toBe(BUYER_ADDRESS);
    // Without JavaScript the page refreshes itself while the shop has still to pay.
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(1);
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'refund-confirmed-mobile', { fullPage: true });
    const awaitingPayment = await callApi<Refund>(`/api/refund?refund_id=${refundId}`);
    expect(awaitingPayment).toMatchObject({ status: 'awaiting_payment', address: BUYER_ADDRESS });

    // The shop pays (the sandbox control); the buyer's next look shows the refund sent.
    const paid = await callApi<Refund>('/api/sandbox/refunds/pay', { body: { refund_id: refundId } });
    expect(paid).toMatchObject({ status: 'paid', address: BUYER_ADDRESS });
    await page.reload();
    await page.getByRole('heading', { name: 'Refund sent' }).waitFor();
    expect(await page.getByText('12.34 USDC was sent on Polygon PoS to:').count()).toBe(1);
    expect(await page.locator('.refund-status .refund-address').textContent()).toBe(BUYER_ADDRESS);
    expect(await page.locator('.refund-tx').textContent()).toBe(paid.tx_id);
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'refund-paid-mobile', { fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('answers an unknown claim code with the not-found page', async () => {
    const { context, page, problems } = await openPage(browser, { ...PHONE, javaScriptEnabled: false });
    const response = await page.goto(`${server.url}/refund/${'A'.repeat(43)}`);
    expect(response!.status()).toBe(404);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.getByRole('heading', { name: 'Refund not found' }).waitFor();
    expect(await page.getByText('This refund link is not valid.').count()).toBe(1);
    expect(await page.locator('form').count()).toBe(0);
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'refund-not-found-mobile', { fullPage: true });
    // Chromium logs the document's own 404 status; its stylesheet loads and nothing else fails.
    expect(problems).toEqual([
      `Failed to load resource: the server responded with a status of 404 (Not Found) (${page.url()})`,
    ]);
    await context.close();
  });
});
