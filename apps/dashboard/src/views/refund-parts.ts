import type { Refund, RefundStatus } from '@cryptocheckout/core';
import type { ElementBuilder } from '../dom.js';
import { formatAssetAmount, formatFiat, httpUrlOrNull } from '../format.js';
import { mono } from './parts.js';

/** Pieces the refund screens share: status words, amounts, addresses, the chain reference, copying. */

/** A refund status in words. */
export const REFUND_STATUS_LABELS: Readonly<Record<RefundStatus, string>> = {
  awaiting_address: 'Awaiting address',
  awaiting_payment: 'Awaiting payment',
  paid: 'Paid',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

/** Statuses in which a refund can still be cancelled (docs/refunds.md). */
export const CANCELLABLE_REFUND_STATUSES: readonly RefundStatus[] = ['awaiting_address', 'awaiting_payment'];

/** A refund status as a badge: the word first, the colour repeats it. */
export function refundStatusBadge(h: ElementBuilder, status: RefundStatus): HTMLElement {
  return h('span', { class: `badge badge--refund-${status}` }, REFUND_STATUS_LABELS[status] ?? status);
}

/** An address shortened for a table, its ends kept ("0x3c49…3359"); short text unchanged. */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** "12.5 USDC", with the fiat amount asked when the refund was asked in fiat: "12.5 USDC (12.50 EUR)". */
export function refundAmountText(
  refund: Pick<Refund, 'amount' | 'asset' | 'fiat_amount' | 'fiat_currency'>,
): string {
  const asset = formatAssetAmount(refund.amount, refund.asset);
  return refund.fiat_amount === null
    ? asset
    : `${asset} (${formatFiat(refund.fiat_amount, refund.fiat_currency)})`;
}

/** The chain transaction that paid a refund: linked when the server knows a page of it, else its id; "—" before. */
export function chainReference(h: ElementBuilder, refund: Pick<Refund, 'tx_id' | 'tx_url'>): Node | string {
  const url = httpUrlOrNull(refund.tx_url);
  if (refund.tx_id === null) {
    return url ? h('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, url) : '—';
  }
  const text = mono(h, refund.tx_id);
  return url
    ? h(
        'a',
        {
          href: url,
          rel: 'noopener noreferrer',
          target: '_blank',
          'aria-label': `${refund.tx_id} on a block explorer`,
        },
        text,
      )
    : text;
}

const UNSAFE_URI_SCHEMES: readonly string[] = ['javascript', 'data', 'vbscript', 'file', 'blob', 'about'];

/**
 * True for a wallet payment URI that is safe as a link target: a plain scheme ("ethereum:",
 * "solana:", …) that cannot run script or read local data. The same rule as the pay page's.
 */
export function isSafeWalletUri(uri: string): boolean {
  const match = /^([a-z][a-z0-9+.-]*):\S+$/i.exec(uri);
  return match !== null && !UNSAFE_URI_SCHEMES.includes(match[1]!.toLowerCase());
}

/**
 * A "Copy" button for the text of `target`, with a status beside it ("Copied"). Without clipboard
 * access it selects the text and asks the browser to copy; failing that it says to copy by hand.
 */
export function copyButton(
  h: ElementBuilder,
  win: Window,
  target: HTMLElement,
  label: string,
  focusKey?: string,
): HTMLElement {
  const status = h('span', { class: 'copy-status', role: 'status' });
  const button = h('button', { type: 'button', class: 'btn btn--small', 'data-focus-key': focusKey }, label);
  button.addEventListener('click', async () => {
    const copied = await copyText(win, target);
    status.textContent = copied ? 'Copied' : 'Could not copy: select the text and copy it.';
  });
  return h('span', { class: 'copy' }, button, status);
}

async function copyText(win: Window, target: HTMLElement): Promise<boolean> {
  const text = target.textContent ?? '';
  try {
    await win.navigator.clipboard.writeText(text);
    return true;
  } catch {
    const doc = target.ownerDocument;
    const selection = win.getSelection();
    if (!selection) return false;
    const range = doc.createRange();
    range.selectNodeContents(target);
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return doc.execCommand('copy');
    } catch {
      return false;
    }
  }
}
