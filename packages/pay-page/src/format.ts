import { parseDecimal, subtractDecimalsAtLeastZero, type TransactionStatus } from '@cryptocheckout/core';
import type { Messages } from './i18n.js';

/**
 * Formatting shared by the server-rendered page and the browser script, so both show the same
 * text for the same value.
 */

/** Fills `{name}` placeholders; unknown placeholders are left as they are. */
export function formatText(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
    Object.hasOwn(values, name) ? values[name]! : placeholder,
  );
}

/**
 * A fiat amount in the page language ("12,50 €" in German). Falls back to "12.5 XYZ" when the
 * runtime does not know the currency code.
 */
export function formatFiat(amount: number, currency: string, lang: string): string {
  try {
    return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A USD amount in the page language, always with cents. */
export function formatUsd(amount: number, lang: string): string {
  return formatFiat(amount, 'USD', lang);
}

/** USD still to pay, never below zero, subtracted exactly with the core's decimal arithmetic. */
export function usdStillDue(amountInUsd: number, receivedUsd: number): number {
  return Number(subtractDecimalsAtLeastZero(parseDecimal(amountInUsd), parseDecimal(receivedUsd)));
}

/** Remaining time as "m:ss", or "h:mm:ss" from one hour up; negative spans read as "0:00". */
export function formatCountdown(milliseconds: number): string {
  const totalSeconds = Math.max(0, Math.ceil(milliseconds / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const ss = String(seconds).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${ss}` : `${minutes}:${ss}`;
}

const UNSAFE_URI_SCHEMES: readonly string[] = ['javascript', 'data', 'vbscript', 'file', 'blob', 'about'];

/**
 * True for a wallet payment URI that is safe as a link target: a plain scheme
 * ("ethereum:", "bitcoin:", "solana:", …) that cannot run script or read local data.
 */
export function isSafeWalletUri(uri: string): boolean {
  const match = /^([a-z][a-z0-9+.-]*):\S+$/i.exec(uri);
  return match !== null && !UNSAFE_URI_SCHEMES.includes(match[1]!.toLowerCase());
}

/** True for an absolute http(s) URL, the only kind the page navigates to. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Headline for a transaction status. */
export function statusTitle(status: TransactionStatus, t: Messages): string {
  switch (status) {
    case 'pending':
      return t.statusPending;
    case 'processing':
      return t.statusProcessing;
    case 'underpaid':
      return t.statusUnderpaid;
    case 'settled':
      return t.statusSettled;
    case 'expired':
      return t.statusExpired;
  }
}
