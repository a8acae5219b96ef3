<?php
/**
 * Crypto Checkout web entry point, called over HTTP (WHMCS is booted here, as in every callback):
 * - POST without an action: the service's transaction.settled and refund.paid webhooks;
 * - POST ?action=pay: the invoice's pay button;
 * - GET ?action=status: the invoice's status widget.
 */

declare(strict_types=1);

require_once __DIR__ . '/../../../init.php';
require_once __DIR__ . '/../../../includes/gatewayfunctions.php';
require_once __DIR__ . '/../../../includes/invoicefunctions.php';
require_once __DIR__ . '/../cryptocheckout/autoload.php';

$gatewayParams = getGatewayVariables(basename(__FILE__, '.php'));
if (empty($gatewayParams['type'])) {
    http_response_code(503);
    die('Module Not Activated');
}

(new \CryptoCheckout\Whmcs\Gateway($gatewayParams))
    ->answer($_GET, $_POST, $_SERVER, (string) file_get_contents('php://input'))
    ->send();
