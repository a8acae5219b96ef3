<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * The platform's side of a refund (docs/plugin-kernel.md, "Refunds"): recording a paid refund on
 * the order, sending the buyer the claim link, and notes for the owner. Separate from OrderPort, so
 * a platform adds it when it offers refunds; an OrderPort class may implement both.
 *
 * Rules every implementation keeps (the kernel's tests hold the in-memory one to them):
 * - isRefundRecorded() reads the platform's database now, and is true from the moment
 *   recordRefundPaid() stored anything of the refund;
 * - recordRefundPaid() is called only when isRefundRecorded() said no, under the order's claim;
 * - sendClaimLink() uses the platform's own customer e-mail or message; it never throws for a
 *   message that could not be sent, it returns false.
 */
interface RefundPort
{
    /** True when the platform already holds the paid refund $refundId on the order. */
    public function isRefundRecorded(string $orderId, string $refundId): bool;

    /**
     * Records the refund as paid on the order (the platform's refund or credit), with its chain
     * reference ($refund->txId, $refund->txUrl) and amount ($refund->amount $refund->asset).
     */
    public function recordRefundPaid(string $orderId, RefundRecord $refund): void;

    /**
     * Sends the buyer $refund->claimUrl, where they confirm the address the refund is paid to.
     *
     * @return bool false when the message could not be sent (the owner is told to pass the link on)
     */
    public function sendClaimLink(string $orderId, RefundRecord $refund): bool;

    /** Puts $note (already translated) on the order where the owner reads it. */
    public function refundNote(string $orderId, RefundRecord $refund, string $note): void;
}
