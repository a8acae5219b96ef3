<?php
/*
 * Test harness for the Crypto Checkout WHMCS module. It follows WHMCS 8.13 and reproduces, from the
 * WHMCS developer documentation, only the API the module uses:
 *   - init.php: defines WHMCS, boots the database layer (WHMCS\Database\Capsule), loads every hook
 *     file in includes/hooks/ the way WHMCS does on each request;
 *   - includes/gatewayfunctions.php: getGatewayVariables, checkCbInvoiceID, checkCbTransID, logTransaction;
 *   - includes/invoicefunctions.php: addInvoicePayment;
 *   - add_hook/run_hook, localAPI (GetInvoice, GetClientsDetails, AddClientNote, UpdateInvoice),
 *     logActivity, WHMCS\Exception\Module\InvalidConfiguration, and
 *     WHMCS\Utility\Environment\CurrentRequest::getIP() (the client's address);
 *   - the tables the module touches: tblpaymentgateways, tblinvoices, tblclients, tblcurrencies,
 *     tblaccounts, tblgatewaylog, tblactivitylog, tblnotes, tblconfiguration.
 * The web server part (request method, query, form body, response status and headers) is taken from
 * and reported to the Node side through environment variables and a line on stderr.
 */

define('WHMCS', true);
define('ROOTDIR', __DIR__);

require_once __DIR__ . '/harness/bootstrap.php';
