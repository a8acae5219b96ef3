import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPayAssets } from '@cryptocheckout/pay-page/build-assets';
import { startServer } from '@cryptocheckout/server';
import * as esbuild from 'esbuild';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Where screenshots of the main states go: `test-results/screenshots` (ignored by git), or the
 * folder in `SCREENSHOT_DIR`; `SCREENSHOT_DIR=docs/screenshots` refreshes the README's pictures.
 */
export const SCREENSHOT_DIR = resolve(ROOT, process.env.SCREENSHOT_DIR ?? 'test-results/screenshots');

/** A valid EIP-55 address (from the EIP's own examples) as the merchant's payout wallet. */
export const MERCHANT_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

/** A small phone: 320 CSS px wide, the narrowest width the page supports. */
export const PHONE = {
  viewport: { width: 320, height: 640 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

/** Launches Debian's chromium; CHROMIUM_PATH overrides the location. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

export type RunningServer = Awaited<ReturnType<typeof startServer>>;

/** What every browser test file needs: a sandbox server, a merchant shop on another origin, chromium. */
export interface BrowserWorld {
  browser: Browser;
  server: RunningServer;
  shop: { origin: string; stop: () => Promise<void> };
}

/**
 * Starts the world before the file's tests and stops it after them. The returned object is filled
 * in by `beforeAll`, so read its fields inside tests, not at module level.
 */
export function useBrowserWorld(options: Parameters<typeof startSandboxServer>[0] = {}): BrowserWorld {
  const world = {} as BrowserWorld;
  let stopServer: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const started = await startSandboxServer(options);
    world.server = started.server;
    stopServer = started.stop;
    world.shop = await startMerchantShop();
    world.browser = await launchChromium();
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.shop?.stop();
    await stopServer?.();
  });
  return world;
}

/**
 * Builds the pay page assets, then starts a sandbox server on a free port with its own data dir.
 * `operatorToken` (at least 24 characters) fixes the token the operator API and refunds take;
 * without it the server generates one.
 */
export async function startSandboxServer(
  options: { expiryMinutes?: number; sandboxConfirmationSeconds?: number; operatorToken?: string } = {},
): Promise<{ server: RunningServer; stop: () => Promise<void> }> {
  await buildPayAssets();
  const dataDir = mkdtempSync(join(tmpdir(), 'cc-browser-'));
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    mode: 'sandbox',
    logLevel: 'silent',
    sweepIntervalMs: 250,
    sandboxConfirmationSeconds: options.sandboxConfirmationSeconds ?? 1,
    ...(options.expiryMinutes === undefined ? {} : { expiryMinutes: options.expiryMinutes }),
    ...(options.operatorToken === undefined ? {} : { operatorToken: options.operatorToken }),
  });
  return {
    server,
    stop: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface CheckoutFields {
  fiatAmount?: string;
  currency?: string;
  reference?: string;
  successUrl?: string;
  cancelUrl?: string;
}

/** Creates a checkout through the public API and returns its data (transaction_code, checkout_url, …). */
export async function createCheckout(
  server: RunningServer,
  fields: CheckoutFields = {},
): Promise<{ transaction_code: string; checkout_url: string; amount_in_usd: number }> {
  const response = await fetch(`${server.url}/api/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fiat_amount: fields.fiatAmount ?? '25.00',
      fiat_currency: fields.currency ?? 'EUR',
      external_reference: fields.reference ?? `order-${Date.now()}`,
      ...(fields.successUrl ? { success_url: fields.successUrl } : {}),
      ...(fields.cancelUrl ? { cancel_url: fields.cancelUrl } : {}),
      customer: {
        wallet_address: MERCHANT_WALLET,
        crypto_currency: 'USDC',
        crypto_currency_network: 'POLYGON',
      },
    }),
  });
  const body = (await response.json()) as { status: string; data: never };
  if (response.status !== 201 || body.status !== 'success') {
    throw new Error(`checkout failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.data;
}

/** Reads one payment link straight from the API, to compare with what the page shows. */
export async function fetchPaymentLink(
  server: RunningServer,
  code: string,
  method: string,
): Promise<{ kind: string; address: string; amount: string; uri: string }> {
  const response = await fetch(
    `${server.url}/api/payment_link?transaction_code=${code}&payment_method=${encodeURIComponent(method)}`,
  );
  return ((await response.json()) as { data: { kind: string; address: string; amount: string; uri: string } })
    .data;
}

/**
 * A stand-in merchant shop on its own origin: a page that opens the checkout with the core embed
 * helper, plus the success and cancel pages the buyer returns to.
 */
export async function startMerchantShop(): Promise<{ origin: string; stop: () => Promise<void> }> {
  const bundle = await esbuild.build({
    stdin: {
      contents: "export { openCheckoutModal } from './packages/core/src/browser/embed.ts';",
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'CryptoCheckoutEmbed',
    target: 'es2020',
  });
  const embedScript = bundle.outputFiles[0]!.text;
  const hostScript = `
const events = (window.checkoutEvents = []);
document.getElementById('pay').addEventListener('click', () => {
  const checkoutUrl = new URLSearchParams(location.search).get('checkout');
  CryptoCheckoutEmbed.openCheckoutModal({
    checkoutUrl,
    onSettled: (message) => events.push({ type: 'settled', message }),
    onClosed: (reason) => {
      events.push({ type: 'closed', reason });
      const settled = events.some((event) => event.type === 'settled');
      if (settled && new URLSearchParams(location.search).has('redirect')) location.assign('/thanks');
    },
  });
});`;
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title></head><body>${body}</body></html>`;
  const routes: Record<string, [string, string]> = {
    '/shop': [
      'text/html',
      page(
        'Demo shop',
        '<h1>Demo shop</h1><p>Basket: 1 × Poster, 25.00 EUR</p><button id="pay" type="button">Pay with crypto</button><script src="/embed.js"></script><script src="/host.js"></script>',
      ),
    ],
    '/thanks': ['text/html', page('Thank you', '<h1>Thank you for your order</h1>')],
    '/cart': ['text/html', page('Cart', '<h1>Your cart</h1>')],
    '/embed.js': ['text/javascript', embedScript],
    '/host.js': ['text/javascript', hostScript],
  };
  const shop: Server = createServer((request, response) => {
    const route = routes[new URL(request.url ?? '/', 'http://shop').pathname];
    if (!route) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': `${route[0]}; charset=utf-8` }).end(route[1]);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const { port } = shop.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => shop.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** A browser context whose page records CSP violations and script errors. */
export async function openPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ locale: 'en-US', ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { context, page, problems };
}

/** Saves what the buyer sees (or the whole page) to docs/screenshots/<name>.png. */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({
    path: join(SCREENSHOT_DIR, `${name}.png`),
    fullPage: options.fullPage ?? false,
    animations: 'disabled',
    caret: 'hide',
  });
}
