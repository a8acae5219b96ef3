import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkoutBody,
  eventually,
  startTestServer,
  startWebhookReceiver,
  type TestServer,
} from './helpers.js';
import { OPERATOR_TOKEN, operatorRequest } from './operator-helpers.js';

let server: TestServer | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
afterEach(async () => {
  await server?.dispose();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

async function settledCheckout(target: TestServer, overrides: Record<string, unknown> = {}) {
  const created = await target.client.createCheckout(checkoutBody(overrides));
  await target.post('/api/sandbox/pay', {
    transaction_code: created.transaction_code,
    payment_method: 'usdc_polygon',
  });
  return created.transaction_code;
}

describe('operator API access', () => {
  it('answers 401 in the error envelope without a token and with a wrong one, 200 with the right one', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const missing = await operatorRequest(server, '/overview', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      status: 'error',
      error: { code: 'unauthorized', message: expect.stringContaining('Authorization: Bearer') },
    });
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="operator"');
    for (const wrong of [`${OPERATOR_TOKEN.slice(0, -1)}X`, 'short', `${OPERATOR_TOKEN}extra`, '']) {
      const refused = await operatorRequest(server, '/transactions', { token: wrong });
      expect(refused.status, `token ${JSON.stringify(wrong)}`).toBe(401);
      expect(refused.json.error.code).toBe('unauthorized');
    }
    // A token that is right but sent another way (query string, cookie) opens nothing.
    const inQuery = await fetch(`${server.url}/api/operator/overview?token=${OPERATOR_TOKEN}`);
    expect(inQuery.status).toBe(401);
    const asCookie = await fetch(`${server.url}/api/operator/overview`, {
      headers: { cookie: `token=${OPERATOR_TOKEN}` },
    });
    expect(asCookie.status).toBe(401);
    // The resend action is refused before it looks at the delivery.
    const resend = await operatorRequest(server, `/deliveries/${crypto.randomUUID()}/resend`, {
      method: 'POST',
      token: 'wrong-token-wrong-token-wrong',
    });
    expect(resend.status).toBe(401);

    const overview = await operatorRequest(server, '/overview');
    expect(overview.status).toBe(200);
    expect(overview.json.data).toMatchObject({ mode: 'sandbox', storage: 'sqlite', networks: [] });
    expect(overview.headers.get('cache-control')).toBe('no-store');
  });

  it('leaves the public API as it was: no token needed there, operator paths not in the OpenAPI document', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const created = await server.client.createCheckout(checkoutBody());
    expect((await server.client.getTransaction(created.transaction_code)).status).toBe('pending');
    const document = (await server.get('/api/openapi.json')).json;
    expect(Object.keys(document.paths).filter((path) => path.includes('operator'))).toEqual([]);
  });

  it('generates a token on the first start, keeps it for the owner only, and reuses it after a restart', async () => {
    server = await startTestServer();
    const generated = server.dashboard.token;
    expect(generated.source).toBe('generated');
    expect(generated.token).toMatch(/^cco_[A-Za-z0-9_-]{43}$/);
    expect(generated.path).toBe(join(server.dataDir, 'operator-token'));
    expect(statSync(generated.path!).mode & 0o777).toBe(0o600);
    expect((await operatorRequest(server, '/overview', { token: generated.token })).status).toBe(200);

    server = await server.restart();
    expect(server.dashboard.token).toMatchObject({ source: 'file', token: generated.token });
    expect((await operatorRequest(server, '/overview', { token: generated.token })).status).toBe(200);
    expect(server.dashboard.url).toBe(`${server.url}/dashboard`);
  });

  it('refuses a short operator token with an error naming the option', async () => {
    await expect(startTestServer({ operatorToken: 'too-short' })).rejects.toThrow(
      /--operator-token must be at least 24 printable characters/,
    );
  });
});

describe('one transaction for the operator', () => {
  it('shows the state history, payments, priced options and every delivery attempt, and resends through the outbox', async () => {
    let answer = 500;
    receiver = await startWebhookReceiver(() => ({ status: answer }));
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const code = await settledCheckout(server, {
      webhook_url: `${receiver.url}?secret=kept-out-of-the-dashboard`,
    });
    const failed = await eventually(async () => {
      const detail = (await operatorRequest(server!, `/transactions/${code}`)).json.data;
      expect(detail.deliveries[0].state).toBe('failed');
      return detail;
    });
    expect(failed.history.map((entry: { status: string }) => entry.status)).toEqual(['pending', 'settled']);
    expect(failed.payments).toEqual([
      expect.objectContaining({
        payment_method: 'usdc_polygon',
        asset: 'USDC',
        confirmed: true,
        late: false,
      }),
    ]);
    expect(failed.payment_options.map((option: { slug: string }) => option.slug)).toContain('usdc_polygon');
    expect(failed.webhook_url_origin).toBe(new URL(receiver.url).origin);
    expect(JSON.stringify(failed)).not.toContain('kept-out-of-the-dashboard');
    const original = failed.deliveries[0];
    expect(original).toMatchObject({ url_origin: new URL(receiver.url).origin, resend_of: null });
    expect(original.attempts).toEqual([
      {
        attempt_number: 1,
        attempted_at: expect.any(String),
        http_status: 500,
        error: 'HTTP 500',
        duration_ms: expect.any(Number),
      },
    ]);

    answer = 200;
    // A double click: two requests at once make one delivery.
    const [first, second] = await Promise.all([
      operatorRequest(server, `/deliveries/${original.delivery_id}/resend`, { method: 'POST' }),
      operatorRequest(server, `/deliveries/${original.delivery_id}/resend`, { method: 'POST' }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    expect(first.json.data.delivery_id).toBe(second.json.data.delivery_id);
    expect([first.json.data.created, second.json.data.created].sort()).toEqual([false, true]);
    await receiver.waitFor(2);
    const resent = await eventually(async () => {
      const detail = (await operatorRequest(server!, `/transactions/${code}`)).json.data;
      expect(detail.deliveries).toHaveLength(2);
      expect(detail.deliveries[1].state).toBe('delivered');
      return detail;
    });
    expect(resent.deliveries[1]).toMatchObject({
      delivery_id: first.json.data.delivery_id,
      resend_of: original.delivery_id,
      attempts: [expect.objectContaining({ attempt_number: 1, http_status: 200, error: null })],
    });
    // The same body went out again, to the same URL.
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(2);

    // Once that resend has finished, asking again sends again.
    const again = await operatorRequest(server, `/deliveries/${original.delivery_id}/resend`, {
      method: 'POST',
    });
    expect(again.status).toBe(201);
    expect(again.json.data.delivery_id).not.toBe(first.json.data.delivery_id);
    await receiver.waitFor(3);
  });

  it('answers 404 for an unknown transaction or delivery and 400 for a malformed delivery id', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const unknown = await operatorRequest(server, `/transactions/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    const unknownDelivery = await operatorRequest(server, `/deliveries/${crypto.randomUUID()}/resend`, {
      method: 'POST',
    });
    expect(unknownDelivery.status).toBe(404);
    expect(unknownDelivery.json.error.message).toMatch(/No webhook delivery/);
    const malformed = await operatorRequest(server, '/deliveries/not-an-id/resend', { method: 'POST' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.field).toBe('deliveryId');
  });
});

describe('CSV export and daily figures', () => {
  it('exports the filtered list as CSV, with spreadsheet formulas defused', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const settled = await settledCheckout(server, { external_reference: '=HYPERLINK("http://evil")' });
    const pending = (
      await server.client.createCheckout(checkoutBody({ external_reference: 'plain, "quoted"' }))
    ).transaction_code;
    const all = await operatorRequest(server, '/transactions.csv');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(all.headers.get('content-disposition')).toMatch(
      /^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = all.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'transaction_code,created_at,status,external_reference,fiat_amount,fiat_currency,amount_in_usd,received_usd,payment_method,late,settled_at,webhook',
    );
    expect(lines).toHaveLength(3);
    expect(lines.find((line) => line.startsWith(settled))).toContain(
      `,settled,"'=HYPERLINK(""http://evil"")",25.00,EUR,`,
    );
    expect(lines.find((line) => line.startsWith(pending))).toContain(',pending,"plain, ""quoted""",');
    const onlySettled = await operatorRequest(server, '/transactions.csv?status=settled');
    expect(onlySettled.text.trimEnd().split('\r\n')).toHaveLength(2);
  });

  it('counts checkouts and sums settled USD per day exactly', async () => {
    server = await startTestServer({ operatorToken: OPERATOR_TOKEN });
    const amounts = ['0.10', '0.20', '19.99', '1234.57'];
    for (const amount of amounts)
      await settledCheckout(server, { fiat_amount: amount, fiat_currency: 'USD' });
    await server.client.createCheckout(checkoutBody());
    const stats = (await operatorRequest(server, '/stats?days=7')).json.data;
    expect(stats.days).toHaveLength(7);
    const today = stats.days.at(-1);
    expect(today.date).toBe(new Date().toISOString().slice(0, 10));
    expect(today).toMatchObject({ checkouts: 5, settled: 4, settled_usd: '1254.86' });
    expect(stats.days.slice(0, -1).every((day: { checkouts: number }) => day.checkouts === 0)).toBe(true);
    const refused = await operatorRequest(server, '/stats?days=0');
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ field: 'days' });
  });
});

describe('the dashboard page', () => {
  it('serves the built dashboard with a strict policy, and says how to build it when it is missing', async () => {
    const built = mkdtempSync(join(tmpdir(), 'cryptocheckout-dashboard-'));
    mkdirSync(join(built, 'assets'));
    writeFileSync(join(built, 'index.html'), '<!doctype html><title>Operator</title>');
    writeFileSync(join(built, 'assets', 'dashboard.js'), 'console.log(1)');
    try {
      server = await startTestServer({ operatorToken: OPERATOR_TOKEN, dashboardDir: built });
      const page = await fetch(`${server.url}/dashboard`);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe('<!doctype html><title>Operator</title>');
      const policy = page.headers.get('content-security-policy')!;
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      const script = await fetch(`${server.url}/dashboard/assets/dashboard.js`);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(await script.text()).toBe('console.log(1)');
      expect((await fetch(`${server.url}/dashboard/assets/..%2Findex.html`)).status).toBe(404);
      await server.dispose();

      server = await startTestServer({ operatorToken: OPERATOR_TOKEN, dashboardDir: join(built, 'missing') });
      const missing = await fetch(`${server.url}/dashboard`);
      expect(missing.status).toBe(404);
      expect(await missing.text()).toContain('npm run build');
    } finally {
      rmSync(built, { recursive: true, force: true });
    }
  });
});
