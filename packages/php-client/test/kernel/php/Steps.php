<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

/** Thrown to stand for the process dying at that point: an \Error, so no run catches it. */
final class SimulatedCrash extends \Error
{
}

/**
 * Every step a request takes, platform call or SQL statement, in order: the points where a crash
 * or another request can come between. A test sets crashAt to kill the request before its n-th
 * step, or before to run something (another request) before a step.
 */
final class Steps
{
    /** @var list<string> */
    public array $log = [];
    /** Crash before the n-th step (1-based, counted over the whole log); 0 = never. */
    public int $crashAt = 0;
    /** @var (callable(string): void)|null */
    public $before = null;
    /** Set by a crash: the process is dead, and nothing it would still do (a finally block) happens. */
    private bool $dead = false;

    public function enter(string $step): void
    {
        if ($this->dead) {
            throw new SimulatedCrash('the process is dead');
        }
        $this->log[] = $step;
        if ($this->crashAt > 0 && count($this->log) === $this->crashAt) {
            $this->crashAt = 0;
            $this->dead = true;
            throw new SimulatedCrash('crash before ' . $step);
        }
        if ($this->before !== null) {
            $hook = $this->before;
            $hook($step);
        }
    }

    /** The next request is a new process. */
    public function revive(): void
    {
        $this->dead = false;
    }

    public function count(): int
    {
        return count($this->log);
    }
}
