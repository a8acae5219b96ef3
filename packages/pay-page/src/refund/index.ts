export { refundPageSecurityHeaders } from './headers.js';
export { REFUND_MESSAGES, type RefundMessages, refundMessagesFor } from './i18n.js';
export { type RefundClaimField, type RefundClaimProblem, refundProblemMessage } from './problems.js';
export {
  addressGroups,
  REFUND_IDS,
  REFUND_REFRESH_SECONDS,
  type RefundClaimPageInput,
  type RefundClaimView,
  renderRefundBadFormPage,
  renderRefundClaimPage,
  renderRefundNotFoundPage,
} from './render.js';
export { REFUND_CSS, REFUND_STYLESHEET_PATH, refundStylesheetUrl } from './styles.js';
