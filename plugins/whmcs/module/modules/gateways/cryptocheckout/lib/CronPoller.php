<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

/**
 * Runs on WHMCS's cron (AfterCronJob): checks every open checkout against the service, so an
 * invoice is paid, held or released even when its webhook never arrived.
 */
final class CronPoller
{
    /** Checkouts looked at per cron run; the oldest-checked go first. */
    public const BATCH = 100;

    /** The service settles late payments for 24 hours after expiry; keep watching a little longer. */
    public const WATCH_AFTER_EXPIRY_SECONDS = 26 * 3600;

    private function __construct()
    {
    }

    /** @return array<string, int> how many checkouts ended in each state */
    public static function run(): array
    {
        if (!Gateway::isActivated()) {
            return [];
        }
        $gateway = Gateway::fromSavedSettings();
        if ($gateway->settings->problems() !== []) {
            return [];
        }
        $reconciliation = $gateway->reconciliation();
        $counts = [];
        foreach ($gateway->store()->open(self::BATCH) as $row) {
            $expires = $row->expires_at === null ? false : strtotime((string) $row->expires_at);
            if ($expires !== false && $expires < time() - self::WATCH_AFTER_EXPIRY_SECONDS) {
                // Past the service's late-payment window: nothing can change any more. Touched so
                // that it moves behind the checkouts still worth a look.
                $gateway->store()->touch((int) $row->id);
                continue;
            }
            try {
                $state = $reconciliation->run($row)['state'];
            } catch (\Exception $error) {
                $gateway->ledger()->log('Cron check failed', [
                    'transaction_code' => (string) $row->transaction_code,
                    'error' => $error->getMessage(),
                ]);
                $state = 'error';
            }
            $counts[$state] = ($counts[$state] ?? 0) + 1;
        }
        return $counts;
    }
}
