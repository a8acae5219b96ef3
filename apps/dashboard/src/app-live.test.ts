import {
  type CryptoPaymentLink,
  createCheckoutClient,
  decimalToScaled,
  type TransactionStatus,
} from '@cryptocheckout/core';
// The server's local-chain harness (ganache and a compiled ERC-20), shared rather than copied.
import { liveOptions, MERCHANT_WALLET, waitForScan } from '@cryptocheckout/server/testing/live-helpers';
import { type LocalChain, startLocalChain } from '@cryptocheckout/server/testing/local-chain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, waitFor } from './dashboard-page.test-helpers.js';
import { formatDecimal, shortCode } from './format.js';
import { OPERATOR_TOKEN, type OperatorServer, startOperatorServer } from './real-server.test-helpers.js';

// Live mode against the reference server watching a local EVM chain (ganache, chain id 137, so
// the server links transfers to polygonscan as it would on Polygon itself).

let chain: LocalChain;
let server: OperatorServer;
/** The order paid once in full and then a second time. */
let paidTwice: string;
let firstPayment: { txHash: string; amount: string };
let secondPaymentHash: string;
/** A transfer of an amount no checkout asked for. */
let strayHash: string;

beforeAll(async () => {
  chain = await startLocalChain();
  const usdc = await chain.deployToken('USDC', 6);
  server = await startOperatorServer(liveOptions(chain, usdc));
  const client = createCheckoutClient({ baseUrl: `${server.origin}/api` });
  paidTwice = await server.createCheckout({
    external_reference: 'LIVE-TWICE',
    customer: {
      wallet_address: MERCHANT_WALLET,
      crypto_currency: 'USDC',
      crypto_currency_network: 'POLYGON',
    },
  });
  const link = (await client.getPaymentLink({
    transaction_code: paidTwice,
    payment_method: 'usdc_polygon',
  })) as CryptoPaymentLink;
  const baseUnits = decimalToScaled(link.amount, 6);
  firstPayment = { txHash: await chain.transfer(usdc, MERCHANT_WALLET, baseUnits), amount: link.amount };
  await chain.mine(3);
  await statusBecomes(client, paidTwice, 'settled');
  secondPaymentHash = await chain.transfer(usdc, MERCHANT_WALLET, baseUnits, { mine: true });
  strayHash = await chain.transfer(usdc, MERCHANT_WALLET, 1_234_500_000n, { mine: true });
  await chain.mine(3);
  await waitForScan(`${server.origin}/api`, chain);
});

afterAll(async () => {
  await server?.close();
  await chain?.close();
});

async function statusBecomes(
  client: ReturnType<typeof createCheckoutClient>,
  code: string,
  status: TransactionStatus,
): Promise<void> {
  await waitFor(async () => expect((await client.getTransaction(code)).status).toBe(status));
}

const cellsOf = (row: Element) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim());
const rowWith = (rows: NodeListOf<Element>, text: string) =>
  [...rows].find((row) => row.textContent?.includes(text));

describe('live mode', () => {
  it('shows the chain transfers of a transaction with explorer links', async () => {
    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: `#/transactions/${paidTwice}` });
    await waitFor(() => expect(page.rows('transfers-table')).toHaveLength(2));
    expect(page.text('header .badge')).toBe('Live mode');
    expect(page.text('h1')).toBe('Order LIVE-TWICE Settled');
    const paid = rowWith(page.rows('transfers-table'), firstPayment.txHash)!;
    expect(cellsOf(paid).slice(1)).toEqual([
      'POLYGON',
      `${formatDecimal(firstPayment.amount)} USDC`,
      chain.payer.toLowerCase(),
      MERCHANT_WALLET.toLowerCase(),
      firstPayment.txHash,
      'Confirmed',
      // Direct mode: no forward; counted by the checkout, so no decision to take.
      '—',
      '—',
    ]);
    const link = paid.querySelector<HTMLAnchorElement>('a')!;
    expect(link.href).toBe(`https://polygonscan.com/tx/${firstPayment.txHash}`);
    expect(link.textContent).toBe(firstPayment.txHash);
    // The second payment no checkout counted: the operator can attach it elsewhere or mark it handled.
    const second = rowWith(page.rows('transfers-table'), secondPaymentHash)!;
    expect([...second.querySelectorAll('.decision button')].map((button) => button.textContent)).toEqual([
      'Attach to checkout',
      'Mark handled',
    ]);
    // Only the first transfer paid the order.
    expect(page.rows('payments-table')).toHaveLength(1);
  });
});

describe('unmatched payments', () => {
  it('lists the transfers no checkout took, linked to the explorer and to the order to refund', async () => {
    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: '#/unmatched' });
    await waitFor(() => expect(page.rows('unmatched-table')).toHaveLength(2));
    expect(page.text('h1')).toBe('Unmatched payments');
    expect(page.text('header nav a[aria-current="page"]')).toBe('Unmatched payments');
    // Newest first.
    expect([...page.rows('unmatched-table')].map((row) => row.textContent?.includes(strayHash))).toEqual([
      true,
      false,
    ]);

    const second = rowWith(page.rows('unmatched-table'), secondPaymentHash)!;
    const secondCells = cellsOf(second);
    expect(secondCells.slice(1, 7)).toEqual([
      'POLYGON',
      'USDC',
      formatDecimal(firstPayment.amount),
      chain.payer.toLowerCase(),
      MERCHANT_WALLET.toLowerCase(),
      secondPaymentHash,
    ]);
    expect(secondCells[7]).toMatch(/already settled/);
    expect(secondCells[8]).toBe(shortCode(paidTwice));
    expect([...second.querySelectorAll('a')].map((link) => link.getAttribute('href'))).toEqual([
      `https://polygonscan.com/tx/${secondPaymentHash}`,
      `#/transactions/${paidTwice}`,
    ]);

    const strayCells = cellsOf(rowWith(page.rows('unmatched-table'), strayHash)!);
    // Every decimal the chain amount has, grouped.
    expect(strayCells[3]).toBe('1,234.500000');
    expect(strayCells[7]).toMatch(/No open checkout asks for exactly/);
    expect(strayCells[8]).toBe('—');
  });
});

describe('unmatched payments in sandbox mode', () => {
  let sandbox: OperatorServer | null = null;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = null;
  });

  it('explains why the list is empty', async () => {
    sandbox = await startOperatorServer();
    const page = openDashboard(sandbox, { token: OPERATOR_TOKEN, hash: '#/unmatched' });
    await waitFor(() => expect(page.text('#unmatched-table tbody')).toMatch(/sandbox mode/));
    expect(page.text('header .badge')).toBe('Sandbox mode');
    expect(page.rows('unmatched-table')).toHaveLength(0);
  });
});

describe('rates in sandbox mode', () => {
  let sandbox: OperatorServer | null = null;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = null;
  });

  it('names the static table the sandbox prices from, with each currency and no market source', async () => {
    sandbox = await startOperatorServer();
    const page = openDashboard(sandbox, { token: OPERATOR_TOKEN, hash: '#/rates' });
    await waitFor(() => expect(page.rows('rates-fiat-table').length).toBeGreaterThan(0));
    expect(page.text('#rates-origin')).toMatch(
      /^Static table \d{4}-\d{2}-\d{2}: sandbox checkouts are priced from fixed rates/,
    );
    expect(page.doc.getElementById('rates-origin')!.className).toBe('intro');
    const eur = page.doc.querySelector('tr[data-rate="EUR"]')!;
    expect(eur.querySelector('.badge')?.textContent).toBe('Static table');
    expect(page.doc.querySelector('tr[data-rate="USDC"] .rate-values')?.textContent).toMatch(
      /^static table: 1 /,
    );
    expect(page.text('#rate-sources-table tbody')).toBe(
      'No market source is read: prices come from the static table.',
    );
    expect(sandbox.requests.some((request) => request.path === '/api/operator/rates')).toBe(true);
  });
});
