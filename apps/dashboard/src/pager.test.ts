import { describe, expect, it } from 'vitest';
import { CursorPager } from './pager.js';

describe('CursorPager', () => {
  it('walks forward on next_cursor and back through the cursors it kept', () => {
    const pager = new CursorPager();
    expect([pager.cursor, pager.pageNumber, pager.onFirstPage]).toEqual([null, 1, true]);
    pager.forward('c2');
    pager.forward('c3');
    expect([pager.cursor, pager.pageNumber, pager.onFirstPage]).toEqual(['c3', 3, false]);
    expect(pager.back()).toBe(true);
    expect(pager.cursor).toBe('c2');
    expect(pager.back()).toBe(true);
    expect([pager.cursor, pager.pageNumber]).toEqual([null, 1]);
    expect(pager.back()).toBe(false);
    pager.forward('c2');
    pager.reset();
    expect([pager.cursor, pager.pageNumber]).toEqual([null, 1]);
  });
});
