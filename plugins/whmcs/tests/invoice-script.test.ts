import { describeWithStatusFixtures } from '@cryptocheckout/php-client/test-support';
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initInvoicePage } from '../assets/src/invoice.js';
import { buildAssets } from '../scripts/build-assets.mjs';

// The invoice page script in happy-dom, on the markup the module's _link renders: the pay form and
// the status box, which (with the status endpoint's answers) comes from the PHP kernel.

const CALLBACK_URL = 'https://billing.example.com/modules/gateways/callback/cryptocheckout.php';
const STATUS_URL = `${CALLBACK_URL}?action=status&invoice=7&token=t`;
const CHECKOUT_URL = 'https://pay.example.com/pay/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';

function json(body: unknown, status = 200): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

describeWithStatusFixtures(
  'invoice page script',
  { statusUrl: STATUS_URL, checkoutUrl: CHECKOUT_URL },
  (fixtures) => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    function page(mode: 'redirect' | 'modal', box: string) {
      const window = new Window({
        url: 'https://billing.example.com/viewinvoice.php?id=7',
        settings: { navigation: { disableChildFrameNavigation: true } },
      });
      window.document.body.innerHTML = `
        <div class="cryptocheckout" data-cryptocheckout data-mode="${mode}">
          <form method="post" action="${CALLBACK_URL}?action=pay" data-cryptocheckout-pay>
            <input type="hidden" name="invoiceid" value="7"><input type="hidden" name="token" value="abc">
            <button type="submit" class="btn btn-success">Pay Now</button>
          </form>
          ${box}
        </div>`;
      const reload = vi.spyOn(window.location, 'reload').mockImplementation(() => undefined);
      const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => undefined);
      return { window, doc: window.document as unknown as Document, reload, assign };
    }

    const init = (window: Window, fetch: typeof globalThis.fetch) =>
      initInvoicePage({
        document: window.document as unknown as Document,
        window: window as unknown as globalThis.Window,
        fetch,
        intervalMs: 10,
      });

    const submit = (window: Window) =>
      (window.document as unknown as Document)
        .querySelector('form')
        ?.dispatchEvent(new window.Event('submit', { cancelable: true }) as unknown as Event);

    it('leaves the redirect-mode form alone and polls nothing while no checkout can be paid', () => {
      const { window } = page('redirect', fixtures.awaiting_payment_closed.box);
      const fetch = vi.fn<typeof globalThis.fetch>();
      const widgets = init(window, fetch);
      expect(widgets).toHaveLength(1);
      expect(widgets[0]?.polling).toBe(false);
      expect(fetch).not.toHaveBeenCalled();
    });

    it('opens the checkout over the invoice in modal mode, then follows the status to paid', async () => {
      const { window, doc, reload } = page('modal', fixtures.awaiting_payment_closed.box);
      let status = fixtures.awaiting_payment.answer;
      const fetch = vi.fn<typeof globalThis.fetch>(async (url) =>
        String(url).endsWith('action=pay')
          ? json({ status: 'success', data: { checkout_url: CHECKOUT_URL, mode: 'modal' } })
          : json(status),
      );
      init(window, fetch);
      submit(window);
      await vi.waitFor(() => expect(doc.querySelector('[role="dialog"] iframe')).not.toBeNull());
      const [payUrl, payInit] = fetch.mock.calls[0] as [string, RequestInit];
      expect(payUrl).toBe(`${CALLBACK_URL}?action=pay`);
      expect(payInit.method).toBe('POST');
      expect(String(payInit.body)).toBe('invoiceid=7&token=abc');
      expect((payInit.headers as Record<string, string>).Accept).toBe('application/json');
      const src = doc.querySelector('[role="dialog"] iframe')?.getAttribute('src') ?? '';
      expect(src).toContain('embed=1');
      expect(src).toContain(`parent_origin=${encodeURIComponent('https://billing.example.com')}`);

      await vi.waitFor(() => expect(fetch.mock.calls.length).toBeGreaterThan(2));
      expect(reload).not.toHaveBeenCalled();
      status = fixtures.paid.answer;
      await vi.waitFor(() => expect(reload).toHaveBeenCalled());
      expect(fetch.mock.calls[1]?.[0]).toBe(STATUS_URL);
      const box = doc.querySelector('[data-cryptocheckout-status]');
      expect(box?.querySelector('.cryptocheckout-status__message')?.textContent).toBe(
        'Payment received. Thank you!',
      );
      expect(box?.getAttribute('data-state')).toBe('paid');
      expect(doc.querySelector('[role="dialog"]')).toBeNull();
    });

    it('opens the open checkout over the invoice from the status box\'s "Pay now" in modal mode', () => {
      const { window, doc } = page('modal', fixtures.awaiting_payment.box);
      const widgets = init(
        window,
        vi.fn<typeof globalThis.fetch>(async () => json(fixtures.paid.answer)),
      );
      doc.querySelector<HTMLElement>('.cryptocheckout-status__pay')?.click();
      expect(doc.querySelector('[role="dialog"] iframe')?.getAttribute('src')).toContain(
        `${CHECKOUT_URL}?embed=1`,
      );
      widgets[0]?.stop();
    });

    it("shows the endpoint's refusal on the invoice", async () => {
      const { window, doc } = page('modal', fixtures.awaiting_payment_closed.box);
      const fetch = vi.fn<typeof globalThis.fetch>(async () =>
        json(
          {
            status: 'error',
            error: { code: 'conflict', message: 'Invoice #7 is Paid; there is nothing to pay.' },
          },
          409,
        ),
      );
      init(window, fetch);
      submit(window);
      await vi.waitFor(() =>
        expect(doc.querySelector('[role="alert"]')?.textContent).toBe(
          'Invoice #7 is Paid; there is nothing to pay.',
        ),
      );
      expect(doc.querySelector('button')?.disabled).toBe(false);
      expect(doc.querySelector('[role="dialog"]')).toBeNull();
    });

    it('goes to the invoice when the pay endpoint finds it paid', async () => {
      const { window, assign } = page('modal', fixtures.awaiting_payment_closed.box);
      const invoiceUrl = 'https://billing.example.com/viewinvoice.php?id=7&paid=1';
      init(
        window,
        vi.fn<typeof globalThis.fetch>(async () =>
          json({ status: 'success', data: { paid: true, invoice_url: invoiceUrl } }),
        ),
      );
      submit(window);
      await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(invoiceUrl));
    });

    it('resumes following a checkout that is already open when the buyer comes back', async () => {
      const { window, doc, reload } = page('redirect', fixtures.awaiting_payment.box);
      const fetch = vi.fn<typeof globalThis.fetch>(async () => json(fixtures.cancelled.answer));
      const widgets = init(window, fetch);
      expect(widgets[0]?.polling).toBe(true);
      await vi.waitFor(() =>
        expect(doc.querySelector('[data-cryptocheckout-status]')?.getAttribute('data-state')).toBe(
          'cancelled',
        ),
      );
      expect(widgets[0]?.polling).toBe(false);
      expect(reload).not.toHaveBeenCalled();
    });

    it('does not reload a page that was already showing the paid invoice', async () => {
      const { window, reload } = page('redirect', fixtures.paid.box);
      const widgets = init(
        window,
        vi.fn<typeof globalThis.fetch>(async () => json(fixtures.paid.answer)),
      );
      await widgets[0]?.refresh();
      expect(reload).not.toHaveBeenCalled();
    });
  },
);

describe('invoice page bundle', () => {
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
