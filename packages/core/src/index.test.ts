import { describe, expect, it } from 'vitest';
import * as core from './index.js';

// The curated public API. A name appearing here is a promise to every package and plugin that
// imports it; adding one is a decision, and an internal helper leaking out fails this test.
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
  'createStatusPoller',
  'cryptoPaymentLinkSchema',
  'customerSchema',
  'decideReconciliation',
  'decimalPlaces',
  'decimalStringSchema',
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
  'openCheckoutModal',
  'parseDecimal',
  'paymentLinkQuerySchema',
  'paymentLinkSchema',
  'paymentOptionSchema',
  'paymentOptionsQuerySchema',
  'paymentOptionsSchema',
  'paymentSchema',
  'postToParent',
  'readEmbedParams',
  'sandboxPaymentRequestSchema',
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

describe('@cryptocheckout/core public API', () => {
  it('exports exactly the curated names', () => {
    expect(Object.keys(core).sort()).toEqual([...PUBLIC_API].sort());
  });
  it('keeps codec internals private', () => {
    for (const internal of [
      'toChecksumAddress',
      'keccak_256',
      'base58check',
      'describeIssue',
      'expandExponent',
    ]) {
      expect(internal in core).toBe(false);
    }
  });
});
