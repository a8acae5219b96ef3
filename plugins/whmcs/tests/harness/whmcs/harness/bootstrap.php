<?php
// Test harness (WHMCS 8.13): boot sequence behind init.php.

foreach (['Capsule', 'Connection', 'QueryBuilder', 'Collection', 'SchemaBuilder', 'Blueprint', 'ColumnDefinition'] as $harnessClass) {
    require_once __DIR__ . '/' . $harnessClass . '.php';
}
require_once __DIR__ . '/InvalidConfiguration.php';
require_once __DIR__ . '/CurrentRequest.php';
require_once __DIR__ . '/functions.php';

error_reporting(E_ALL);
set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $severity, $file, $line);
});

harness_boot_request();
\WHMCS\Database\Capsule::boot((string) getenv('WHMCS_HARNESS_DB'));
harness_install_schema();

foreach (glob(ROOTDIR . '/includes/hooks/*.php') ?: [] as $hookFile) {
    require_once $hookFile;
}
