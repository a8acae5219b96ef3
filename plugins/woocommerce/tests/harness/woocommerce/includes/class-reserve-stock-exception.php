<?php
/** Harness (WooCommerce 10.0.2): src/Checkout/Helpers/ReserveStockException.php. */

namespace Automattic\WooCommerce\Checkout\Helpers;

defined('ABSPATH') || exit;

/** Thrown when the stock of an order cannot be held; carries an error code and data like WooCommerce's. */
class ReserveStockException extends \Exception
{
    private string $error_code;
    private array $error_data;

    public function __construct($code, $message, $http_status_code = 400, $data = [])
    {
        $this->error_code = (string) $code;
        $this->error_data = array_merge(['status' => $http_status_code], (array) $data);
        parent::__construct($message, $http_status_code);
    }

    public function getErrorCode()
    {
        return $this->error_code;
    }

    public function getErrorData()
    {
        return $this->error_data;
    }
}
