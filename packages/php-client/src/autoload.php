<?php

declare(strict_types=1);

namespace CryptoCheckout\Client;

// Registration only: the namespace comes from this file itself, so a copy whose namespace line was
// rewritten (scripts/copy-into-plugin.mjs) loads its own classes and never another plugin's copy.
spl_autoload_register(static function (string $class): void {
    $prefix = __NAMESPACE__ . '\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
