// The claim page refuses well-formed addresses that would lose the refund (issue 40, item 5).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, startTestServer, type TestServer } from './helpers.js';
import { OPERATOR_TOKEN } from './operator-helpers.js';
import { confirmRefundAddress, createRefund, postClaimForm } from './refund-helpers.js';

/** EIP-55 examples from the EIP itself: the shop's wallet and the buyer's. */
const SHOP = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const BUYER = '0x52908400098527886E0F7030069857D2E4169EE7';
const USDC_POLYGON = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

describe('the claim page against the real server', () => {
  let server: TestServer;
  let claimUrl: string;
  let refundId: string;
  let depositAddress: string;

  beforeAll(async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const customer = { wallet_address: SHOP, crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' };
    const order = await server.client.createCheckout(checkoutBody({ fiat_currency: 'USD', customer }));
    // Another checkout's deposit address (sandbox: derived, owned by nobody).
    const other = await server.client.createCheckout(checkoutBody({ fiat_currency: 'USD', customer }));
    const link = await server.get(
      `/api/payment_link?transaction_code=${other.transaction_code}&payment_method=usdc_polygon`,
    );
    depositAddress = link.json.data.address;
    await server.post('/api/sandbox/pay', {
      transaction_code: order.transaction_code,
      payment_method: 'usdc_polygon',
    });
    const refund = await createRefund(server, {
      transaction_code: order.transaction_code,
      amount: '5',
      currency: 'USDC',
    });
    expect(refund.status).toBe(201);
    claimUrl = refund.json.data.claim_url;
    refundId = refund.json.data.refund_id;
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it.each([
    ['the zero address', `0x${'0'.repeat(40)}`, 'This is the zero address'],
    ['the token contract', USDC_POLYGON.toLowerCase(), 'This is the address of a token contract'],
    ['the shop’s wallet', SHOP, 'This is the shop’s own wallet'],
    ['a deposit address of the service', '', 'This is an address of the payment service'],
  ])('refuses %s with its reason, before the review and at the confirm step', async (_name, given, reason) => {
    const address = given || depositAddress;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const checked = await postClaimForm(claimUrl, { step: 'check', address, address_again: address });
    expect(checked.status).toBe(200);
    const page = await checked.text();
    expect(page).toContain(reason);
    expect(page).not.toContain('name="confirmed"');
    const confirmed = await postClaimForm(claimUrl, { step: 'confirm', address, confirmed: 'yes' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain(reason);
    const refund = await server.get(`/api/refund?refund_id=${refundId}`);
    expect(refund.json.data).toMatchObject({ status: 'awaiting_address', address: null });
  });

  it('takes the buyer’s own address', async () => {
    const done = await confirmRefundAddress(claimUrl, BUYER);
    expect(done.status).toBe(303);
    const refund = await server.get(`/api/refund?refund_id=${refundId}`);
    expect(refund.json.data).toMatchObject({ status: 'awaiting_payment', address: BUYER });
  });
});
