/**
 * @cryptocheckout/server — the Crypto Checkout reference server: the checkout service of
 * docs/api.md, the hosted pay page, sandbox payments and durable webhooks.
 */

// Kept for compatibility; merchants verify with @cryptocheckout/core/node, which needs neither
// Fastify nor SQLite (docs/api.md, "Webhook signature").
export { SIGNATURE_HEADER, signWebhook, verifyWebhookSignature } from '@cryptocheckout/core/node';
export type { ResolvedConfig, ServerMode, ServerOptions } from './config.js';
export type { CheckoutService } from './domain/checkout-service.js';
export { RAILS, type Rail } from './rails/catalog.js';
export type { LiveRailOptions } from './rails/evm/evm-networks.js';
export type {
  AlongsideWrite,
  MerchantWallet,
  ObservedPayment,
  PaymentRailProvider,
  PaymentRequest,
  PaymentSink,
  RailAvailability,
} from './rails/payment-rail-provider.js';
export {
  cachedRateProvider,
  type RateProvider,
  RateUnavailableError,
  type UsdQuote,
} from './rates/rate-provider.js';
export { STATIC_RATES_DATE, staticRateProvider } from './rates/static-rates.js';
export { type RunningServer, startServer } from './server.js';
export type { DeliveryAttempt, WebhookDelivery } from './webhooks/outbox.js';
