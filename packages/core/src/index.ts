/**
 * @cryptocheckout/core — the one place where every wire shape of the Crypto Checkout service is
 * defined, and the logic the server, the pay page and the merchant plugins share.
 */
export * from './browser/index.js';
export * from './client/index.js';
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
