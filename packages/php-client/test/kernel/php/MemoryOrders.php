<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Kernel\Decision;
use CryptoCheckout\Client\Kernel\OrderPort;
use CryptoCheckout\Client\Kernel\OrderState;

/**
 * The reference OrderPort: a platform's orders kept in memory, keeping every rule of the
 * interface. Like WooCommerce and WHMCS, it has no status of its own for the two holds: an order
 * "on hold" is underpaid or held for review as the kernel recorded it.
 */
final class MemoryOrders implements OrderPort
{
    public const ON_HOLD = 'on_hold';

    /** @var array<string, array{status: string, payments: list<string>, notes: list<string>, states: list<string>}> */
    public array $orders = [];
    /** @var list<array{0: string, 1: string, 2: array<string, mixed>}> */
    public array $logs = [];
    private Steps $steps;

    public function __construct(Steps $steps)
    {
        $this->steps = $steps;
    }

    public function addOrder(string $orderId, string $status = OrderState::AWAITING_PAYMENT): void
    {
        $this->orders[$orderId] = ['status' => $status, 'payments' => [], 'notes' => [], 'states' => []];
    }

    /** The platform's own status (what a save writes back); the kernel reads orderState(). */
    public function setStatus(string $orderId, string $status): void
    {
        $this->orders[$orderId]['status'] = $status;
    }

    public function orderState(string $orderId, ?string $recordedState): string
    {
        $this->steps->enter('orderState');
        $status = $this->orders[$orderId]['status'];
        if ($status === self::ON_HOLD) {
            return in_array($recordedState, [OrderState::UNDERPAID, OrderState::LATE_PAYMENT_REVIEW], true) ? $recordedState : OrderState::AWAITING_PAYMENT;
        }
        return $status;
    }

    public function isPaymentBooked(string $orderId, string $transactionCode): bool
    {
        $this->steps->enter('isPaymentBooked');
        return in_array($transactionCode, $this->orders[$orderId]['payments'], true);
    }

    public function bookPayment(string $orderId, Decision $decision): void
    {
        $this->steps->enter('bookPayment');
        // A real platform books whatever it is told: a second booking is a double payment, and
        // the tests count it.
        $this->orders[$orderId]['payments'][] = $decision->transactionCode();
    }

    public function changeOrderState(string $orderId, string $state, Decision $decision): bool
    {
        $this->steps->enter('changeOrderState');
        $status = in_array($state, [OrderState::UNDERPAID, OrderState::LATE_PAYMENT_REVIEW], true) ? self::ON_HOLD : $state;
        if ($this->orders[$orderId]['status'] === $status && $status !== self::ON_HOLD) {
            return false;
        }
        $this->orders[$orderId]['status'] = $status;
        $this->orders[$orderId]['states'][] = $state;
        // The owner reads the hold's note: marked as the owner's notice, as notifyOwner() marks its own.
        $this->orders[$orderId]['notes'][] = ($state === OrderState::LATE_PAYMENT_REVIEW ? 'owner: ' . $decision->reason . ' ' : '') . $decision->note;
        return true;
    }

    public function notifyOwner(string $orderId, Decision $decision): void
    {
        $this->steps->enter('notifyOwner');
        $this->orders[$orderId]['notes'][] = 'owner: ' . $decision->reason;
    }

    public function log(string $level, string $message, array $context = []): void
    {
        $this->logs[] = [$level, $message, $context];
    }
}
