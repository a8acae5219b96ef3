// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { csvFileName, saveBlob } from './csv.js';
import { EMPTY_FILTER } from './router.js';

const NOW = new Date('2025-02-03T10:15:30.456Z');

describe('csvFileName', () => {
  it('names the export by its UTC time and its filter', () => {
    expect(csvFileName(EMPTY_FILTER, NOW)).toBe('transactions-20250203-101530.csv');
    expect(csvFileName({ q: '', status: 'settled', from: '2025-01-01', to: '2025-01-31' }, NOW)).toBe(
      'transactions-20250203-101530-settled-from-2025-01-01-to-2025-01-31.csv',
    );
  });

  it('keeps only file-name-safe characters of a search', () => {
    expect(csvFileName({ ...EMPTY_FILTER, q: ' ../ORD 1/2:"x" ' }, NOW)).toBe(
      'transactions-20250203-101530-ORD_1_2_x.csv',
    );
    expect(csvFileName({ ...EMPTY_FILTER, q: 'a'.repeat(100) }, NOW)).toBe(
      `transactions-20250203-101530-${'a'.repeat(40)}.csv`,
    );
    expect(csvFileName({ ...EMPTY_FILTER, q: '///' }, NOW)).toBe('transactions-20250203-101530.csv');
  });
});

describe('saveBlob', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('clicks a temporary download link to an object URL and releases the URL afterwards', async () => {
    const clicked: { href: string; download: string; connected: boolean }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.download, connected: this.isConnected });
    });
    const revoke = vi.spyOn(URL, 'revokeObjectURL');
    const blob = new Blob(['transaction_code\n'], { type: 'text/csv' });
    saveBlob(document, window, blob, 'transactions-x.csv');
    expect(clicked).toHaveLength(1);
    expect(clicked[0]!.href).toMatch(/^blob:/);
    expect(clicked[0]!.download).toBe('transactions-x.csv');
    expect(clicked[0]!.connected).toBe(true);
    expect(document.querySelector('a[download]')).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(revoke).toHaveBeenCalledWith(clicked[0]!.href);
  });
});
