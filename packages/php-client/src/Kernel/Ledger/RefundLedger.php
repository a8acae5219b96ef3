<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel\Ledger;

use CryptoCheckout\Client\Kernel\RefundRecord;

/**
 * The ledger's refunds table (LedgerSchema::REFUNDS): every refund the kernel started, keyed by the
 * service's refund id, so a refund asked twice (a retried admin action, two racing requests) is
 * one row. Only RefundRunner writes it; changes after the first insert are made under the order's
 * claim (Ledger::claim()).
 */
final class RefundLedger
{
    private const COLUMNS = [
        'refund_id', 'order_id', 'transaction_code', 'platform_refund_id', 'service_url', 'amount', 'asset',
        'network', 'fiat_amount', 'fiat_currency', 'status', 'claim_url', 'address', 'payment_request_text',
        'payment_request_uri', 'tx_id', 'tx_url', 'created_at', 'checked_at', 'claim_sent_at', 'recorded_at',
        'noticed_status',
    ];

    /** What save() writes: everything the service or the kernel changes after the refund was made. */
    private const PROGRESS_COLUMNS = [
        'status', 'claim_url', 'address', 'payment_request_text', 'payment_request_uri', 'tx_id', 'tx_url',
        'checked_at', 'claim_sent_at', 'recorded_at', 'noticed_status',
    ];

    private SqlPort $sql;
    private string $table;

    public function __construct(SqlPort $sql)
    {
        $this->sql = $sql;
        $this->table = $sql->table(LedgerSchema::REFUNDS);
    }

    /** Keeps a refund the service just made; true when added, false when the row was there already. */
    public function add(RefundRecord $refund): bool
    {
        $values = $refund->toArray();
        $parameters = [];
        foreach (self::COLUMNS as $column) {
            $parameters[] = $values[$column];
        }
        return $this->sql->execute(
            'INSERT IGNORE INTO ' . $this->table . ' (' . implode(', ', self::COLUMNS) . ') VALUES ('
            . implode(', ', array_fill(0, count($parameters), '?')) . ')',
            $parameters
        ) === 1;
    }

    public function find(string $refundId): ?RefundRecord
    {
        $rows = $this->sql->select('SELECT * FROM ' . $this->table . ' WHERE refund_id = ?', [strtolower(trim($refundId))]);
        return $rows === [] ? null : RefundRecord::fromArray($rows[0]);
    }

    /** @return list<RefundRecord> the order's refunds, newest first */
    public function ofOrder(string $orderId): array
    {
        $rows = $this->sql->select('SELECT * FROM ' . $this->table . ' WHERE order_id = ? ORDER BY created_at DESC, refund_id DESC', [$orderId]);
        return array_map([RefundRecord::class, 'fromArray'], $rows);
    }

    /** Writes what a check found and what the kernel did (under the order's claim). */
    public function save(RefundRecord $refund): void
    {
        $values = $refund->toArray();
        $assignments = [];
        $parameters = [];
        foreach (self::PROGRESS_COLUMNS as $column) {
            $assignments[] = $column . ' = ?';
            $parameters[] = $values[$column];
        }
        $parameters[] = $refund->refundId;
        $this->sql->execute('UPDATE ' . $this->table . ' SET ' . implode(', ', $assignments) . ' WHERE refund_id = ?', $parameters);
    }

    /** A lookup that failed at $now: only the time of the attempt, never over a later one's. */
    public function touch(string $refundId, int $now): void
    {
        $this->sql->execute(
            'UPDATE ' . $this->table . ' SET checked_at = ? WHERE refund_id = ? AND (checked_at IS NULL OR checked_at < ?)',
            [$now, $refundId, $now]
        );
    }

    /**
     * The refunds a check looks at, never checked first, then the least recently checked: open ones
     * awaiting payment checked at or before $paymentBefore, awaiting the buyer's address at or
     * before $addressBefore, and final ones whose outcome the kernel has not applied yet (a paid
     * refund not recorded, a cancelled or expired one the owner was not told of).
     *
     * @return list<RefundRecord>
     */
    public function due(int $paymentBefore, int $addressBefore, int $limit): array
    {
        $rows = $this->sql->select(
            'SELECT * FROM ' . $this->table . ' WHERE'
            . ' (status = ? AND (checked_at IS NULL OR checked_at <= ?))'
            . ' OR (status = ? AND (checked_at IS NULL OR checked_at <= ?))'
            . ' OR (status = ? AND recorded_at IS NULL AND (checked_at IS NULL OR checked_at <= ?))'
            . ' OR (status IN (?, ?) AND (noticed_status IS NULL OR noticed_status <> status) AND (checked_at IS NULL OR checked_at <= ?))'
            . ' ORDER BY checked_at IS NOT NULL, checked_at ASC, created_at DESC, refund_id ASC LIMIT ' . max(1, $limit),
            [
                RefundRecord::AWAITING_PAYMENT, $paymentBefore,
                RefundRecord::AWAITING_ADDRESS, $addressBefore,
                RefundRecord::PAID, $paymentBefore,
                RefundRecord::CANCELLED, RefundRecord::EXPIRED, $paymentBefore,
            ]
        );
        return array_map([RefundRecord::class, 'fromArray'], $rows);
    }
}
