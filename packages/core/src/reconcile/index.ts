export {
  decideReconciliation,
  type MismatchReason,
  ORDER_STATES,
  type OrderState,
  type PaymentTolerance,
  type ReconcileAction,
  type ReconcileActionName,
  type ReplacingCheckout,
  type StoredOrder,
  type TransactionLookup,
} from './reconcile.js';
