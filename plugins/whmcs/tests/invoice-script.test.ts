import { Window } from 'happy-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type InvoiceStatus, initInvoicePage } from '../assets/src/invoice.js';
import { buildAssets } from '../scripts/build-assets.mjs';

// The invoice page script in happy-dom, on the markup the module's _link renders.

const STATUS_URL =
  'https://billing.example.com/modules/gateways/callback/cryptocheckout.php?action=status&invoice=7&token=t';

function page(mode: 'redirect' | 'embedded', state = ''): Window {
  const window = new Window({ url: 'https://billing.example.com/viewinvoice.php?id=7' });
  window.document.body.innerHTML = `
    <div class="cryptocheckout" data-cryptocheckout>
      <form method="post" action="https://billing.example.com/modules/gateways/callback/cryptocheckout.php?action=pay"
            data-cryptocheckout-pay data-mode="${mode}">
        <input type="hidden" name="invoiceid" value="7"><input type="hidden" name="token" value="abc">
        <button type="submit" class="btn btn-success">Pay Now</button>
      </form>
      <p data-cryptocheckout-status data-status-url="${STATUS_URL.replace(/&/g, '&amp;')}" data-state="${state}" aria-live="polite"></p>
    </div>`;
  return window;
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

const waiting: InvoiceStatus = {
  invoice_status: 'Unpaid',
  state: 'awaiting_payment',
  message: 'Waiting',
  terminal: false,
};
const paid: InvoiceStatus = {
  invoice_status: 'Paid',
  state: 'paid',
  message: 'Payment received. Thank you!',
  terminal: true,
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('invoice page script', () => {
  it('leaves the redirect-mode form alone and polls nothing when no checkout is open', () => {
    const window = page('redirect');
    const fetch = vi.fn<typeof globalThis.fetch>();
    const pollers = initInvoicePage({
      document: window.document as unknown as Document,
      window: window as unknown as globalThis.Window,
      fetch,
    });
    expect(pollers).toEqual([]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('opens the checkout over the invoice in embedded mode, then follows the status to paid', async () => {
    const window = page('embedded');
    const reload = vi.spyOn(window.location, 'reload').mockImplementation(() => undefined);
    const answers = [
      json({
        checkout_url: 'https://pay.example.com/pay/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
        mode: 'embedded',
      }),
      json(waiting),
      json(paid),
    ];
    const fetch = vi.fn<typeof globalThis.fetch>(async () => answers.shift() as Response);
    const doc = window.document as unknown as Document;
    initInvoicePage({ document: doc, window: window as unknown as globalThis.Window, fetch, intervalMs: 10 });

    doc
      .querySelector('form')
      ?.dispatchEvent(new window.Event('submit', { cancelable: true }) as unknown as Event);
    await vi.waitFor(() => expect(doc.querySelector('[role="dialog"] iframe')).not.toBeNull());
    const [payUrl, payInit] = fetch.mock.calls[0] as [string, RequestInit];
    expect(payUrl).toContain('action=pay');
    expect(payInit.method).toBe('POST');
    expect(String(payInit.body)).toBe('invoiceid=7&token=abc');
    expect((payInit.headers as Record<string, string>).Accept).toBe('application/json');
    const src = doc.querySelector('[role="dialog"] iframe')?.getAttribute('src') ?? '';
    expect(src).toContain('embed=1');
    expect(src).toContain(`parent_origin=${encodeURIComponent('https://billing.example.com')}`);

    await vi.waitFor(() => expect(reload).toHaveBeenCalled());
    expect(fetch.mock.calls[1]?.[0]).toBe(STATUS_URL);
    const line = doc.querySelector('[data-cryptocheckout-status]');
    expect(line?.textContent).toBe('Payment received. Thank you!');
    expect(line?.getAttribute('data-state')).toBe('paid');
  });

  it("shows the endpoint's refusal on the invoice", async () => {
    const window = page('embedded');
    const fetch = vi.fn<typeof globalThis.fetch>(async () =>
      json({ error: 'Invoice #7 is Paid; there is nothing to pay.' }, 409),
    );
    const doc = window.document as unknown as Document;
    initInvoicePage({ document: doc, window: window as unknown as globalThis.Window, fetch });
    doc
      .querySelector('form')
      ?.dispatchEvent(new window.Event('submit', { cancelable: true }) as unknown as Event);
    await vi.waitFor(() =>
      expect(doc.querySelector('[data-cryptocheckout-status]')?.textContent).toBe(
        'Invoice #7 is Paid; there is nothing to pay.',
      ),
    );
    expect(doc.querySelector('button')?.disabled).toBe(false);
    expect(doc.querySelector('[role="dialog"]')).toBeNull();
  });

  it('resumes polling for a checkout that is already open when the buyer comes back', async () => {
    const window = page('redirect', 'awaiting_payment');
    const fetch = vi.fn<typeof globalThis.fetch>(async () =>
      json({ ...waiting, state: 'cancelled', terminal: true, message: 'expired' }),
    );
    const doc = window.document as unknown as Document;
    const pollers = initInvoicePage({ document: doc, window: window as unknown as globalThis.Window, fetch });
    expect(pollers).toHaveLength(1);
    await vi.waitFor(() =>
      expect(doc.querySelector('[data-cryptocheckout-status]')?.textContent).toBe('expired'),
    );
    expect(pollers[0]?.running).toBe(false);
  });

  it('bundles small', async () => {
    const { mkdtempSync, rmSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const outdir = mkdtempSync(join(tmpdir(), 'whmcs-assets-'));
    try {
      const sizes = await buildAssets({ outdir });
      expect(sizes['invoice.js']?.gzipBytes).toBeLessThan(8 * 1024);
      const bundle = readFileSync(join(outdir, 'invoice.js'));
      expect(bundle.toString()).not.toMatch(/\bexport\b/);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
