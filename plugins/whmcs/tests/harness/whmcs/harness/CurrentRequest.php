<?php
// Test harness (WHMCS 8.13): WHMCS\Utility\Environment\CurrentRequest::getIP(), WHMCS's own idea of
// the client's address (it honours the Trusted Proxies setting; the harness has none, so it is
// REMOTE_ADDR, which the Node side sets per request).

namespace WHMCS\Utility\Environment;

final class CurrentRequest
{
    public static function getIP(): string
    {
        return (string) ($_SERVER['REMOTE_ADDR'] ?? '');
    }
}
