<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Kernel\Decision;
use CryptoCheckout\Client\Kernel\OrderPort;
use CryptoCheckout\Client\Kernel\OrderState;
use CryptoCheckout\Client\Kernel\PollPolicy;
use CryptoCheckout\Client\Kernel\StoredCheckout;

/** Thrown by the port to stand for the process dying at that point: an \Error, so no run catches it. */
final class SimulatedCrash extends \Error
{
}

/**
 * The reference OrderPort: a platform kept in memory that keeps every rule of the interface, with
 * hooks to crash before any call and to run other requests between two steps of a run.
 */
final class MemoryOrderPort implements OrderPort
{
    /** @var array<string, array{state: string, claim: ?string, checkouts: array<string, array<string, mixed>>, payments: list<string>, notes: list<string>, states: list<string>}> */
    public array $orders = [];
    /** @var list<string> every port call, in order */
    public array $calls = [];
    /** @var list<array{0: string, 1: string, 2: array<string, mixed>}> */
    public array $logs = [];
    /** Crash before the n-th call (1-based) of the port; 0 = never. */
    public int $crashAtCall = 0;
    /** @var (callable(string): void)|null called before every port call with its name */
    public $beforeCall = null;

    public function addOrder(string $orderId, string $state = OrderState::AWAITING_PAYMENT): void
    {
        $this->orders[$orderId] = ['state' => $state, 'claim' => null, 'checkouts' => [], 'payments' => [], 'notes' => [], 'states' => []];
    }

    private function enter(string $method): void
    {
        $this->calls[] = $method;
        if ($this->crashAtCall > 0 && count($this->calls) === $this->crashAtCall) {
            $this->crashAtCall = 0;
            throw new SimulatedCrash('crash before ' . $method);
        }
        if ($this->beforeCall !== null) {
            $hook = $this->beforeCall;
            $hook($method);
        }
    }

    public function findOrderByTransactionCode(string $transactionCode): ?string
    {
        $this->enter(__FUNCTION__);
        foreach ($this->orders as $orderId => $order) {
            if (isset($order['checkouts'][strtolower($transactionCode)])) {
                return (string) $orderId;
            }
        }
        return null;
    }

    public function checkouts(string $orderId): array
    {
        $this->enter(__FUNCTION__);
        $rows = array_values($this->orders[$orderId]['checkouts'] ?? []);
        usort($rows, static function (array $a, array $b): int {
            return [$b['created_at'], $b['transaction_code']] <=> [$a['created_at'], $a['transaction_code']];
        });
        return array_map([StoredCheckout::class, 'fromArray'], $rows);
    }

    public function addCheckout(string $orderId, StoredCheckout $checkout): void
    {
        $this->enter(__FUNCTION__);
        $this->orders[$orderId]['checkouts'][$checkout->transactionCode] = $checkout->toArray();
    }

    public function recordCheck(string $orderId, StoredCheckout $checkout): void
    {
        $this->enter(__FUNCTION__);
        $this->write($orderId, $checkout, ['expires_at', 'watch_until', 'checked_at', 'last_status', 'received_usd']);
    }

    public function recordApplied(string $orderId, StoredCheckout $checkout): void
    {
        $this->enter(__FUNCTION__);
        $this->write($orderId, $checkout, ['applied_action', 'resolution']);
    }

    /** @param list<string> $fields */
    private function write(string $orderId, StoredCheckout $checkout, array $fields): void
    {
        $values = $checkout->toArray();
        foreach ($fields as $field) {
            $this->orders[$orderId]['checkouts'][$checkout->transactionCode][$field] = $values[$field];
        }
    }

    public function orderState(string $orderId): string
    {
        $this->enter(__FUNCTION__);
        return $this->orders[$orderId]['state'];
    }

    public function readClaim(string $orderId): ?string
    {
        $this->enter(__FUNCTION__);
        return $this->orders[$orderId]['claim'];
    }

    public function swapClaim(string $orderId, ?string $expected, ?string $replacement): bool
    {
        $this->enter(__FUNCTION__);
        if ($this->orders[$orderId]['claim'] !== $expected) {
            return false;
        }
        $this->orders[$orderId]['claim'] = $replacement;
        return true;
    }

    public function isPaymentBooked(string $orderId, string $transactionCode): bool
    {
        $this->enter(__FUNCTION__);
        return in_array($transactionCode, $this->orders[$orderId]['payments'], true);
    }

    public function bookPayment(string $orderId, Decision $decision): void
    {
        $this->enter(__FUNCTION__);
        // A real platform books whatever it is told: a second booking is a double payment, and
        // the tests count it.
        $this->orders[$orderId]['payments'][] = $decision->transactionCode();
    }

    public function changeOrderState(string $orderId, string $state, Decision $decision): void
    {
        $this->enter(__FUNCTION__);
        if ($this->orders[$orderId]['state'] === $state) {
            return;
        }
        $this->orders[$orderId]['state'] = $state;
        $this->orders[$orderId]['states'][] = $state;
        $this->orders[$orderId]['notes'][] = $decision->note;
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        $this->enter(__FUNCTION__);
        $this->orders[$orderId]['notes'][] = 'owner: ' . $decision->reason;
    }

    public function dueCheckouts(PollPolicy $policy, int $now): array
    {
        $this->enter(__FUNCTION__);
        $entries = [];
        foreach ($this->orders as $orderId => $order) {
            foreach ($order['checkouts'] as $row) {
                $entries[] = [(string) $orderId, StoredCheckout::fromArray($row)];
            }
        }
        return $policy->select($entries, $now);
    }

    public function log(string $level, string $message, array $context = []): void
    {
        $this->logs[] = [$level, $message, $context];
    }
}
