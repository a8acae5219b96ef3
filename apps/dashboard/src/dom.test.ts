import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { elementBuilder, keepFocusAndScroll, replaceChildren } from './dom.js';

function page() {
  const window = new Window({ url: 'http://dashboard.test/dashboard/' });
  const doc = window.document as unknown as Document;
  const win = window as unknown as globalThis.Window;
  return { doc, win, h: elementBuilder(doc) };
}

describe('keepFocusAndScroll', () => {
  it('gives focus back to an element the update moved (an open form kept across a redraw)', () => {
    const { doc, win, h } = page();
    const input = h('input', { id: 'note' });
    const table = h('div', {}, h('p', {}, 'old'), input);
    doc.body.appendChild(table);
    input.focus();
    input.value = 'typed';
    keepFocusAndScroll(doc, win, () => replaceChildren(table, h('p', {}, 'new'), input));
    expect(doc.activeElement).toBe(input);
    expect(input.value).toBe('typed');
  });

  it('focuses the element with the same focus key when the focused one was replaced', () => {
    const { doc, win, h } = page();
    const list = h('div', {}, h('button', { 'data-focus-key': 'resend:1' }, 'Resend'));
    doc.body.appendChild(list);
    list.querySelector('button')!.focus();
    const replacement = h('button', { 'data-focus-key': 'resend:1' }, 'Resend');
    keepFocusAndScroll(doc, win, () => replaceChildren(list, replacement));
    expect(doc.activeElement).toBe(replacement);
  });

  it('leaves focus an update gave while nothing was focused', () => {
    const { doc, win, h } = page();
    const field = h('input');
    doc.body.appendChild(field);
    keepFocusAndScroll(doc, win, () => field.focus());
    expect(doc.activeElement).toBe(field);
  });
});
