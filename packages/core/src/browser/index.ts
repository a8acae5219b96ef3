export {
  type CheckoutModalCloseReason,
  type CheckoutModalHandle,
  type CheckoutModalOptions,
  openCheckoutModal,
} from './embed.js';
export {
  createStatusPoller,
  type StatusPoller,
  type StatusPollerDocument,
  type StatusPollerOptions,
  type StatusPollerTimers,
} from './poller.js';
export {
  buildEmbedUrl,
  EMBED_MESSAGE_SOURCE,
  EMBED_PROTOCOL_VERSION,
  type EmbedMessage,
  type EmbedMessageType,
  type EmbedParams,
  isEmbedMessage,
  isHttpOrigin,
  postToParent,
  readEmbedParams,
} from './protocol.js';
export {
  type BuyerStatus,
  mountStatusWidget,
  mountStatusWidgets,
  STATUS_WIDGET_SELECTOR,
  type StatusWidget,
  type StatusWidgetConfig,
  type StatusWidgetLabels,
  type StatusWidgetOptions,
} from './status-widget.js';
