/**
 * @cryptocheckout/core/browser — helpers that need a DOM: the checkout modal, the status poller,
 * posting embed messages to the parent frame and the buyer status widget. The embed protocol's
 * message shapes and URL helpers are DOM-free and live in the root entry (docs/embed-protocol.md).
 */
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
export { postToParent } from './post-to-parent.js';
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
