<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Kernel\Clock;

/** A clock the test moves; sleeping moves it too. */
final class FakeClock implements Clock
{
    public const START = 1793527200; // 2026-11-01T10:00:00Z

    public int $now = self::START;

    public function now(): int
    {
        return $this->now;
    }

    public function sleep(int $microseconds): void
    {
        $this->now += (int) ceil($microseconds / 1000000);
    }
}
