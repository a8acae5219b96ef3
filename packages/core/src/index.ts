/**
 * @cryptocheckout/core — the one place where every wire shape of the Crypto Checkout service is
 * defined, and the logic the server, the pay page and the merchant plugins share. This entry runs
 * anywhere (no DOM, no Node built-ins); the DOM helpers are `@cryptocheckout/core/browser` and the
 * webhook signature is `@cryptocheckout/core/node`.
 */
export * from './client/index.js';
export {
  buildEmbedUrl,
  EMBED_MESSAGE_SOURCE,
  EMBED_PROTOCOL_VERSION,
  type EmbedMessage,
  type EmbedMessageType,
  type EmbedParams,
  isEmbedMessage,
  isHttpOrigin,
  readEmbedParams,
} from './embed-protocol.js';
export {
  ApiError,
  CryptoCheckoutError,
  MoneyError,
  type MoneyErrorCode,
  NetworkError,
  TimeoutError,
  UnexpectedResponseError,
} from './errors.js';
export * from './money/index.js';
export * from './reconcile/index.js';
export * from './schemas/index.js';
export * from './wallets/index.js';
