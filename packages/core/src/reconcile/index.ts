export {
  decideReconciliation,
  type MismatchReason,
  ORDER_STATES,
  type OrderState,
  type ReconcileAction,
  type StoredOrder,
  type TransactionLookup,
} from './reconcile.js';
