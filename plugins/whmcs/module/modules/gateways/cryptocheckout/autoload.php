<?php

if (!defined('WHMCS')) {
    die('This file cannot be accessed directly');
}

// PSR-4: CryptoCheckout\Whmcs\X\Y lives in lib/X/Y.php; the bundled API client copy is
// CryptoCheckout\Whmcs\Vendor\Client\… under lib/Vendor/Client/.
spl_autoload_register(static function (string $class): void {
    $prefix = 'CryptoCheckout\\Whmcs\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/lib/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
