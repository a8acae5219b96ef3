import { z } from 'zod';
import { MoneyError } from '../errors.js';
import { isSupportedFiatCurrency } from '../money/currencies.js';
import { toMinorUnits } from '../money/fiat.js';
import { getNetwork, isAssetOnNetwork, NETWORK_IDS, validateWalletAddress } from '../wallets/index.js';
import {
  describeJsonType,
  httpUrlSchema,
  isoDateTimeSchema,
  printableText,
  requiredString,
  transactionCodeSchema,
  usdAmountSchema,
} from './common.js';
import { paymentOptionSchema } from './payment-options.js';

/** The merchant's destination wallet, sent with every checkout (docs/api.md, `POST /checkout`). */
export const customerSchema = z.object({
  wallet_address: requiredString('customer.wallet_address'),
  crypto_currency: requiredString('customer.crypto_currency', ', e.g. "USDC"'),
  crypto_currency_network: requiredString('customer.crypto_currency_network', ', e.g. "POLYGON"'),
});
export type Customer = z.infer<typeof customerSchema>;

/** A fiat amount as the wire allows it: a JSON number or a numeric string. */
export const fiatAmountInputSchema = z.union([z.number(), z.string()], {
  error: (issue) =>
    issue.input === undefined
      ? 'fiat_amount is required, a number or a numeric string like 12.50'
      : `fiat_amount must be a number or a numeric string like 12.50, got ${describeJsonType(issue.input)}`,
});

/**
 * `POST /checkout` body (docs/api.md): every format rule is checked here, including the
 * amount's precision for its currency and the wallet address for its network.
 */
export const checkoutRequestSchema = z
  .object({
    fiat_amount: fiatAmountInputSchema,
    fiat_currency: requiredString('fiat_currency', ', an ISO 4217 code such as "EUR"'),
    external_reference: printableText(128),
    webhook_url: httpUrlSchema.optional(),
    success_url: httpUrlSchema.optional(),
    cancel_url: httpUrlSchema.optional(),
    customer: customerSchema,
  })
  .superRefine((request, context) => {
    if (!isSupportedFiatCurrency(request.fiat_currency)) {
      context.addIssue({
        code: 'custom',
        path: ['fiat_currency'],
        message: `fiat_currency "${request.fiat_currency.slice(0, 16)}" is not supported; use an uppercase ISO 4217 code such as "USD" or "EUR"`,
      });
    } else {
      try {
        if (toMinorUnits(request.fiat_amount, request.fiat_currency) <= 0n) {
          context.addIssue({
            code: 'custom',
            path: ['fiat_amount'],
            message: 'fiat_amount must be greater than 0',
          });
        }
      } catch (error) {
        if (!(error instanceof MoneyError)) throw error;
        context.addIssue({ code: 'custom', path: ['fiat_amount'], message: `fiat_amount: ${error.message}` });
      }
    }
    const { wallet_address, crypto_currency, crypto_currency_network } = request.customer;
    if (!getNetwork(crypto_currency_network)) {
      context.addIssue({
        code: 'custom',
        path: ['customer', 'crypto_currency_network'],
        message: `customer.crypto_currency_network "${crypto_currency_network.slice(0, 32)}" is not supported; use one of ${NETWORK_IDS.join(', ')}`,
      });
      return;
    }
    if (!isAssetOnNetwork(crypto_currency, crypto_currency_network)) {
      const offered = getNetwork(crypto_currency_network)!.assets.map((asset) => asset.symbol);
      context.addIssue({
        code: 'custom',
        path: ['customer', 'crypto_currency'],
        message: `customer.crypto_currency "${crypto_currency.slice(0, 16)}" is not settled on ${crypto_currency_network}; use one of ${offered.join(', ')}`,
      });
    }
    const address = validateWalletAddress(crypto_currency_network, wallet_address);
    if (!address.valid) {
      context.addIssue({
        code: 'custom',
        path: ['customer', 'wallet_address'],
        message: `customer.wallet_address: ${address.message}`,
      });
    }
  });
export type CheckoutRequest = z.input<typeof checkoutRequestSchema>;

/** `POST /checkout` success `data` (docs/api.md). */
export const checkoutCreatedSchema = z.object({
  transaction_code: transactionCodeSchema,
  status: z.literal('pending'),
  amount_in_usd: usdAmountSchema,
  checkout_url: httpUrlSchema,
  payment_options: z.array(paymentOptionSchema),
  expires_at: isoDateTimeSchema,
});
export type CheckoutCreated = z.infer<typeof checkoutCreatedSchema>;
