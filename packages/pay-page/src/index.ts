/**
 * @cryptocheckout/pay-page — the hosted pay page served at `GET /pay/<transaction_code>`: server-side
 * rendering, security headers and language choice. The browser half is built into PAY_ASSETS_DIR.
 * Also the buyer's refund claim page `/refund/<claim code>` (plain HTML, no script).
 */
export { assetUrl, PAY_ASSET_FILES, PAY_ASSETS_DIR, PAY_ASSETS_PATH, type PayAssetFile } from './assets.js';
export {
  frameAncestorsDirective,
  ownAssetsPolicy,
  type PayPageHeaderOptions,
  payPageSecurityHeaders,
} from './headers.js';
export { escapeHtml } from './html.js';
export {
  isSupportedLanguage,
  LANGUAGE_NAMES,
  type Language,
  MESSAGES,
  type Messages,
  messagesFor,
  resolveLanguage,
  SUPPORTED_LANGUAGES,
} from './i18n.js';
export { qrGeometry, qrSvg } from './qr.js';
export {
  addressGroups,
  REFUND_CSS,
  REFUND_IDS,
  REFUND_MESSAGES,
  REFUND_REFRESH_SECONDS,
  REFUND_STYLESHEET_PATH,
  type RefundClaimField,
  type RefundClaimPageInput,
  type RefundClaimProblem,
  type RefundClaimView,
  type RefundMessages,
  refundMessagesFor,
  refundPageSecurityHeaders,
  refundProblemMessage,
  refundStylesheetUrl,
  renderRefundBadFormPage,
  renderRefundClaimPage,
  renderRefundNotFoundPage,
} from './refund/index.js';
export { renderPayPage } from './render.js';
export type { PayPageContext, PayPageState, RailView } from './state.js';
