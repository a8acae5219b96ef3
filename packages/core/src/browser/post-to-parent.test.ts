import { describe, expect, it, vi } from 'vitest';
import type { EmbedMessage } from '../embed-protocol.js';
import { postToParent } from './post-to-parent.js';

const settled: EmbedMessage = {
  source: 'cryptocheckout',
  version: 1,
  type: 'settled',
  transaction_code: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
  status: 'settled',
};

describe('postToParent', () => {
  it('posts the message to the given origin only', () => {
    const target = { postMessage: vi.fn() };
    expect(postToParent(settled, 'https://shop.example', target)).toBe(true);
    expect(target.postMessage).toHaveBeenCalledExactlyOnceWith(settled, 'https://shop.example');
  });

  it('refuses a wildcard or otherwise invalid origin', () => {
    const target = { postMessage: vi.fn() };
    expect(() => postToParent(settled, '*', target)).toThrow(TypeError);
    expect(() => postToParent(settled, 'https://shop.example/', target)).toThrow(TypeError);
    expect(target.postMessage).not.toHaveBeenCalled();
  });

  it('refuses a message that breaks the protocol', () => {
    const target = { postMessage: vi.fn() };
    const resizeWithoutHeight = { ...settled, type: 'resize' } as EmbedMessage;
    expect(() => postToParent(resizeWithoutHeight, 'https://shop.example', target)).toThrow(TypeError);
    expect(target.postMessage).not.toHaveBeenCalled();
  });

  it('returns false when there is no parent frame to post to', () => {
    // Tests run without a window, as a top-level page without a parent would.
    expect(postToParent(settled, 'https://shop.example')).toBe(false);
  });
});
