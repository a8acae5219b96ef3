<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/** Time for the kernel: the system clock in production, a controlled one in tests. */
interface Clock
{
    /** Unix seconds. */
    public function now(): int;

    public function sleep(int $microseconds): void;
}
