import { type EmbedMessage, isEmbedMessage, isHttpOrigin } from '../embed-protocol.js';

/**
 * Posts a message from the pay page to the embedding page, addressed to `parentOrigin` only (never
 * `*`), so no other origin that happens to frame the page can read it. `target` defaults to
 * `window.parent`. Returns false when there is no parent frame to post to. Throws a TypeError on an
 * invalid origin or message.
 */
export function postToParent(
  message: EmbedMessage,
  parentOrigin: string,
  target?: Pick<Window, 'postMessage'>,
): boolean {
  if (!isHttpOrigin(parentOrigin)) throw new TypeError('parentOrigin must be an http(s) origin');
  if (!isEmbedMessage(message)) throw new TypeError('message is not a valid embed message');
  const recipient = target ?? parentFrame();
  if (!recipient) return false;
  recipient.postMessage(message, parentOrigin);
  return true;
}

function parentFrame(): Window | null {
  if (typeof window === 'undefined' || window.parent === window) return null;
  return window.parent;
}
