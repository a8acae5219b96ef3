<?php

declare(strict_types=1);

// Loads the client (with its kernel) and the kernel's test fixtures; PHP warnings fail the test.
error_reporting(E_ALL);
set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $severity, $file, $line);
});
require __DIR__ . '/../../../src/autoload.php';
require_once __DIR__ . '/Steps.php';
require_once __DIR__ . '/MemoryOrders.php';
require_once __DIR__ . '/MemoryRefunds.php';
require_once __DIR__ . '/DbRefunds.php';
require_once __DIR__ . '/RefundDesk.php';
require_once __DIR__ . '/PdoSqlPort.php';
require_once __DIR__ . '/ScriptedService.php';
require_once __DIR__ . '/FakeClock.php';
require_once __DIR__ . '/World.php';
require_once __DIR__ . '/Scenario.php';
