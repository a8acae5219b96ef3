import { randomBytes } from 'node:crypto';
import { decimalToScaled, refundPaidWebhookSchema, scaledToDecimal } from '@cryptocheckout/core';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { OPERATOR_TOKEN } from '../operator-helpers.js';
import {
  confirmRefundAddress,
  createRefund,
  refundBecomesPaid,
  refundOf,
  refundPaidWebhooks,
  storedRefundTransfers,
} from '../refund-helpers.js';
import {
  liveOptions,
  MERCHANT_WALLET,
  openLiveCheckout,
  waitForScan,
  waitForStatus,
  watcherHealth,
} from './live-helpers.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

let chain: LocalChain;
let usdc: `0x${string}`;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  chain = await startLocalChain();
  usdc = await chain.deployToken('USDC', 6);
  receiver = await startWebhookReceiver();
  server = await startTestServer({ ...liveOptions(chain, usdc), operatorToken: OPERATOR_TOKEN });
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await chain?.close();
});

/** A settled live order whose refund of `amount` USDC awaits payment to a fresh buyer address. */
async function refundAwaitingPayment(reference: string, amount: string) {
  const { code, baseUnits } = await openLiveCheckout(server, {
    external_reference: reference,
    webhook_url: receiver.url,
  });
  await chain.transfer(usdc, MERCHANT_WALLET, baseUnits);
  await chain.mine(3);
  await waitForStatus(server, code, 'settled');
  const created = await createRefund(server, { transaction_code: code, amount, currency: 'USDC' });
  expect(created.status).toBe(201);
  const buyer = getAddress(`0x${randomBytes(20).toString('hex')}`);
  expect((await confirmRefundAddress(created.json.data.claim_url, buyer)).status).toBe(303);
  const refundId = created.json.data.refund_id as string;
  const awaiting = await lookupRefund(refundId);
  expect(awaiting.status).toBe('awaiting_payment');
  // The link the merchant's wallet opens names the configured token on the local chain.
  expect(awaiting.payment_request?.uri).toBe(
    `ethereum:${usdc}@137/transfer?address=${buyer}&uint256=${decimalToScaled(amount, 6)}`,
  );
  return { refundId, buyer, code };
}

const lookupRefund = (refundId: string) => refundOf(server, refundId);

/** Transfers to the refund's address the server stored, amounts as the USDC decimals the API shows. */
const storedTransfers = (refundId: string) =>
  storedRefundTransfers(server.dataDir, refundId, 6).map(({ log_index: _output, units, ...row }) => ({
    ...row,
    amount: scaledToDecimal(units, 6),
  }));

const refundWebhooks = (refundId: string) => refundPaidWebhooks(receiver, refundId);

const paidBecomes = (refundId: string) => refundBecomesPaid(server, refundId);

describe('refunds paid on a local EVM chain', () => {
  it('does not take a transfer of another amount; the exact amount pays it once its confirmations are in', async () => {
    const { refundId, buyer } = await refundAwaitingPayment('refund-exact', '10.5');
    const wrong = await chain.transfer(usdc, buyer, 10_499_999n);
    await chain.mine(3);
    await waitForScan(`${server.url}/api`, chain);
    await eventually(() =>
      expect(storedTransfers(refundId)).toEqual([
        { tx_hash: wrong, amount: '10.499999', exact: 0, confirmed: 1 },
      ]),
    );
    expect((await lookupRefund(refundId)).status).toBe('awaiting_payment');

    const exact = await chain.transfer(usdc, buyer, 10_500_000n);
    await chain.mine(1);
    await waitForScan(`${server.url}/api`, chain);
    expect((await lookupRefund(refundId)).status).toBe('awaiting_payment');
    await chain.mine(2);
    const paid = await paidBecomes(refundId);
    // The local chain reports Polygon's chain id, so the link is the public explorer's.
    expect(paid).toMatchObject({
      tx_id: exact,
      address: buyer,
      tx_url: `https://polygonscan.com/tx/${exact}`,
    });
    expect(paid.history.at(-1)?.note).toContain(exact);
    await eventually(() => expect(refundWebhooks(refundId)).toHaveLength(1));
    expect(refundPaidWebhookSchema.parse(refundWebhooks(refundId)[0])).toMatchObject({
      tx_id: exact,
      amount: '10.5',
    });

    await chain.mine(3);
    await waitForScan(`${server.url}/api`, chain);
    expect(refundWebhooks(refundId)).toHaveLength(1);
  });

  it('forgets a refund transfer reorganised away before it confirms, and is paid once by the transfer sent again', async () => {
    const { refundId, buyer } = await refundAwaitingPayment('refund-reorg', '3');
    const mark = await chain.mark();
    const lost = await chain.transfer(usdc, buyer, 3_000_000n, { mine: true });
    await eventually(() => expect(storedTransfers(refundId).map((row) => row.tx_hash)).toEqual([lost]));
    const reorganisationsBefore = (await watcherHealth(`${server.url}/api`)).reorganisations;

    await chain.revertTo(mark);
    await chain.mine(2);
    await eventually(async () =>
      expect((await watcherHealth(`${server.url}/api`)).reorganisations).toBeGreaterThan(
        reorganisationsBefore,
      ),
    );
    await eventually(() => expect(storedTransfers(refundId)).toEqual([]));
    expect((await lookupRefund(refundId)).status).toBe('awaiting_payment');

    const again = await chain.transfer(usdc, buyer, 3_000_000n);
    await chain.mine(3);
    const paid = await paidBecomes(refundId);
    expect(paid.tx_id).toBe(again);
    expect(paid.history.filter((entry) => entry.status === 'paid')).toHaveLength(1);
    await eventually(() => expect(refundWebhooks(refundId)).toHaveLength(1));
  });

  it('is paid once when the server restarts between seeing the transfer and its confirmations', async () => {
    const { refundId, buyer } = await refundAwaitingPayment('refund-restart', '2.25');
    const sent = await chain.transfer(usdc, buyer, 2_250_000n);
    await chain.mine(1);
    await eventually(() =>
      expect(storedTransfers(refundId)).toMatchObject([{ tx_hash: sent, confirmed: 0 }]),
    );

    server = await server.restart();
    await chain.mine(2);
    const paid = await paidBecomes(refundId);
    expect(paid.tx_id).toBe(sent);
    await chain.mine(3);
    await waitForScan(`${server.url}/api`, chain);
    expect(storedTransfers(refundId)).toMatchObject([{ tx_hash: sent, confirmed: 1, exact: 1 }]);
    await eventually(() => expect(refundWebhooks(refundId)).toHaveLength(1));
    expect((await lookupRefund(refundId)).history.filter((entry) => entry.status === 'paid')).toHaveLength(1);
  });
});
