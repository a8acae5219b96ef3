import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDashboard } from '@cryptocheckout/dashboard/build';
import { startServer } from '@cryptocheckout/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCheckout,
  launchChromium,
  MERCHANT_WALLET,
  openPage,
  PHONE,
  type RunningServer,
  screenshot,
} from './support.js';

/** A shop's webhook endpoint whose answer the test switches; counts what it receives per order. */
async function startShopWebhook() {
  const state = { status: 500, received: [] as string[] };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      state.received.push(JSON.parse(body).external_reference);
      response.writeHead(state.status, { 'content-type': 'text/plain' }).end('shop says hi');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wc-api/cryptocheckout?key=shop-secret`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let browser: Browser;
let server: RunningServer;
let shop: Awaited<ReturnType<typeof startShopWebhook>>;
let dataDir: string;
let dashboardDir: string;

beforeAll(async () => {
  dashboardDir = mkdtempSync(join(tmpdir(), 'cc-dashboard-build-'));
  await buildDashboard({ outdir: dashboardDir });
  dataDir = mkdtempSync(join(tmpdir(), 'cc-browser-dashboard-'));
  shop = await startShopWebhook();
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    dashboardDir,
    logLevel: 'silent',
    sweepIntervalMs: 200,
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await shop?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(dashboardDir, { recursive: true, force: true });
});

/** Creates a checkout whose webhook goes to the shop, and pays it in full in the sandbox. */
async function settledOrder(reference: string, amount: string): Promise<string> {
  const response = await fetch(`${server.url}/api/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fiat_amount: amount,
      fiat_currency: 'EUR',
      external_reference: reference,
      webhook_url: shop.url,
      customer: {
        wallet_address: MERCHANT_WALLET,
        crypto_currency: 'USDC',
        crypto_currency_network: 'POLYGON',
      },
    }),
  });
  const code = ((await response.json()) as { data: { transaction_code: string } }).data.transaction_code;
  await fetch(`${server.url}/api/sandbox/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ transaction_code: code, payment_method: 'usdc_polygon' }),
  });
  return code;
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(`${server.url}/dashboard`);
  await page.getByLabel('Operator token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Console errors other than the 401 a wrong token is meant to get. */
function unexpected(problems: string[]): string[] {
  return problems.filter((problem) => !/status of 401/.test(problem));
}

describe('operator dashboard in chromium', () => {
  it('refuses a wrong token, finds an order by reference, shows its failed webhook and resends it once', async () => {
    shop.state.status = 200;
    for (const [reference, amount] of [
      ['WC-1001', '19.90'],
      ['WC-1002', '120.00'],
      ['WC-1004', '7.50'],
    ] as const) {
      await settledOrder(reference, amount);
    }
    await createCheckout(server, { reference: 'WC-1005' });
    shop.state.status = 500;
    const failing = await settledOrder('WC-1003', '49.90');
    await expect
      .poll(() => shop.state.received.filter((reference) => reference === 'WC-1003').length)
      .toBe(1);

    const { context, page, problems } = await openPage(browser, { viewport: { width: 1280, height: 900 } });
    await signIn(page, 'not-the-token-not-the-token');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That token is not right.');
    expect(
      await page.getByLabel('Operator token').evaluate((field) => field === document.activeElement),
    ).toBe(true);

    await page.getByLabel('Operator token').fill(server.dashboard.token.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const table = page.getByRole('table', { name: 'Transactions, newest first' });
    await table.waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(6);
    // The failed delivery stands out in the list before anyone opens the order.
    const failingRow = table.getByRole('row').filter({ hasText: 'WC-1003' });
    expect(await failingRow.textContent()).toContain('Failed');
    await screenshot(page, 'dashboard-list');

    await page.getByLabel('Code or exact reference').fill('WC-1003');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await table.getByRole('link', { name: `Transaction ${failing}` }).click();
    await page.getByRole('heading', { name: /Order WC-1003/ }).waitFor();
    const attempts = page.getByRole('table', { name: /Attempts of delivery/ });
    expect(await attempts.first().textContent()).toContain('Failed: HTTP 500');
    expect(await page.textContent('body')).not.toContain('shop-secret');

    shop.state.status = 200;
    await page.getByRole('button', { name: 'Resend webhook' }).first().dblclick();
    await expect
      .poll(() => page.getByRole('table', { name: /Attempts of delivery/ }).count(), { timeout: 15_000 })
      .toBe(2);
    await expect
      .poll(
        () =>
          page
            .getByRole('table', { name: /Attempts of delivery/ })
            .nth(1)
            .textContent(),
        {
          timeout: 15_000,
        },
      )
      .toContain('HTTP 200');
    // One click or two, the shop gets the webhook once more, not twice.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(shop.state.received.filter((reference) => reference === 'WC-1003')).toHaveLength(2);
    await screenshot(page, 'dashboard-detail', { fullPage: true });
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });

  it('fits a 320 px phone and keeps the token to the tab', async () => {
    const { context, page, problems } = await openPage(browser, PHONE);
    await signIn(page, server.dashboard.token.token);
    await page.getByRole('heading', { name: 'Transactions' }).waitFor();
    await page.getByRole('table', { name: 'Transactions, newest first' }).waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    await page.getByRole('table', { name: 'Transactions, newest first' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'dashboard-mobile');
    // The token lives in this tab's session storage, never in a cookie or local storage.
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    const other = await context.newPage();
    await other.goto(`${server.url}/dashboard`);
    await other.getByLabel('Operator token').waitFor();
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});
