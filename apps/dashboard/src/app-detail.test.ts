import type { OperatorTransactionDetail } from '@cryptocheckout/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openDashboard, waitFor } from './dashboard-page.test-helpers.js';
import { shortCode } from './format.js';
import {
  OPERATOR_TOKEN,
  type OperatorServer,
  startOperatorServer,
  startWebhookReceiver,
  type WebhookReceiver,
} from './real-server.test-helpers.js';

// One transaction's page against the reference server: what it shows, and resending its webhook.

let server: OperatorServer | null = null;
let receiver: WebhookReceiver | null = null;

const cellsOf = (row: Element) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim());

afterEach(async () => {
  // The receiver first: a webhook it holds back would keep the server's close waiting.
  await receiver?.close();
  await server?.close();
  receiver = null;
  server = null;
});

/** Waits until the transaction's first webhook delivery has failed for good, and returns the detail. */
async function failedDelivery(target: OperatorServer, code: string): Promise<OperatorTransactionDetail> {
  return waitFor(async () => {
    const detail = await target.operator<OperatorTransactionDetail>(`/transactions/${code}`);
    expect(detail.deliveries[0]?.state).toBe('failed');
    return detail;
  });
}

describe('transaction detail', () => {
  it('shows summary, history, payments, options and why each delivery attempt failed', async () => {
    // The shop answers 500, then nothing in time: one retry shows both kinds of failure.
    server = await startOperatorServer({ webhooks: { retries: 1, retryBaseDelayMs: 50, timeoutMs: 300 } });
    receiver = await startWebhookReceiver({ status: 500 });
    const code = await server.createCheckout({
      external_reference: 'ORD-1001',
      // Below some rails' minimum, so the options show why those are unavailable.
      fiat_amount: '5.00',
      fiat_currency: 'EUR',
      webhook_url: `${receiver.url}?secret=kept-out-of-the-page`,
    });
    await server.settle(code);
    await waitFor(() => expect(receiver!.received).toHaveLength(1));
    receiver.answer = { status: 200, delayMs: 2_000 };
    const detail = await failedDelivery(server, code);
    const delivery = detail.deliveries[0]!;

    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: `#/transactions/${code}` });
    await waitFor(() => expect(page.text('h1')).toBe('Order ORD-1001 Settled'));
    expect(page.doc.activeElement).toBe(page.doc.querySelector('h1'));
    const summaryText = page.text('.summary');
    expect(summaryText).toContain('5.00 EUR');
    // The rate the checkout locked, as the server answers it (the sandbox's static table: no spread).
    const rate = detail.transaction.rate!;
    expect(summaryText).toContain(`1 EUR = ${rate.usd_per_unit} USD (no spread)`);
    expect(summaryText).toContain(`Rate sources${rate.sources.join(', ')} ${rate.source}`);
    expect(page.doc.querySelector(`.summary time[datetime="${rate.held_until}"]`)).not.toBeNull();
    expect(summaryText).toContain(`Webhook URL${receiver.url.replace('/webhook', '')}`);
    expect(summaryText).not.toContain('kept-out-of-the-page');
    expect(page.doc.querySelector<HTMLAnchorElement>('.summary a')?.href).toBe(
      `${server.origin}/pay/${code}`,
    );
    expect(page.texts('caption')).toEqual([
      'State history',
      'Payments',
      'Refunds of this order',
      'Payment options',
      `Attempts of delivery ${shortCode(delivery.delivery_id)}`,
    ]);
    expect(page.texts('#history-table tbody td:nth-child(2)')).toEqual(['Pending', 'Settled']);
    const payment = detail.payments[0]!;
    expect(cellsOf(page.rows('payments-table')[0]!)).toEqual([
      'usdc_polygon (POLYGON)',
      `${payment.amount} USDC`,
      `$${payment.amount_usd}`,
      expect.any(String),
      payment.tx_id,
      'No',
      'Confirmed',
    ]);
    // Every rail as priced for the order, with the server's reason where one is not offered.
    const options = [...page.rows('options-table')].map(cellsOf);
    expect(options).toHaveLength(detail.payment_options.length);
    const ethereum = detail.payment_options.find((option) => option.slug === 'usdc_ethereum')!;
    expect(ethereum.available).toBe(false);
    expect(options).toContainEqual([
      'USDC on Ethereum (ETHEREUM)',
      `${ethereum.amount} USDC`,
      `$${ethereum.amount_usd}`,
      `Unavailable: ${ethereum.unavailable_reason}`,
    ]);
    expect(options).toContainEqual(['USDC on Polygon (POLYGON)', '5.42 USDC', '$5.42', 'Available']);
    const results = page.texts(`#delivery-${delivery.delivery_id}-attempts td:nth-child(2)`);
    expect(results).toEqual(['Failed: HTTP 500', 'Failed: no answer within 300 ms']);
    expect(
      page.doc.querySelectorAll(`#delivery-${delivery.delivery_id}-attempts td.result--failed`),
    ).toHaveLength(2);
    expect(page.text('.delivery h3')).toBe(`Delivery to ${new URL(receiver.url).origin}`);
    expect(page.text('.delivery-meta')).toMatch(/^Failed Created .+ · finished .+ · 2 attempts$/);
    expect(page.doc.querySelector('#transfers-table')).toBeNull();
  });

  it('sends one resend for a double click, says "Queued" and shows the new attempt without a reload', async () => {
    server = await startOperatorServer();
    receiver = await startWebhookReceiver({ status: 500 });
    const code = await server.createCheckout({ external_reference: 'ORD-RESEND', webhook_url: receiver.url });
    await server.settle(code);
    const original = (await failedDelivery(server, code)).deliveries[0]!.delivery_id;
    // The shop is fixed, and slow enough that the page first shows the resend without its attempt.
    receiver.answer = { status: 200, delayMs: 400 };

    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: `#/transactions/${code}` });
    await waitFor(() => expect(page.buttons('Resend webhook')).toHaveLength(1));
    const resend = page.button('Resend webhook');
    resend.focus();
    resend.click();
    resend.click();
    expect(page.button('Resend webhook').disabled).toBe(true);
    expect(page.text(`#delivery-${original}-note`)).toBe('Sending…');
    await waitFor(() => expect(page.text(`#delivery-${original}-note`)).toBe('Queued'));
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
    // Focus stays on the (re-drawn) button of the delivery that was resent.
    expect((page.doc.activeElement as HTMLElement).getAttribute('data-focus-key')).toBe(`resend:${original}`);
    await waitFor(() => expect(page.doc.querySelectorAll('.delivery')).toHaveLength(2));
    expect(page.text('.delivery:last-of-type .delivery-meta')).toContain(
      `resend of delivery ${shortCode(original)}`,
    );
    expect(page.text('.delivery:last-of-type tbody')).toBe('No attempt yet.');
    expect(page.buttons('Resend webhook').every((button) => !button.disabled)).toBe(true);

    // The outbox delivers it a moment later; the follow-up poll brings the attempt in.
    await waitFor(() => expect(page.text('.delivery:last-of-type td.result--ok')).toBe('HTTP 200'));
    expect(page.text('.delivery:last-of-type .badge')).toBe('Delivered');
    expect(page.text(`#delivery-${original}-note`)).toBe('Queued');
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]).toBe(receiver.received[0]);
  });

  it('says when a resend of the delivery was already waiting', async () => {
    server = await startOperatorServer();
    receiver = await startWebhookReceiver({ status: 500 });
    const code = await server.createCheckout({
      external_reference: 'ORD-WAITING',
      webhook_url: receiver.url,
    });
    await server.settle(code);
    const original = (await failedDelivery(server, code)).deliveries[0]!.delivery_id;
    // Another operator resent it; the shop takes its time, so that resend is still pending.
    receiver.answer = { status: 200, delayMs: 3_000 };
    await server.operator(`/deliveries/${original}/resend`, 'POST');

    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: `#/transactions/${code}` });
    await waitFor(() => expect(page.doc.querySelectorAll('.delivery')).toHaveLength(2));
    page.buttons('Resend webhook')[0]!.click();
    await waitFor(() =>
      expect(page.text(`#delivery-${original}-note`)).toBe('Queued (a resend was already waiting)'),
    );
    expect(page.doc.querySelectorAll('.delivery')).toHaveLength(2);
  });

  it('says so in the alert when the transaction does not exist', async () => {
    server = await startOperatorServer();
    const unknown = crypto.randomUUID();
    const page = openDashboard(server, { token: OPERATOR_TOKEN, hash: `#/transactions/${unknown}` });
    await waitFor(() => expect(page.text('h1')).toBe('Transaction not found'));
    const refusal = await fetch(`${server.base}/transactions/${unknown}`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(refusal.status).toBe(404);
    const { error } = (await refusal.json()) as { error: { message: string } };
    expect(page.alert()).toBe(error.message);
    expect(page.text('.detail')).toBe(`No transaction has the code ${unknown}.`);
  });
});
