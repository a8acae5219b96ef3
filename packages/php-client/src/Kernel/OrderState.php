<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * The states an order can be in, as the kernel and the Reconciler see it. Each plugin maps its
 * platform's own order statuses onto these (OrderPort::orderState()).
 */
final class OrderState
{
    public const AWAITING_PAYMENT = 'awaiting_payment';
    public const UNDERPAID = 'underpaid';
    public const LATE_PAYMENT_REVIEW = 'late_payment_review';
    public const PAID = 'paid';
    public const CANCELLED = 'cancelled';

    public const ALL = [self::AWAITING_PAYMENT, self::UNDERPAID, self::LATE_PAYMENT_REVIEW, self::PAID, self::CANCELLED];

    /** States in which the buyer can still pay on the service. */
    public const OPEN = [self::AWAITING_PAYMENT, self::UNDERPAID];

    private function __construct()
    {
    }
}
