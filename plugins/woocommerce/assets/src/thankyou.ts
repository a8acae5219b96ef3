// Order-received page: follows the payment status and opens the payment window when asked.
import { mountStatusWidget } from './lib/status-widget.js';

const element = document.getElementById('cryptocheckout-status');
if (element !== null) mountStatusWidget(element);
