<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

final class SystemClock implements Clock
{
    public function now(): int
    {
        return time();
    }

    public function sleep(int $microseconds): void
    {
        usleep(max(0, $microseconds));
    }
}
