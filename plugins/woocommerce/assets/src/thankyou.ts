// Order-received page: the payment status box (the kernel's StatusWidgetMarkup) follows the order's
// status endpoint and opens the payment window when the shop asks for it. Enqueued in the footer,
// so the box is already in the document.
import { mountStatusWidgets } from '@cryptocheckout/core/browser';

mountStatusWidgets(document);
