import { decimalToScaled, refundPaidWebhookSchema } from '@cryptocheckout/core';
import { escapeHtml, REFUND_MESSAGES, refundProblemMessage } from '@cryptocheckout/pay-page';
import { HDKey } from '@scure/bip32';
import { Address, NETWORK, OutScript, p2wpkh } from '@scure/btc-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, startWebhookReceiver, type TestServer } from '../helpers.js';
import { OPERATOR_TOKEN } from '../operator-helpers.js';
import {
  confirmRefundAddress,
  createRefund,
  postClaimForm,
  refundBecomesPaid,
  refundOf,
  refundPaidWebhooks,
  storedRefundTransfers,
} from '../refund-helpers.js';
import {
  bitcoinHealth,
  bitcoinLiveOptions,
  MERCHANT_ZPUB,
  openBitcoinCheckout,
  waitForBitcoinScan,
  waitForBitcoinStatus,
} from './bitcoin-live-helpers.js';
import { type BitcoinTestNode, type Buyer, startBitcoinTestNode } from './bitcoin-test-node.js';

/** Confirmations payments and refund payments need: one block is not enough. */
const CONFIRMATIONS = 2;

let node: BitcoinTestNode;
let server: TestServer;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let buyer: Buyer;
/** The shop's spending wallet on the node: pays the refunds. */
let merchant: Buyer;

beforeAll(async () => {
  node = await startBitcoinTestNode();
  buyer = node.newBuyer(100_000_000_000n);
  merchant = node.newBuyer(100_000_000_000n);
  receiver = await startWebhookReceiver();
  server = await startTestServer({
    ...bitcoinLiveOptions(node, { bitcoinConfirmations: CONFIRMATIONS }),
    operatorToken: OPERATOR_TOKEN,
  });
  // The watcher's first poll starts from the node's tip: a block mined before it is never read
  // (see the report on bitcoin-restart.test.ts), so the orders below are paid only after it.
  await waitForBitcoinScan(server, node);
});
afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
  await node?.close();
});

/** The buyer's own wallet, as their wallet app would hold it: a BIP32 key from a fixed seed. */
function buyerKey(seedByte: number): HDKey {
  return HDKey.fromMasterSeed(new Uint8Array(32).fill(seedByte));
}

/** A mainnet native segwit receive address (`bc1q…`) of the buyer's wallet. */
function buyerMainnetAddress(seedByte: number): string {
  const key = buyerKey(seedByte).derive("m/84'/0'/0'/0/0");
  return p2wpkh(key.publicKey!, NETWORK).address!;
}

/** SLIP-132 version bytes of zprv/zpub (BIP84 account keys). */
const ZPRV_VERSIONS = { private: 0x04b2430c, public: 0x04b24746 };

/** A settled BTC order paid to the merchant's zpub; its code. */
async function settledOrder(externalReference: string): Promise<string> {
  const { code, link, sats } = await openBitcoinCheckout(server, MERCHANT_ZPUB, {
    external_reference: externalReference,
    webhook_url: receiver.url,
  });
  node.pay(buyer, [{ address: link.address, sats }]);
  node.mine(CONFIRMATIONS);
  await waitForBitcoinStatus(server, code, 'settled');
  return code;
}

/** Transfers to the refund's address the server stored, amounts in satoshis. */
const storedTransfers = (refundId: string) =>
  storedRefundTransfers(server.dataDir, refundId, 8).map(({ units, ...row }) => ({ ...row, sats: units }));

/** Waits until the watcher made `count` more polls (an idle poll asks the node twice). */
async function morePolls(count: number): Promise<void> {
  const before = (await bitcoinHealth(server)).rpcCalls;
  await eventually(async () =>
    expect((await bitcoinHealth(server)).rpcCalls).toBeGreaterThanOrEqual(before + 2 * count),
  );
}

/** A settled order and its refund of `amount` BTC awaiting payment to a buyer's mainnet address. */
async function refundAwaitingPayment(externalReference: string, amount: string, seedByte: number) {
  const code = await settledOrder(externalReference);
  const created = await createRefund(server, { transaction_code: code, amount, currency: 'BTC' });
  expect(created.status).toBe(201);
  const refundId = created.json.data.refund_id as string;
  const address = buyerMainnetAddress(seedByte);
  expect((await confirmRefundAddress(created.json.data.claim_url, address)).status).toBe(303);
  return { code, refundId, address };
}

/** The output script of an address as the refund's BIP21 request names it (mainnet). */
const scriptOf = (address: string) => OutScript.encode(Address(NETWORK).decode(address));

describe('refunds paid on the Bitcoin test node', () => {
  it('asks for a BIP21 payment to the buyer’s mainnet address; another amount does not pay it, the exact one does at its confirmations, with one webhook', async () => {
    const amount = '0.0002';
    const { code, refundId, address } = await refundAwaitingPayment('btc-refund-paid', amount, 1);
    expect(address).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);

    const awaiting = await refundOf(server, refundId);
    expect(awaiting).toMatchObject({
      status: 'awaiting_payment',
      address,
      asset: 'BTC',
      network: 'BITCOIN',
      amount,
    });
    expect(awaiting.payment_request!.text).toBe(`Send ${amount} BTC on Bitcoin to ${address}`);
    // BIP21: bitcoin:<address>?amount=<BTC>&label=…
    const uri = awaiting.payment_request!.uri;
    expect(uri).toMatch(new RegExp(`^bitcoin:${address}\\?amount=${amount.replace('.', '\\.')}&`));
    const request = new URL(uri);
    expect(request.protocol).toBe('bitcoin:');
    expect(request.pathname).toBe(address);
    expect(request.searchParams.get('amount')).toBe(amount);
    expect(request.searchParams.get('label')).toBe('Refund');
    const due = decimalToScaled(request.searchParams.get('amount')!, 8);
    expect(due).toBe(20_000n);
    const script = scriptOf(request.pathname);
    expect(script).toEqual(p2wpkh(buyerKey(1).derive("m/84'/0'/0'/0/0").publicKey!).script);

    // One satoshi short and 1000 over, two outputs of one transaction: seen, final, and neither pays.
    const wrong = node.pay(merchant, [
      { script, sats: due - 1n },
      { script, sats: due + 1_000n },
    ]);
    node.mine(CONFIRMATIONS);
    await eventually(() =>
      expect(storedTransfers(refundId)).toEqual([
        { tx_hash: wrong.txid, log_index: 0, sats: due - 1n, exact: 0, confirmed: 1 },
        { tx_hash: wrong.txid, log_index: 1, sats: due + 1_000n, exact: 0, confirmed: 1 },
      ]),
    );
    await waitForBitcoinScan(server, node);
    expect((await refundOf(server, refundId)).status).toBe('awaiting_payment');
    expect(refundPaidWebhooks(receiver, refundId)).toEqual([]);

    // The exact amount, mined at once (seen in the mempool first: the next test): one confirmation is
    // not enough, the second pays it.
    const exact = node.pay(merchant, [{ script, sats: due }]);
    node.mine(1);
    await eventually(() =>
      expect(storedTransfers(refundId)).toContainEqual({
        tx_hash: exact.txid,
        log_index: 0,
        sats: due,
        exact: 1,
        confirmed: 0,
      }),
    );
    await morePolls(5);
    expect((await refundOf(server, refundId)).status).toBe('awaiting_payment');
    node.mine(CONFIRMATIONS - 1);
    const paid = await refundBecomesPaid(server, refundId);
    // A regtest transaction is on no public explorer.
    expect(paid).toMatchObject({ tx_id: exact.txid, address, tx_url: null, payment_request: null });
    expect(paid.history.at(-1)).toMatchObject({ status: 'paid' });
    expect(paid.history.at(-1)?.note).toContain(exact.txid);
    await eventually(() => expect(refundPaidWebhooks(receiver, refundId)).toHaveLength(1));
    expect(refundPaidWebhookSchema.parse(refundPaidWebhooks(receiver, refundId)[0])).toMatchObject({
      refund_id: refundId,
      transaction_code: code,
      tx_id: exact.txid,
      amount,
      asset: 'BTC',
      network: 'BITCOIN',
      address,
    });

    // The watcher passes over the same blocks and mempool again; another exact payment comes too late.
    const again = node.pay(merchant, [{ script, sats: due }]);
    node.mine(CONFIRMATIONS);
    await waitForBitcoinScan(server, node);
    await morePolls(20);
    expect(refundPaidWebhooks(receiver, refundId)).toHaveLength(1);
    const after = await refundOf(server, refundId);
    expect(after).toMatchObject({ status: 'paid', tx_id: exact.txid });
    expect(after.history.filter((entry) => entry.status === 'paid')).toHaveLength(1);
    expect(storedTransfers(refundId).map((row) => row.tx_hash)).not.toContain(again.txid);
    expect(storedTransfers(refundId)).toHaveLength(3);
    // The refund's transfers are not payments of the order: it keeps its one payment.
    const order = await server.client.getTransaction(code);
    expect(order).toMatchObject({ status: 'settled' });
    expect(order.payments).toHaveLength(1);
  });

  // Every real refund payment is seen in the mempool before its block: the stored transfer must get
  // its block when mined, not be forgotten as dropped (it was, before fa56e20).
  it('pays a refund whose exact transfer was first seen in the mempool, once mined', async () => {
    const { refundId, address } = await refundAwaitingPayment('btc-refund-mempool-first', '0.00015', 3);
    // The watcher reads the payable refunds at the start of a poll: a poll under way when the address
    // was confirmed would pass over the transfer in the mempool (it is then found in its block).
    await morePolls(3);
    const script = scriptOf(address);
    const exact = node.pay(merchant, [{ script, sats: 15_000n }]);
    await eventually(() =>
      expect(storedTransfers(refundId)).toEqual([
        { tx_hash: exact.txid, log_index: 0, sats: 15_000n, exact: 1, confirmed: 0 },
      ]),
    );
    node.mine(CONFIRMATIONS);
    const paid = await refundBecomesPaid(server, refundId);
    expect(paid).toMatchObject({ tx_id: exact.txid, address });
    expect(storedTransfers(refundId)).toEqual([
      { tx_hash: exact.txid, log_index: 0, sats: 15_000n, exact: 1, confirmed: 1 },
    ]);
    await eventually(() => expect(refundPaidWebhooks(receiver, refundId)).toHaveLength(1));
    expect(refundPaidWebhooks(receiver, refundId)[0]).toMatchObject({ tx_id: exact.txid, amount: '0.00015' });
  });

  it('refuses an extended public key (code extended_key) and a private key on the claim page, saying why, then takes an address', async () => {
    const code = await settledOrder('btc-refund-keys');
    const created = await createRefund(server, { transaction_code: code, amount: '0.0001', currency: 'BTC' });
    expect(created.status).toBe(201);
    const claimUrl = created.json.data.claim_url as string;
    const refundId = created.json.data.refund_id as string;

    const account = buyerKey(2).derive("m/84'/0'/0'");
    const zprvAccount = HDKey.fromMasterSeed(new Uint8Array(32).fill(2), ZPRV_VERSIONS).derive("m/84'/0'/0'");
    const xpub = account.publicExtendedKey;
    const xprv = account.privateExtendedKey;
    const zpub = zprvAccount.publicExtendedKey;
    const zprv = zprvAccount.privateExtendedKey;
    expect([xpub.slice(0, 4), xprv.slice(0, 4), zpub.slice(0, 4), zprv.slice(0, 4)]).toEqual([
      'xpub',
      'xprv',
      'zpub',
      'zprv',
    ]);
    const problemText = (problem: string) =>
      escapeHtml(
        refundProblemMessage({ field: 'address', code: problem }, REFUND_MESSAGES.en, {
          network: 'Bitcoin',
          asset: 'BTC',
        }),
      );
    const refused: Array<[string, string]> = [
      [xpub, 'extended_key'],
      [zpub, 'extended_key'],
      // The shop's own receiving key: a key first, whoever it belongs to.
      [MERCHANT_ZPUB, 'extended_key'],
      [`wpkh(${xpub}/0/*)`, 'extended_key'],
      [xprv, 'private_key'],
      [zprv, 'private_key'],
    ];
    expect(problemText('extended_key')).not.toBe(problemText('private_key'));
    for (const [entered, problem] of refused) {
      const steps: Record<string, string>[] = [
        { step: 'check', address: entered, address_again: entered },
        { step: 'confirm', address: entered, confirmed: 'yes' },
      ];
      for (const step of steps) {
        const answer = await postClaimForm(claimUrl, step);
        expect(answer.status, `${entered} at ${step.step}`).toBe(200);
        const page = await answer.text();
        expect(page, `${entered} at ${step.step}`).toContain(problemText(problem));
        expect(page).not.toContain('name="confirmed"');
      }
      expect(await refundOf(server, refundId)).toMatchObject({ status: 'awaiting_address', address: null });
    }

    const address = buyerMainnetAddress(2);
    expect((await confirmRefundAddress(claimUrl, address)).status).toBe(303);
    expect(await refundOf(server, refundId)).toMatchObject({ status: 'awaiting_payment', address });
  });
});
