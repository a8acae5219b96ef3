<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\RunOutcome;

/**
 * Runs on WHMCS's cron (AfterCronJob): the kernel's scheduled poll, so an invoice is paid, held or
 * flagged even when its webhook never arrived, including a payment that arrives after its checkout
 * expired. Each checkout carries the service URL and terms it was made with, so the poll runs even
 * while the current settings are being fixed.
 */
final class CronPoller
{
    private function __construct()
    {
    }

    /** @return list<RunOutcome> */
    public static function run(): array
    {
        if (!Gateway::isActivated()) {
            return [];
        }
        $gateway = Gateway::fromSavedSettings();
        try {
            return $gateway->runner()->poll(new PollPolicy());
        } catch (\Exception $error) {
            // The rest of WHMCS's cron must not depend on this module; the next run tries again.
            $gateway->port()->log('error', 'The scheduled check of open payments failed: ' . $error->getMessage());
            return [];
        }
    }
}
