import { describe, expect, it } from 'vitest';
import * as browser from './browser/index.js';
import * as core from './index.js';
import * as node from './node/index.js';

// The curated public API of each entry point. A name appearing here is a promise to every package
// and plugin that imports it; adding one is a decision, and an internal helper leaking out, or a
// name leaving an entry, fails this test.
const PUBLIC_API = [
  'ApiError',
  'CryptoCheckoutError',
  'DEFAULT_SETTLEMENT',
  'EMBED_MESSAGE_SOURCE',
  'EMBED_PROTOCOL_VERSION',
  'ERROR_CODES',
  'FIAT_CURRENCIES',
  'FIAT_CURRENCY_CODES',
  'FINAL_STATUSES',
  'MoneyError',
  'NETWORKS',
  'NETWORK_IDS',
  'NetworkError',
  'ORDER_STATES',
  'RAIL_KINDS',
  'RECOMMENDED_ASSET',
  'REFUND_PAID_EVENT',
  'REFUND_STATUSES',
  'SANDBOX_PAYMENT_SIZES',
  'SETTLED_EVENT',
  'TRANSACTION_STATUSES',
  'TimeoutError',
  'UnexpectedResponseError',
  'addDecimals',
  'buildEmbedUrl',
  'checkoutCreatedSchema',
  'checkoutRequestSchema',
  'compareDecimals',
  'createCheckoutClient',
  'cryptoPaymentLinkSchema',
  'customerSchema',
  'decideReconciliation',
  'decimalPlaces',
  'decimalInputSchema',
  'decimalStringSchema',
  'describeJsonType',
  'decimalToScaled',
  'divideDecimals',
  'errorEnvelopeSchema',
  'fiatMinorUnits',
  'fiatPaymentLinkSchema',
  'formatMinorUnits',
  'getAsset',
  'getNetwork',
  'httpUrlSchema',
  'isAbsoluteHttpUrl',
  'isAssetOnNetwork',
  'isEmbedMessage',
  'isHttpOrigin',
  'isSupportedFiatCurrency',
  'isoDateTimeSchema',
  'jsonSchemas',
  'multiplyDecimals',
  'normalizeFiatAmount',
  'parseDecimal',
  'paymentLinkQuerySchema',
  'paymentLinkSchema',
  'paymentOptionSchema',
  'paymentOptionsQuerySchema',
  'paymentOptionsSchema',
  'lockedRateSchema',
  'paymentSchema',
  'readEmbedParams',
  'refundCreateRequestSchema',
  'refundCreatedSchema',
  'refundIdSchema',
  'refundPaidWebhookSchema',
  'refundQuerySchema',
  'refundSchema',
  'refundsOfTransactionQuerySchema',
  'refundsOfTransactionSchema',
  'sandboxPaymentRequestSchema',
  'sandboxRefundPaymentRequestSchema',
  'scaledToDecimal',
  'settledWebhookSchema',
  'subtractDecimalsAtLeastZero',
  'successEnvelopeSchema',
  'toMinorUnits',
  'transactionCodeSchema',
  'transactionQuerySchema',
  'transactionSchema',
  'usdAmountSchema',
  'validateWalletAddress',
];

/** `@cryptocheckout/core/browser`: the helpers that need a DOM. */
const BROWSER_API = [
  'STATUS_WIDGET_SELECTOR',
  'createStatusPoller',
  'mountStatusWidget',
  'mountStatusWidgets',
  'openCheckoutModal',
  'postToParent',
];

/** `@cryptocheckout/core/node`: the helpers that need Node built-ins. */
const NODE_API = ['SIGNATURE_HEADER', 'signWebhook', 'verifyWebhookSignature'];

describe('@cryptocheckout/core public API', () => {
  it('exports exactly the curated names', () => {
    expect(Object.keys(core).sort()).toEqual([...PUBLIC_API].sort());
  });
  it('exports exactly the curated names from ./browser', () => {
    expect(Object.keys(browser).sort()).toEqual([...BROWSER_API].sort());
  });
  it('exports exactly the curated names from ./node', () => {
    expect(Object.keys(node).sort()).toEqual([...NODE_API].sort());
  });
  it('keeps the root free of DOM and Node helpers', () => {
    for (const name of [...BROWSER_API, ...NODE_API]) expect(name in core).toBe(false);
  });
  it('keeps codec internals private', () => {
    for (const internal of [
      'toChecksumAddress',
      'keccak_256',
      'base58check',
      'describeIssue',
      'expandExponent',
      'parseHttpUrl',
      'readStatusWidgetConfig',
    ]) {
      expect(internal in core).toBe(false);
      expect(internal in browser).toBe(false);
    }
  });
});
