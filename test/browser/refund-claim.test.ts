import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { validateWalletAddress } from '@cryptocheckout/core';
import {
  PAY_ASSETS_DIR,
  REFUND_CSS,
  REFUND_STYLESHEET_PATH,
  type RefundClaimPageInput,
  type RefundClaimView,
  refundPageSecurityHeaders,
  renderRefundClaimPage,
} from '@cryptocheckout/pay-page';
import { buildPayAssets } from '@cryptocheckout/pay-page/build-assets';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, PHONE, screenshot } from './support.js';

// The buyer's refund claim page on a 320 px phone with JavaScript off. A loopback server renders
// the claim pages from @cryptocheckout/pay-page and follows the claim form's steps the way the
// server's refund page routes do (packages/server/src/http/refund-page-routes.ts, tested there
// against Fastify), so what is checked here is the browser side: layout, plain form posts, focus.

const CLAIM = 'cLaImCoDe_0123456789-abcdefghijklmnopqrstuv';
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

interface ClaimServer {
  url: string;
  /** Every form post the server received, fields as sent. */
  posts: Record<string, string>[];
  stop: () => Promise<void>;
}

async function startClaimServer(): Promise<ClaimServer> {
  await buildPayAssets();
  let view: RefundClaimView = {
    claimCode: CLAIM,
    status: 'awaiting_address',
    merchantDomain: 'a-rather-long-shop-name.example',
    externalReference: 'order-2024-000123456',
    amount: '12.340001',
    asset: 'USDC',
    network: 'POLYGON',
    fiatAmount: '12.50',
    fiatCurrency: 'EUR',
    address: null,
    claimExpiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    paidAt: null,
    txId: null,
    txUrl: null,
    mode: 'sandbox',
  };
  const posts: Record<string, string>[] = [];
  const claimPath = `/refund/${CLAIM}`;

  const send = (response: ServerResponse, status: number, type: string, body: string) => {
    response.writeHead(status, { ...refundPageSecurityHeaders(), 'content-type': type }).end(body);
  };
  const page = (response: ServerResponse, status: number, input: Partial<RefundClaimPageInput>) =>
    send(
      response,
      status,
      'text/html; charset=utf-8',
      renderRefundClaimPage({ view, step: 'enter', lang: 'en', now: new Date(), ...input }),
    );

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://claims');
    if (url.pathname === '/pay/assets/pay.css') {
      return send(response, 200, 'text/css', readFileSync(join(PAY_ASSETS_DIR, 'pay.css'), 'utf8'));
    }
    if (url.pathname === REFUND_STYLESHEET_PATH) return send(response, 200, 'text/css', REFUND_CSS);
    if (url.pathname !== claimPath) return send(response, 404, 'text/plain', 'not found');
    if (request.method === 'GET') {
      return page(response, 200, { step: view.status === 'awaiting_address' ? 'enter' : 'status' });
    }
    let body = '';
    for await (const chunk of request) body += chunk;
    const fields = Object.fromEntries(new URLSearchParams(body));
    posts.push(fields);
    const network = view.network;
    if (fields.step === 'check') {
      const entered = { address: fields.address ?? '', addressAgain: fields.address_again ?? '' };
      const first = validateWalletAddress(network, entered.address.trim());
      const second = validateWalletAddress(network, entered.addressAgain.trim());
      if (!first.valid)
        return page(response, 200, { entered, problem: { field: 'address', code: first.code } });
      if (!second.valid || second.address !== first.address) {
        return page(response, 200, { entered, problem: { field: 'address_again', code: 'mismatch' } });
      }
      return page(response, 200, { step: 'review', reviewAddress: first.address });
    }
    const checked = validateWalletAddress(network, fields.address ?? '');
    if (!checked.valid) return send(response, 400, 'text/plain', 'bad address');
    if (fields.confirmed !== 'yes') {
      return page(response, 200, {
        step: 'review',
        reviewAddress: checked.address,
        problem: { field: 'confirmed', code: 'not_confirmed' },
      });
    }
    view = { ...view, status: 'awaiting_payment', address: checked.address };
    response.writeHead(303, { ...refundPageSecurityHeaders(), location: `${claimPath}?lang=en` }).end();
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => send(response, 500, 'text/plain', error.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${claimPath}`,
    posts,
    stop: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

let browser: Browser;
let claims: ClaimServer;

beforeAll(async () => {
  claims = await startClaimServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await claims?.stop();
});

describe('refund claim page on a 320 px phone without JavaScript', () => {
  it('fits the screen on every step, and its plain forms post the address and its confirmation', async () => {
    const { context, page, problems } = await openPage(browser, { ...PHONE, javaScriptEnabled: false });
    const response = await page.goto(claims.url);
    expect(response!.headers()['content-security-policy']).toContain("form-action 'self'");
    expect(await page.locator('.refund-amount').textContent()).toBe('12.340001 USDC on Polygon PoS');
    expect(await horizontalOverflow(page)).toBe(0);
    for (const field of await page.locator('.refund-input, button[type="submit"]').all()) {
      expect((await field.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    }
    await screenshot(page, 'refund-enter-mobile', { fullPage: true });

    // Two different addresses: the form comes back with the problem on the second field, focused.
    await page.getByLabel('Your address on Polygon PoS').fill(`  ${ADDRESS.toLowerCase()} `);
    await page.getByLabel('The same address again').fill('0x8617E340B3D01FA5F11F306F4090FD50E238070D');
    await page.getByRole('button', { name: 'Continue' }).tap();
    await page.locator('#cc-refund-address-again-error').waitFor();
    expect(
      await page.locator('#cc-refund-address-again').evaluate((input) => input === document.activeElement),
    ).toBe(true);
    expect(await page.getByLabel('Your address on Polygon PoS').inputValue()).toBe(
      `  ${ADDRESS.toLowerCase()} `,
    );
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'refund-problem-mobile', { fullPage: true });

    await page.getByLabel('The same address again').fill(ADDRESS);
    await page.getByRole('button', { name: 'Continue' }).tap();
    await page.getByRole('heading', { name: 'Check your address' }).waitFor();
    expect(claims.posts.at(-1)).toEqual({
      step: 'check',
      address: `  ${ADDRESS.toLowerCase()} `,
      address_again: ADDRESS,
    });
    expect(await horizontalOverflow(page)).toBe(0);
    const shown = page.locator('#cc-refund-review-address');
    const box = (await shown.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(320);
    // Shown in groups, copied as one string.
    const copied = await shown.evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const selection = window.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
      return selection.toString();
    });
    expect(copied).toBe(ADDRESS);
    expect(await shown.locator('span').count()).toBe(11);
    await screenshot(page, 'refund-review-mobile', { fullPage: true });

    // Confirming without ticking the box is refused; ticking it (on its label) and confirming stores it.
    await page.getByRole('button', { name: 'Confirm address' }).tap();
    await page.locator('#cc-refund-confirmed-error').waitFor();
    expect(claims.posts.at(-1)).toEqual({ step: 'confirm', address: ADDRESS });
    await page.getByText('This is my address on Polygon PoS and it can receive USDC.').tap();
    expect(await page.getByRole('checkbox').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Confirm address' }).tap();
    await page.getByRole('heading', { name: 'Address confirmed' }).waitFor();
    expect(claims.posts.at(-1)).toEqual({ step: 'confirm', address: ADDRESS, confirmed: 'yes' });
    expect(page.url()).toBe(`${claims.url}?lang=en`);
    expect(await page.locator('.refund-status .refund-address').textContent()).toBe(ADDRESS);
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'refund-confirmed-mobile', { fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });
});
