import { formatUtcDate } from './format.js';
import type { TransactionFilter } from './router.js';

/** Naming and saving the transactions CSV export. */

/**
 * File name of an export: "transactions-<UTC date and time>" then the filter's parts, so two
 * exports never overwrite each other and the name says what is inside:
 * `transactions-20250203-101530-settled-from-2025-01-01.csv`. A search text keeps only letters,
 * digits, `-` and `_` (at most 40), because it ends up in a file name.
 */
export function csvFileName(filter: TransactionFilter, now: Date): string {
  const time = now.toISOString().slice(11, 19).replace(/:/g, '');
  const parts = ['transactions', `${formatUtcDate(now).replace(/-/g, '')}-${time}`];
  if (filter.status) parts.push(filter.status);
  if (filter.from) parts.push(`from-${filter.from}`);
  if (filter.to) parts.push(`to-${filter.to}`);
  const search = filter.q
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  if (search) parts.push(search);
  return `${parts.join('-')}.csv`;
}

/**
 * Hands `blob` to the browser as a download named `fileName`: an object URL on a temporary
 * `<a download>`. The URL is released on the next turn, once the click has been taken.
 */
export function saveBlob(
  doc: Document,
  win: Pick<Window, 'setTimeout'> & Pick<typeof globalThis, 'URL'>,
  blob: Blob,
  fileName: string,
): void {
  const url = win.URL.createObjectURL(blob);
  const link = doc.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  doc.body.appendChild(link);
  link.click();
  link.remove();
  win.setTimeout(() => win.URL.revokeObjectURL(url), 0);
}
