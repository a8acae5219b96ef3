<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel\Ledger;

use CryptoCheckout\Client\Kernel\Claim;
use CryptoCheckout\Client\Kernel\Clock;
use CryptoCheckout\Client\Kernel\PollPolicy;
use CryptoCheckout\Client\Kernel\StoredCheckout;

/**
 * The kernel's own records, the same on every platform: the checkouts of every order, each order's
 * claim and recorded state, and the kernel's small state (LedgerSchema). It is the source of truth
 * for what the kernel did; the platform's order holds only what the platform shows (its status,
 * its payments), and a run that finds the two disagree repairs the order (Reconciler,
 * "booked_undone").
 *
 * Every statement is one SQL statement the database applies atomically; the ones that decide
 * between racing requests are conditional writes whose changed-row count names the winner.
 */
final class Ledger
{
    /** Columns of the checkouts table, in StoredCheckout::toArray() order after order_id. */
    private const CHECKOUT_COLUMNS = [
        'transaction_code', 'checkout_url', 'service_url', 'fiat_amount', 'fiat_currency', 'wallet_address',
        'wallet_currency', 'wallet_network', 'order_amount', 'order_currency', 'created_at', 'ordinal',
        'expires_at', 'watch_until', 'checked_at', 'last_status', 'received_usd', 'applied_action',
        'resolution', 'notified', 'confirmed_at',
    ];

    /** What a run writes after it decided: the check fields and the applied fields. */
    private const PROGRESS_COLUMNS = [
        'expires_at', 'watch_until', 'checked_at', 'last_status', 'received_usd', 'applied_action',
        'resolution', 'notified', 'confirmed_at',
    ];

    /** How long a claim waits between two tries while another run holds the order. */
    private const CLAIM_RETRY_MICROSECONDS = 200000;

    private SqlPort $sql;
    private string $checkouts;
    private string $orders;
    private string $state;
    private ?RefundLedger $refunds = null;

    public function __construct(SqlPort $sql)
    {
        $this->sql = $sql;
        $this->checkouts = $sql->table(LedgerSchema::CHECKOUTS);
        $this->orders = $sql->table(LedgerSchema::ORDERS);
        $this->state = $sql->table(LedgerSchema::STATE);
    }

    /**
     * Creates the tables when they are missing and records LedgerSchema::VERSION; safe to run again
     * and from many requests at once. A ledger of an earlier version gets the tables added since.
     */
    public function install(): void
    {
        foreach (LedgerSchema::statements($this->sql) as $statement) {
            $this->sql->execute($statement);
        }
        $this->sql->execute('INSERT IGNORE INTO ' . $this->state . ' (state_key, state_value) VALUES (?, ?)', ['schema_version', (string) LedgerSchema::VERSION]);
        if ((int) $this->value('schema_version', 0) < LedgerSchema::VERSION) {
            $this->sql->execute('UPDATE ' . $this->state . ' SET state_value = ? WHERE state_key = ?', [(string) LedgerSchema::VERSION, 'schema_version']);
        }
    }

    /**
     * True when the tables are those of LedgerSchema::VERSION; a plugin's upgrade step calls
     * install() otherwise (a plugin that installed once, before refunds, lacks their table).
     */
    public function isCurrent(): bool
    {
        try {
            return (int) $this->value('schema_version', 0) >= LedgerSchema::VERSION;
        } catch (\RuntimeException $missing) {
            return false;
        }
    }

    /** The refunds table (RefundLedger), over the same database. */
    public function refunds(): RefundLedger
    {
        return $this->refunds ?? ($this->refunds = new RefundLedger($this->sql));
    }

    /** True once install() has run (the plugin's upgrade step asks before it migrates). */
    public function isInstalled(): bool
    {
        try {
            return $this->value('schema_version', 0) !== null;
        } catch (\RuntimeException $missing) {
            return false;
        }
    }

    /** Drops the tables (a plugin's "delete data on uninstall"). */
    public function uninstall(): void
    {
        foreach (LedgerSchema::tables($this->sql) as $table) {
            $this->sql->execute('DROP TABLE IF EXISTS ' . $table);
        }
    }

    /** The order one of whose checkouts has this transaction code (any case), or null. */
    public function orderOf(string $transactionCode): ?string
    {
        $code = strtolower(trim($transactionCode));
        if ($code === '') {
            return null;
        }
        $rows = $this->sql->select('SELECT order_id FROM ' . $this->checkouts . ' WHERE transaction_code = ?', [$code]);
        return $rows === [] ? null : (string) $rows[0]['order_id'];
    }

    /** @return list<StoredCheckout> every checkout of the order, newest first */
    public function checkouts(string $orderId): array
    {
        $rows = $this->sql->select('SELECT * FROM ' . $this->checkouts . ' WHERE order_id = ? ORDER BY created_at DESC, ordinal DESC, transaction_code DESC', [$orderId]);
        return array_map([StoredCheckout::class, 'fromArray'], $rows);
    }

    /** The state the kernel last moved the order to (OrderState::*), or null. */
    public function recordedState(string $orderId): ?string
    {
        $rows = $this->sql->select('SELECT recorded_state FROM ' . $this->orders . ' WHERE order_id = ?', [$orderId]);
        $state = $rows[0]['recorded_state'] ?? null;
        return $state === null || $state === '' ? null : (string) $state;
    }

    /** Keeps a newly created checkout after the order's earlier ones (under the order's claim). */
    public function add(string $orderId, StoredCheckout $checkout): void
    {
        $rows = $this->sql->select('SELECT MAX(ordinal) AS last FROM ' . $this->checkouts . ' WHERE order_id = ?', [$orderId]);
        $checkout->ordinal = (int) ($rows[0]['last'] ?? 0) + 1;
        $this->insertCheckout($orderId, $checkout, 'INSERT');
    }

    /** Writes what a run found and did: the check fields and the applied fields (under the claim). */
    public function record(string $orderId, StoredCheckout $checkout): void
    {
        $values = $checkout->toArray();
        $assignments = [];
        $parameters = [];
        foreach (self::PROGRESS_COLUMNS as $column) {
            $assignments[] = $column . ' = ?';
            $parameters[] = $values[$column];
        }
        $parameters[] = $orderId;
        $parameters[] = $checkout->transactionCode;
        $this->sql->execute('UPDATE ' . $this->checkouts . ' SET ' . implode(', ', $assignments) . ' WHERE order_id = ? AND transaction_code = ?', $parameters);
    }

    /**
     * A lookup that failed at $now: only the time of the attempt, so the poll waits before it asks
     * again, and never over a later attempt's.
     */
    public function touch(string $transactionCode, int $now): void
    {
        $this->sql->execute(
            'UPDATE ' . $this->checkouts . ' SET checked_at = ? WHERE transaction_code = ? AND (checked_at IS NULL OR checked_at < ?)',
            [$now, strtolower($transactionCode), $now]
        );
    }

    /** Remembers the state the kernel moved the order to. */
    public function recordState(string $orderId, string $state): void
    {
        $this->ensureOrderRow($orderId);
        $this->sql->execute('UPDATE ' . $this->orders . ' SET recorded_state = ? WHERE order_id = ?', [$state, $orderId]);
    }

    /**
     * Claims the order when no run holds it or the holder's lease ended: one conditional UPDATE,
     * which exactly one of any number of racing requests wins.
     */
    public function claim(string $orderId, string $action, string $transactionCode, int $now): ?Claim
    {
        $claim = Claim::create($orderId, $action, $transactionCode, $now);
        $this->ensureOrderRow($orderId);
        $before = $this->sql->select('SELECT claim_action, claim_code, claim_until FROM ' . $this->orders . ' WHERE order_id = ?', [$orderId])[0] ?? [];
        $won = $this->sql->execute(
            'UPDATE ' . $this->orders . ' SET claim_token = ?, claim_action = ?, claim_code = ?, claim_until = ?'
            . ' WHERE order_id = ? AND (claim_token IS NULL OR claim_until <= ?)',
            [$claim->token, $action, $transactionCode, $claim->until, $orderId, $now]
        ) === 1;
        if (!$won) {
            return null;
        }
        // A takeover only when the claim read before had run out: a holder that let go between
        // that read and the UPDATE finished its work, and was not interrupted.
        if (($before['claim_until'] ?? null) !== null && (int) $before['claim_until'] <= $now) {
            $claim->tookOver = trim((string) $before['claim_action'] . ' ' . (string) $before['claim_code']);
        }
        return $claim;
    }

    /** claim(), waiting up to $waitSeconds for a run that holds the order to let it go. */
    public function claimWaiting(string $orderId, string $action, string $transactionCode, int $waitSeconds, Clock $clock): ?Claim
    {
        $deadline = $clock->now() + $waitSeconds;
        while (true) {
            $claim = $this->claim($orderId, $action, $transactionCode, $clock->now());
            if ($claim !== null || $clock->now() >= $deadline) {
                return $claim;
            }
            $clock->sleep(self::CLAIM_RETRY_MICROSECONDS);
        }
    }

    /** Lets the order go, if this claim still holds it (a run past its lease may have been replaced). */
    public function release(Claim $claim): void
    {
        $this->sql->execute(
            'UPDATE ' . $this->orders . ' SET claim_token = NULL, claim_action = NULL, claim_code = NULL, claim_until = NULL WHERE order_id = ? AND claim_token = ?',
            [$claim->orderId, $claim->token]
        );
    }

    /** True while a live claim holds the order. */
    public function isClaimed(string $orderId, int $now): bool
    {
        $rows = $this->sql->select('SELECT claim_until FROM ' . $this->orders . ' WHERE order_id = ? AND claim_token IS NOT NULL', [$orderId]);
        return $rows !== [] && (int) $rows[0]['claim_until'] > $now;
    }

    /**
     * The checkouts the scheduled poll looks at, in the policy's order (PollPolicy): one query that
     * filters before its LIMIT, so a backlog of old checkouts never hides a due one.
     *
     * @return list<array{0: string, 1: string}> [order id, transaction code]
     */
    public function due(PollPolicy $policy, int $now): array
    {
        $open = $policy->openCheckedBefore($now);
        $late = $policy->lateCheckedBefore($now);
        $rows = $this->sql->select(
            'SELECT order_id, transaction_code FROM ' . $this->checkouts
            . ' WHERE watch_until >= ? AND ('
            . '(resolution IS NULL AND (checked_at IS NULL OR checked_at <= ?'
            . ' OR (checked_at <= ? AND (expires_at IS NULL OR expires_at > ?))'
            . ' OR (checked_at < expires_at AND expires_at <= ?)))'
            . ' OR (resolution = ? AND confirmed_at IS NULL AND (checked_at IS NULL OR checked_at <= ?)))'
            . ' ORDER BY checked_at IS NOT NULL, checked_at ASC, created_at DESC, ordinal DESC LIMIT ' . $policy->batchSize,
            [$now, $late, $open, $now, $now, StoredCheckout::RESOLUTION_BOOKED, $open]
        );
        return array_map(static function (array $row): array {
            return [(string) $row['order_id'], (string) $row['transaction_code']];
        }, $rows);
    }

    /**
     * Takes in checkouts an earlier plugin version stored elsewhere (LegacyRecords makes them);
     * one already in the ledger is left as it is, so a migration interrupted half-way can run
     * again, and two requests importing the same order at once agree: every listed checkout takes
     * the next ordinal whether it is added or found, so the order's checkouts keep their order.
     *
     * @param list<StoredCheckout> $checkouts oldest first
     * @return int how many were added
     */
    public function import(string $orderId, array $checkouts, ?string $recordedState): int
    {
        $added = 0;
        $ordinal = (int) ($this->sql->select('SELECT MAX(ordinal) AS last FROM ' . $this->checkouts . ' WHERE order_id = ?', [$orderId])[0]['last'] ?? 0);
        foreach ($checkouts as $checkout) {
            $checkout->ordinal = ++$ordinal;
            if ($this->orderOf($checkout->transactionCode) === null) {
                $added += $this->insertCheckout($orderId, $checkout, 'INSERT IGNORE');
            }
        }
        if ($recordedState !== null && $this->recordedState($orderId) === null) {
            $this->recordState($orderId, $recordedState);
        }
        return $added;
    }

    /** A kernel state value, or null when missing or expired. */
    public function value(string $key, int $now): ?string
    {
        $rows = $this->sql->select('SELECT state_value, expires_at FROM ' . $this->state . ' WHERE state_key = ?', [$key]);
        if ($rows === [] || ((int) $rows[0]['expires_at'] > 0 && (int) $rows[0]['expires_at'] <= $now)) {
            return null;
        }
        return $rows[0]['state_value'] === null ? null : (string) $rows[0]['state_value'];
    }

    /** Stores a kernel state value; $expiresAt 0 keeps it for good. */
    public function putValue(string $key, string $value, int $expiresAt = 0): void
    {
        $this->sql->execute('INSERT IGNORE INTO ' . $this->state . ' (state_key, state_value, expires_at) VALUES (?, ?, ?)', [$key, $value, $expiresAt]);
        $this->sql->execute('UPDATE ' . $this->state . ' SET state_value = ?, expires_at = ?, counter = 0 WHERE state_key = ?', [$value, $expiresAt, $key]);
    }

    /** Stores $value under $key unless a value is there; returns the stored value either way. */
    public function valueOnce(string $key, string $value): string
    {
        $this->sql->execute('INSERT IGNORE INTO ' . $this->state . ' (state_key, state_value) VALUES (?, ?)', [$key, $value]);
        return (string) $this->value($key, 0);
    }

    /**
     * Counts one more under $key (kept until $expiresAt) unless it reached $limit: true when
     * counted. Exact under concurrency: the increment is conditional on the count.
     */
    public function countUpTo(string $key, int $limit, int $expiresAt): bool
    {
        $this->sql->execute('INSERT IGNORE INTO ' . $this->state . ' (state_key, counter, expires_at) VALUES (?, 0, ?)', [$key, $expiresAt]);
        return $this->sql->execute('UPDATE ' . $this->state . ' SET counter = counter + 1 WHERE state_key = ? AND counter < ?', [$key, $limit]) === 1;
    }

    /** Removes kernel state values that expired (throttle windows, cached probes). */
    public function forgetExpired(int $now): int
    {
        return $this->sql->execute('DELETE FROM ' . $this->state . ' WHERE expires_at > 0 AND expires_at <= ?', [$now]);
    }

    private function ensureOrderRow(string $orderId): void
    {
        $this->sql->execute('INSERT IGNORE INTO ' . $this->orders . ' (order_id) VALUES (?)', [$orderId]);
    }

    /** @return int rows added */
    private function insertCheckout(string $orderId, StoredCheckout $checkout, string $verb): int
    {
        $this->ensureOrderRow($orderId);
        $values = $checkout->toArray();
        $parameters = [$orderId];
        foreach (self::CHECKOUT_COLUMNS as $column) {
            $parameters[] = $values[$column];
        }
        return $this->sql->execute(
            $verb . ' INTO ' . $this->checkouts . ' (order_id, ' . implode(', ', self::CHECKOUT_COLUMNS) . ') VALUES ('
            . implode(', ', array_fill(0, count($parameters), '?')) . ')',
            $parameters
        );
    }
}
