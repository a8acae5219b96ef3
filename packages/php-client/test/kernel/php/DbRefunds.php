<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Kernel\RefundPort;
use CryptoCheckout\Client\Kernel\RefundRecord;

/**
 * A RefundPort whose platform keeps its refunds in its own database table, as a real shop does, so
 * several PHP processes share them. The table has no key on the refund: a refund recorded twice is
 * two rows, and the tests count them.
 */
final class DbRefunds implements RefundPort
{
    private PdoSqlPort $sql;
    private string $table;

    public function __construct(PdoSqlPort $sql)
    {
        $this->sql = $sql;
        $this->table = $sql->table('platform_refunds');
        $sql->execute('CREATE TABLE IF NOT EXISTS ' . $this->table . ' (order_id VARCHAR(64) NOT NULL, refund_id VARCHAR(64) NOT NULL, kind VARCHAR(16) NOT NULL, detail TEXT NULL)');
    }

    public function isRefundRecorded(string $orderId, string $refundId): bool
    {
        return $this->sql->select('SELECT 1 FROM ' . $this->table . ' WHERE order_id = ? AND refund_id = ? AND kind = ?', [$orderId, $refundId, 'paid']) !== [];
    }

    public function recordRefundPaid(string $orderId, RefundRecord $refund): void
    {
        // A platform takes a moment to write its refund: the window another process could use.
        usleep(20000);
        $this->sql->execute('INSERT INTO ' . $this->table . ' (order_id, refund_id, kind, detail) VALUES (?, ?, ?, ?)', [$orderId, $refund->refundId, 'paid', $refund->txId]);
    }

    public function sendClaimLink(string $orderId, RefundRecord $refund): bool
    {
        $this->sql->execute('INSERT INTO ' . $this->table . ' (order_id, refund_id, kind, detail) VALUES (?, ?, ?, ?)', [$orderId, $refund->refundId, 'link', $refund->claimUrl]);
        return true;
    }

    public function refundNote(string $orderId, RefundRecord $refund, string $note): void
    {
        $this->sql->execute('INSERT INTO ' . $this->table . ' (order_id, refund_id, kind, detail) VALUES (?, ?, ?, ?)', [$orderId, $refund->refundId, 'note', $note]);
    }

    /** @return array<string, int> rows per kind for a refund */
    public function counts(string $refundId): array
    {
        $counts = ['paid' => 0, 'link' => 0, 'note' => 0];
        foreach ($this->sql->select('SELECT kind FROM ' . $this->table . ' WHERE refund_id = ?', [$refundId]) as $row) {
            $counts[(string) $row['kind']]++;
        }
        return $counts;
    }
}
