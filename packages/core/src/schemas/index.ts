export {
  type CheckoutCreated,
  type CheckoutRequest,
  type Customer,
  checkoutCreatedSchema,
  checkoutRequestSchema,
  customerSchema,
} from './checkout.js';
export {
  decimalInputSchema,
  decimalStringSchema,
  describeJsonType,
  FINAL_STATUSES,
  httpUrlSchema,
  isAbsoluteHttpUrl,
  isoDateTimeSchema,
  TRANSACTION_STATUSES,
  type TransactionStatus,
  transactionCodeSchema,
  usdAmountSchema,
} from './common.js';
export {
  ERROR_CODES,
  type ErrorCode,
  type ErrorEnvelope,
  errorEnvelopeSchema,
  successEnvelopeSchema,
} from './envelope.js';
export { jsonSchemas } from './json-schema.js';
export type {
  OperatorChainTransfer,
  OperatorDayStats,
  OperatorDelivery,
  OperatorDeliveryAttempt,
  OperatorDepositForward,
  OperatorIssuedMerchantKey,
  OperatorMerchantKey,
  OperatorOverview,
  OperatorPayment,
  OperatorRefundDetail,
  OperatorRefundPage,
  OperatorRefundSummary,
  OperatorResend,
  OperatorStateChange,
  OperatorStats,
  OperatorTransactionDetail,
  OperatorTransactionPage,
  OperatorTransactionSummary,
  OperatorTransferResolution,
  OperatorUnmatchedPage,
  OperatorWebhookState,
} from './operator.js';
export {
  type CryptoPaymentLink,
  cryptoPaymentLinkSchema,
  type FiatPaymentLink,
  fiatPaymentLinkSchema,
  type PaymentLink,
  paymentLinkQuerySchema,
  paymentLinkSchema,
} from './payment-link.js';
export {
  type PaymentOption,
  type PaymentOptions,
  paymentOptionSchema,
  paymentOptionsQuerySchema,
  paymentOptionsSchema,
  RAIL_KINDS,
} from './payment-options.js';
export {
  REFUND_PAID_EVENT,
  REFUND_STATUSES,
  type Refund,
  type RefundCreated,
  type RefundCreateRequest,
  type RefundPaidWebhook,
  type RefundPaymentRequest,
  type RefundStateChange,
  type RefundStatus,
  type RefundsOfTransaction,
  refundCreatedSchema,
  refundCreateRequestSchema,
  refundIdSchema,
  refundPaidWebhookSchema,
  refundQuerySchema,
  refundSchema,
  refundsOfTransactionQuerySchema,
  refundsOfTransactionSchema,
  sandboxRefundPaymentRequestSchema,
} from './refund.js';
export { SANDBOX_PAYMENT_SIZES, type SandboxPaymentRequest, sandboxPaymentRequestSchema } from './sandbox.js';
export {
  type Payment,
  paymentSchema,
  type Transaction,
  transactionQuerySchema,
  transactionSchema,
} from './transaction.js';
export { SETTLED_EVENT, type SettledWebhook, settledWebhookSchema } from './webhook.js';
