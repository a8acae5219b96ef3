/**
 * Error hierarchy shared by every Crypto Checkout package. Each error carries a stable `code`
 * so callers branch on codes, never on message text.
 */
export class CryptoCheckoutError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The service answered with its error envelope (`{"status":"error","error":{...}}`). */
export class ApiError extends CryptoCheckoutError {
  /** HTTP status of the response. */
  readonly httpStatus: number;
  /** Dotted path of the offending input, when the service named one. */
  readonly field: string | undefined;

  constructor(code: string, message: string, httpStatus: number, field?: string) {
    super(code, message);
    this.httpStatus = httpStatus;
    this.field = field;
  }
}

/** The request never got an answer: connection refused, DNS failure, aborted. */
export class NetworkError extends CryptoCheckoutError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('network_error', message, options);
  }
}

/** The per-call timeout elapsed before the service answered. */
export class TimeoutError extends CryptoCheckoutError {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('timeout', `The Crypto Checkout service did not answer within ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/** The service answered with something that is not the documented shape. */
export class UnexpectedResponseError extends CryptoCheckoutError {
  readonly httpStatus: number;

  constructor(message: string, httpStatus: number, options?: { cause?: unknown }) {
    super('unexpected_response', message, options);
    this.httpStatus = httpStatus;
  }
}

/** Error codes of {@link MoneyError}. */
export type MoneyErrorCode =
  | 'invalid_amount'
  | 'negative'
  | 'too_precise'
  | 'too_large'
  | 'unsupported_currency';

/** An amount or currency that cannot be used as money. */
export class MoneyError extends CryptoCheckoutError {
  declare readonly code: MoneyErrorCode;

  // biome-ignore lint/complexity/noUselessConstructor: narrows `code` to the money error codes.
  constructor(code: MoneyErrorCode, message: string) {
    super(code, message);
  }
}
