<?php
/*
 * Test harness for the Crypto Checkout WHMCS module. It follows WHMCS 8.13 and reproduces, from the
 * WHMCS developer documentation, only the API the module uses:
 *   - init.php: defines WHMCS, boots the database layer (WHMCS\Database\Capsule), loads every hook
 *     file in includes/hooks/ the way WHMCS does on each request;
 *   - includes/gatewayfunctions.php: getGatewayVariables, checkCbInvoiceID, checkCbTransID, logTransaction;
 *   - includes/invoicefunctions.php: addInvoicePayment;
 *   - add_hook/run_hook, localAPI (GetInvoice, GetClientsDetails, AddClientNote, UpdateInvoice,
 *     SendEmail with a custom message), logActivity, WHMCS\Exception\Module\InvalidConfiguration,
 *     and WHMCS\Utility\Environment\CurrentRequest::getIP() (the client's address);
 *   - the admin area around the module (harness/driver.php): the Payment Gateways page's save, the
 *     invoice's Refund tab calling the gateway's _refund function, the invoice page's
 *     AdminInvoicesControlsOutput hook point;
 *   - the tables the module touches: tblpaymentgateways, tblinvoices, tblclients, tblcurrencies,
 *     tblaccounts (with refundid), tblgatewaylog, tblactivitylog, tblnotes, tblemails, tblconfiguration.
 * The web server part (request method, query, form body, response status and headers) is taken from
 * and reported to the Node side through environment variables and a line on stderr.
 */

define('WHMCS', true);
define('ROOTDIR', __DIR__);

require_once __DIR__ . '/harness/bootstrap.php';
