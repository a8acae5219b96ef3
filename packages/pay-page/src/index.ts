/**
 * @cryptocheckout/pay-page — the hosted pay page served at `GET /pay/<transaction_code>`: server-side
 * rendering, security headers and language choice. The browser half is built into PAY_ASSETS_DIR.
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
export { renderPayPage } from './render.js';
export type { PayPageContext, PayPageState, RailView } from './state.js';
