import type { RefundClaimView } from '@cryptocheckout/pay-page';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleError } from './errors.js';
import { type RefundClaimPort, registerRefundPageRoutes } from './refund-page-routes.js';

const CODE = 'Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF';
const OTHER_CODE = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const NOW = new Date('2025-01-10T12:00:00.000Z');
/** EIP-55 examples from the EIP itself. */
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const OTHER_ADDRESS = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';

function claimView(overrides: Partial<RefundClaimView> = {}): RefundClaimView {
  return {
    claimCode: CODE,
    status: 'awaiting_address',
    merchantDomain: 'shop.example',
    externalReference: 'order-1001',
    amount: '12.340001',
    asset: 'USDC',
    network: 'POLYGON',
    fiatAmount: '12.50',
    fiatCurrency: 'EUR',
    address: null,
    claimExpiresAt: '2025-02-01T12:00:00.000Z',
    paidAt: null,
    txId: null,
    txUrl: null,
    mode: 'live',
    ...overrides,
  };
}

/** The refunds in memory, recording every confirmation asked for. */
class MemoryClaims implements RefundClaimPort {
  readonly views = new Map<string, RefundClaimView>([[CODE, claimView()]]);
  readonly confirmations: { code: string; address: string }[] = [];
  /** The next view() answers this instead: a page read just before another tab confirmed. */
  staleNext: RefundClaimView | undefined;
  failing = false;
  /** Addresses the service refuses, with the problem code it gives. */
  readonly refused = new Map<string, string>();

  async view(code: string): Promise<RefundClaimView | undefined> {
    if (this.failing) throw new Error('database down');
    const stale = this.staleNext;
    this.staleNext = undefined;
    const view = stale ?? this.views.get(code);
    return view && { ...view };
  }

  async addressRefusal(_code: string, address: string) {
    return this.refused.get(address);
  }

  async confirmAddress(code: string, address: string) {
    this.confirmations.push({ code, address });
    const view = this.views.get(code);
    if (!view) return 'not_found' as const;
    if (view.status !== 'awaiting_address') return 'not_awaiting_address' as const;
    this.views.set(code, { ...view, status: 'awaiting_payment', address });
    return 'confirmed' as const;
  }
}

let app: FastifyInstance;
let base: string;
let claims: MemoryClaims;
let now: Date;

beforeEach(async () => {
  claims = new MemoryClaims();
  now = NOW;
  app = Fastify();
  // As the server's app.ts has them: a form parser without the claim form's limit, its error envelope.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.setErrorHandler(handleError);
  app.post('/elsewhere', async (request) => ({ got: request.body }));
  registerRefundPageRoutes(app, claims, () => now);
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterEach(async () => {
  await app.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

async function postForm(fields: Record<string, string>, path = `/refund/${CODE}`) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** The text of the element with this id, tags stripped. */
function textOf(body: string, id: string): string {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</(?:p|h2|div)>`).exec(body);
  return match ? match[1]!.replace(/<[^>]+>/g, '').trim() : '';
}

const headersWithoutDate = (headers: Headers) =>
  Object.fromEntries([...headers.entries()].filter(([name]) => !['date', 'keep-alive'].includes(name)));

describe('GET /refund/<claim code>', () => {
  it('answers unknown and malformed claim codes with the very same 404 page and headers', async () => {
    const unknown = await get(`/refund/${OTHER_CODE}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('Refund not found');
    for (const path of [
      '/refund/short',
      `/refund/${CODE.slice(0, 42)}!`,
      `/refund/${CODE}A`,
      `/refund/${'A'.repeat(300)}`,
      `/refund/${CODE}/more`,
      `/refund/${CODE.slice(0, 40)}%00%0A`,
      '/refund/',
    ]) {
      const malformed = await get(path);
      expect(malformed.status, path).toBe(404);
      expect(malformed.body, path).toBe(unknown.body);
      expect(headersWithoutDate(malformed.headers), path).toEqual(headersWithoutDate(unknown.headers));
    }
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    expect(unknown.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('shows the address form with the pay page security headers, no script allowed to matter', async () => {
    const page = await get(`/refund/${CODE}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.body).toContain(`<form class="refund-form" method="post" action="/refund/${CODE}?lang=en">`);
    expect(page.body).toContain('12.340001 USDC on Polygon PoS');
    expect(page.body).not.toContain('<script');
    expect((await get(`/refund/${CODE}/`)).body).toBe(page.body);
  });

  it('speaks the ?lang parameter, else the Accept-Language header', async () => {
    expect((await get(`/refund/${CODE}?lang=fr`)).body).toContain('<html lang="fr">');
    expect((await get(`/refund/${CODE}`, { 'accept-language': 'es-MX,es;q=0.9' })).body).toContain(
      '<html lang="es">',
    );
    expect((await get(`/refund/${OTHER_CODE}`, { 'accept-language': 'de' })).body).toContain(
      'Erstattung nicht gefunden',
    );
  });

  it('serves the page stylesheet', async () => {
    const css = await get('/refund/assets/refund.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('.refund-address');
  });
});

describe('POST /refund/<claim code>', () => {
  it('step check: a bad EIP-55 checksum is shown on the first field, with what was typed', async () => {
    const typo = ADDRESS.replace('E0F7', 'e0F7');
    const page = await postForm({ step: 'check', address: typo, address_again: typo });
    expect(page.status).toBe(200);
    expect(page.body).toContain('aria-invalid="true"');
    expect(textOf(page.body, 'cc-refund-address-error')).toContain('checksum does not match');
    expect(page.body).toContain('aria-describedby="cc-refund-address-hint cc-refund-address-error"');
    expect(page.body).toContain(`value="${typo}"`);
    expect(claims.confirmations).toEqual([]);
  });

  it('step check: two different addresses are a mismatch on the second field', async () => {
    const page = await postForm({ step: 'check', address: ADDRESS, address_again: OTHER_ADDRESS });
    expect(page.status).toBe(200);
    expect(textOf(page.body, 'cc-refund-address-again-error')).toBe(
      'The two addresses differ. Enter the same address in both fields.',
    );
    expect(textOf(page.body, 'cc-refund-address-error')).toBe('');
  });

  it('step check: pasted entries are trimmed and compared canonically; the review shows the EIP-55 form', async () => {
    const page = await postForm({
      step: 'check',
      address: `  ${ADDRESS.toLowerCase()}\n`,
      address_again: `\t${ADDRESS.toUpperCase().replace('0X', '0x')} `,
    });
    expect(page.status).toBe(200);
    expect(textOf(page.body, 'cc-refund-review-address')).toBe(ADDRESS);
    expect(page.body).toContain(`<input type="hidden" name="address" value="${ADDRESS}">`);
    expect(page.body).toContain('<input type="hidden" name="step" value="confirm">');
    expect(claims.confirmations).toEqual([]);
  });

  it('step confirm: without the box ticked, asks again and stores nothing', async () => {
    const page = await postForm({ step: 'confirm', address: ADDRESS });
    expect(page.status).toBe(200);
    expect(textOf(page.body, 'cc-refund-confirmed-error')).toBe(
      'Tick the box to confirm that this is your address.',
    );
    expect(textOf(page.body, 'cc-refund-review-address')).toBe(ADDRESS);
    expect(claims.confirmations).toEqual([]);
  });

  it('step confirm: stores the address once, redirects to the page that shows it, never changes it', async () => {
    const confirmed = await postForm(
      { step: 'confirm', address: ADDRESS, confirmed: 'yes' },
      `/refund/${CODE}?lang=de`,
    );
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`/refund/${CODE}?lang=de`);
    expect(confirmed.headers.get('cache-control')).toBe('no-store');
    expect(claims.confirmations).toEqual([{ code: CODE, address: ADDRESS }]);

    const status = await get(confirmed.headers.get('location')!);
    expect(status.status).toBe(200);
    expect(status.body).toContain('Adresse bestätigt');
    expect(status.body).toContain('<meta http-equiv="refresh" content="30">');
    expect(status.body).not.toContain('<form');

    // Another tab still showing the form posts another address.
    claims.staleNext = claimView();
    const again = await postForm({ step: 'confirm', address: OTHER_ADDRESS, confirmed: 'yes' });
    expect(again.status).toBe(303);
    expect(claims.confirmations).toHaveLength(2);
    expect(claims.views.get(CODE)!.address).toBe(ADDRESS);
    const shown = await get(again.headers.get('location')!);
    expect(shown.body).toContain(
      `<span>0x</span>${ADDRESS.slice(2)
        .match(/.{4}/g)!
        .map((group) => `<span>${group}</span>`)
        .join('')}`,
    );
    expect(shown.body).not.toContain(OTHER_ADDRESS.slice(2, 6));

    // Once the refund is past awaiting_address, any post just redirects, without asking the port.
    const late = await postForm({ step: 'check', address: OTHER_ADDRESS, address_again: OTHER_ADDRESS });
    expect(late.status).toBe(303);
    expect(claims.confirmations).toHaveLength(2);
  });

  it('step confirm: a tampered address goes back to the form with its problem', async () => {
    const page = await postForm({
      step: 'confirm',
      address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
      confirmed: 'yes',
    });
    expect(page.status).toBe(200);
    expect(textOf(page.body, 'cc-refund-address-error')).toBe(
      'This is an address of another network. Enter an address on Polygon PoS.',
    );
    expect(claims.confirmations).toEqual([]);
  });

  it('refuses an address the service knows would lose the refund, at the check and at the confirm step, with the reason', async () => {
    const zero = `0x${'0'.repeat(40)}`;
    claims.refused.set(zero, 'zero_address');
    claims.refused.set(OTHER_ADDRESS, 'token_contract');
    const checked = await postForm({ step: 'check', address: zero, address_again: zero });
    expect(checked.status).toBe(200);
    expect(textOf(checked.body, 'cc-refund-address-error')).toBe(
      'This is the zero address: nothing sent there can ever be used. Enter your own wallet address on Polygon PoS.',
    );
    expect(checked.body).not.toContain('name="confirmed"');
    // The review step is skipped by a crafted post: the confirm step checks again.
    const confirmed = await postForm(
      { step: 'confirm', address: OTHER_ADDRESS.toLowerCase(), confirmed: 'yes' },
      `/refund/${CODE}?lang=de`,
    );
    expect(confirmed.status).toBe(200);
    expect(textOf(confirmed.body, 'cc-refund-address-error')).toContain('Token-Vertrags');
    expect(claims.confirmations).toEqual([]);
    expect(claims.views.get(CODE)!.status).toBe('awaiting_address');
    // Any other address goes on as before.
    const review = await postForm({ step: 'check', address: ADDRESS, address_again: ADDRESS });
    expect(textOf(review.body, 'cc-refund-review-address')).toBe(ADDRESS);
  });

  it('after the claim deadline, redirects to the page showing the claim expired', async () => {
    now = new Date('2025-02-01T12:00:00.000Z');
    const posted = await postForm({ step: 'confirm', address: ADDRESS, confirmed: 'yes' });
    expect(posted.status).toBe(303);
    expect(claims.confirmations).toEqual([]);
    expect((await get(`/refund/${CODE}`)).body).toContain('This refund claim has expired');
  });

  it('unknown and malformed codes get the 404 page on post too', async () => {
    const unknown = await postForm({ step: 'check' }, `/refund/${OTHER_CODE}`);
    const malformed = await postForm({ step: 'check' }, '/refund/nope');
    expect(unknown.status).toBe(404);
    expect(malformed.body).toBe(unknown.body);
  });

  it('refuses a form body over 4 KiB and any other body type with a page, storing nothing', async () => {
    const big = await postForm({
      step: 'confirm',
      address: ADDRESS,
      confirmed: 'yes',
      pad: 'x'.repeat(4 * 1024),
    });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(big.body).toContain('The form could not be read');
    expect(big.body).toContain(`href="/refund/${CODE}?lang=en"`);

    const json = await fetch(`${base}/refund/${CODE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ step: 'confirm', address: ADDRESS, confirmed: 'yes' }),
      redirect: 'manual',
    });
    expect(json.status).toBe(415);
    expect(claims.confirmations).toEqual([]);

    // The limit and parser are the claim page's own: the rest of the server is untouched.
    const elsewhere = await fetch(`${base}/elsewhere`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `pad=${'x'.repeat(8 * 1024)}`,
    });
    expect(elsewhere.status).toBe(200);
  });

  it('leaves other failures to the server error handler', async () => {
    claims.failing = true;
    const failed = await get(`/refund/${CODE}`);
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body)).toMatchObject({ status: 'error', error: { code: 'internal_error' } });
  });

  it('an unknown step just shows the page again', async () => {
    const posted = await postForm({ step: 'pay-me' });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(`/refund/${CODE}?lang=en`);
  });
});
