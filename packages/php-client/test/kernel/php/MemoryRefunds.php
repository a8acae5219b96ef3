<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Kernel\RefundPort;
use CryptoCheckout\Client\Kernel\RefundRecord;

/**
 * The reference RefundPort: the platform's refunds, claim-link messages and order notes in memory.
 * A second recording of the same refund is kept (a double refund on the platform), so tests count it.
 */
final class MemoryRefunds implements RefundPort
{
    /** @var array<string, list<array{refund_id: string, amount: string, asset: string, tx_id: string|null}>> */
    public array $recorded = [];
    /** @var list<array{order: string, refund_id: string, claim_url: string|null}> */
    public array $linksSent = [];
    /** @var array<string, list<string>> */
    public array $notes = [];
    /** When true the platform cannot send e-mail. */
    public bool $mailFails = false;
    private Steps $steps;

    public function __construct(Steps $steps)
    {
        $this->steps = $steps;
    }

    public function isRefundRecorded(string $orderId, string $refundId): bool
    {
        $this->steps->enter('isRefundRecorded');
        foreach ($this->recorded[$orderId] ?? [] as $refund) {
            if ($refund['refund_id'] === $refundId) {
                return true;
            }
        }
        return false;
    }

    public function recordRefundPaid(string $orderId, RefundRecord $refund): void
    {
        $this->steps->enter('recordRefundPaid');
        $this->recorded[$orderId][] = ['refund_id' => $refund->refundId, 'amount' => $refund->amount, 'asset' => $refund->asset, 'tx_id' => $refund->txId];
    }

    public function sendClaimLink(string $orderId, RefundRecord $refund): bool
    {
        $this->steps->enter('sendClaimLink');
        if ($this->mailFails) {
            return false;
        }
        $this->linksSent[] = ['order' => $orderId, 'refund_id' => $refund->refundId, 'claim_url' => $refund->claimUrl];
        return true;
    }

    public function refundNote(string $orderId, RefundRecord $refund, string $note): void
    {
        $this->steps->enter('refundNote');
        $this->notes[$orderId][] = $note;
    }
}
