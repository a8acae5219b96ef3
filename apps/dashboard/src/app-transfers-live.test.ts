import type { OperatorChainTransfer, OperatorUnmatchedPage } from '@cryptocheckout/core';
import { createCheckoutClient } from '@cryptocheckout/core';
// The server's local-chain harness (ganache and a compiled ERC-20), shared rather than copied.
import { liveOptions, MERCHANT_WALLET, waitForScan } from '@cryptocheckout/server/testing/live-helpers';
import { type LocalChain, startLocalChain } from '@cryptocheckout/server/testing/local-chain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, waitFor } from './dashboard-page.test-helpers.js';
import {
  OPERATOR_TOKEN,
  type OperatorServer,
  startOperatorServer,
  startWebhookReceiver,
  type WebhookReceiver,
} from './real-server.test-helpers.js';

// Attaching an unmatched transfer from the dashboard, against the reference server watching a
// local EVM chain: the server's refusal shown in the form, then the checkout it pays settling.

/** Another merchant's wallet: a checkout paid there cannot take a transfer to MERCHANT_WALLET. */
const OTHER_WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

const liveCustomer = (wallet: string) => ({
  wallet_address: wallet,
  crypto_currency: 'USDC',
  crypto_currency_network: 'POLYGON',
});

let chain: LocalChain;
let server: OperatorServer;
let receiver: WebhookReceiver;
let strayHash: string;
/** A checkout paid to OTHER_WALLET, and one paid to MERCHANT_WALLET that the stray transfer pays. */
let elsewhere: string;
let owed: string;

beforeAll(async () => {
  chain = await startLocalChain();
  const usdc = await chain.deployToken('USDC', 6);
  server = await startOperatorServer(liveOptions(chain, usdc));
  receiver = await startWebhookReceiver({ status: 200 });
  // The server watches a wallet once an open checkout is paid there.
  elsewhere = await server.createCheckout({
    external_reference: 'OTHER-WALLET',
    customer: liveCustomer(OTHER_WALLET),
  });
  owed = await server.createCheckout({
    external_reference: 'PAID-BY-PHONE',
    fiat_amount: '19.90',
    webhook_url: receiver.url,
    customer: liveCustomer(MERCHANT_WALLET),
  });
  // Choosing the rail puts a hold on an exact amount: the wallet is watched from then on.
  const client = createCheckoutClient({ baseUrl: `${server.origin}/api` });
  for (const code of [elsewhere, owed]) {
    await client.getPaymentLink({ transaction_code: code, payment_method: 'usdc_polygon' });
  }
  // 25 USDC: no open checkout asks for exactly this, so it is kept unmatched.
  strayHash = await chain.transfer(usdc, MERCHANT_WALLET, 25_000_000n, { mine: true });
  await chain.mine(3);
  await waitForScan(`${server.origin}/api`, chain);
  await waitFor(async () => {
    const page = await server.operator<OperatorUnmatchedPage>('/unmatched');
    expect(page.items.find((item) => item.tx_hash === strayHash)?.confirmed).toBe(true);
  });
});

afterAll(async () => {
  await receiver?.close();
  await server?.close();
  await chain?.close();
});

describe('attaching an unmatched transfer', () => {
  it('shows the refusal for a checkout of another wallet, then attaches it to the right one, which settles', async () => {
    const client = createCheckoutClient({ baseUrl: `${server.origin}/api` });

    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: '#/unmatched' });
    const strayRow = () =>
      [...page.rows('unmatched-table')].find((row) => row.textContent?.includes(strayHash))!;
    await waitFor(() => expect(strayRow()).toBeDefined());
    expect([...strayRow().querySelectorAll('.decision button')].map((button) => button.textContent)).toEqual([
      'Attach to checkout',
      'Mark handled',
    ]);

    page.buttons('Attach to checkout')[0]!.click();
    const form = page.doc.querySelector('.action-row form')!;
    page.byLabel<HTMLInputElement>('Transaction code').value = elsewhere;
    page.button('Continue').click();
    page.button('Yes, attach').click();
    await waitFor(() =>
      expect(form.querySelector('.form-error')?.textContent).toBe(
        `Checkout ${elsewhere} is paid in USDC on POLYGON to ${OTHER_WALLET.toLowerCase()}; this transfer is USDC on POLYGON to ${MERCHANT_WALLET.toLowerCase()}, so it cannot pay that checkout.`,
      ),
    );
    expect(page.byLabel<HTMLInputElement>('Transaction code').getAttribute('aria-invalid')).toBe('true');
    expect((await client.getTransaction(elsewhere)).status).toBe('pending');

    page.byLabel<HTMLInputElement>('Transaction code').value = owed;
    page.byLabel<HTMLInputElement>('Note (optional)').value = 'buyer sent 25 USDC';
    page.button('Continue').click();
    page.button('Yes, attach').click();
    await waitFor(() =>
      expect(strayRow().querySelector('.decision')?.textContent).toMatch(
        /^Attached .+ by the operator token: buyer sent 25 USDC$/,
      ),
    );
    expect(strayRow().querySelectorAll('.decision button')).toHaveLength(0);
    expect(page.doc.querySelector('.action-row')).toBeNull();

    // The checkout moved as if the buyer had paid it, and its settlement webhook went out.
    expect((await client.getTransaction(owed)).status).toBe('settled');
    await waitFor(() => expect(receiver.received.some((body) => body.includes(owed))).toBe(true));
    const stored = (await server.operator<OperatorUnmatchedPage>('/unmatched')).items.find(
      (item: OperatorChainTransfer) => item.tx_hash === strayHash,
    );
    expect(stored?.resolution).toMatchObject({
      kind: 'attached',
      note: 'by the operator token: buyer sent 25 USDC',
    });
  });
});
