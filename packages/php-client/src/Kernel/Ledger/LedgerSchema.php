<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel\Ledger;

/**
 * The ledger's four tables, in MySQL/MariaDB (every platform's database). Created with
 * CREATE TABLE IF NOT EXISTS, so any number of requests may install at once. Times are Unix
 * seconds in BIGINT columns: they mean the same whatever the shop's or the database's time zone.
 *
 * - checkouts: every checkout of every order, found by its transaction code (the primary key);
 *   its terms, the last check, and what the kernel applied (StoredCheckout).
 * - orders: one row per order the kernel has touched: the claim (token and lease end, written only
 *   by compare-and-swap) and the state the kernel last moved the order to.
 * - state: the kernel's own small records: schema version, throttle counters, the service probe's
 *   cache, the last verified webhook.
 * - refunds (schema 2): every refund the kernel started, found by the service's refund id; what the
 *   service last said of it and what the kernel did about it (RefundRecord).
 */
final class LedgerSchema
{
    /**
     * Bumped when a table changes; Ledger::install() brings older tables up to date. 2: the
     * refunds table.
     */
    public const VERSION = 2;

    public const CHECKOUTS = 'cryptocheckout_checkouts';
    public const ORDERS = 'cryptocheckout_orders';
    public const STATE = 'cryptocheckout_state';
    public const REFUNDS = 'cryptocheckout_refunds';

    private function __construct()
    {
    }

    /** @return list<string> the CREATE TABLE statements, for the port's table names */
    public static function statements(SqlPort $sql): array
    {
        $checkouts = $sql->table(self::CHECKOUTS);
        $orders = $sql->table(self::ORDERS);
        $state = $sql->table(self::STATE);
        $refunds = $sql->table(self::REFUNDS);
        $options = ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4';
        return [
            'CREATE TABLE IF NOT EXISTS ' . $checkouts . ' (
                transaction_code VARCHAR(64) NOT NULL,
                order_id VARCHAR(64) NOT NULL,
                ordinal INT NOT NULL,
                checkout_url VARCHAR(2048) NOT NULL,
                service_url VARCHAR(2048) NOT NULL,
                fiat_amount VARCHAR(32) NOT NULL,
                fiat_currency VARCHAR(3) NOT NULL,
                order_amount VARCHAR(32) NULL,
                order_currency VARCHAR(3) NULL,
                wallet_address VARCHAR(128) NOT NULL,
                wallet_currency VARCHAR(16) NOT NULL,
                wallet_network VARCHAR(16) NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NULL,
                watch_until BIGINT NOT NULL,
                checked_at BIGINT NULL,
                last_status VARCHAR(32) NULL,
                received_usd VARCHAR(40) NULL,
                applied_action VARCHAR(32) NULL,
                resolution VARCHAR(16) NULL,
                notified VARCHAR(96) NULL,
                confirmed_at BIGINT NULL,
                PRIMARY KEY (transaction_code),
                KEY ' . $checkouts . '_order (order_id, ordinal),
                KEY ' . $checkouts . '_due (resolution, watch_until)
            )' . $options,
            'CREATE TABLE IF NOT EXISTS ' . $orders . ' (
                order_id VARCHAR(64) NOT NULL,
                recorded_state VARCHAR(32) NULL,
                claim_token VARCHAR(32) NULL,
                claim_action VARCHAR(32) NULL,
                claim_code VARCHAR(64) NULL,
                claim_until BIGINT NULL,
                PRIMARY KEY (order_id)
            )' . $options,
            'CREATE TABLE IF NOT EXISTS ' . $state . ' (
                state_key VARCHAR(191) NOT NULL,
                state_value TEXT NULL,
                counter INT NOT NULL DEFAULT 0,
                expires_at BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (state_key)
            )' . $options,
            'CREATE TABLE IF NOT EXISTS ' . $refunds . ' (
                refund_id VARCHAR(64) NOT NULL,
                order_id VARCHAR(64) NOT NULL,
                transaction_code VARCHAR(64) NOT NULL,
                platform_refund_id VARCHAR(64) NULL,
                service_url VARCHAR(2048) NOT NULL,
                amount VARCHAR(40) NOT NULL,
                asset VARCHAR(16) NOT NULL,
                network VARCHAR(16) NOT NULL,
                fiat_amount VARCHAR(40) NULL,
                fiat_currency VARCHAR(10) NOT NULL,
                status VARCHAR(24) NOT NULL,
                claim_url VARCHAR(2048) NULL,
                address VARCHAR(128) NULL,
                payment_request_text TEXT NULL,
                payment_request_uri TEXT NULL,
                tx_id VARCHAR(128) NULL,
                tx_url VARCHAR(2048) NULL,
                created_at BIGINT NOT NULL,
                checked_at BIGINT NULL,
                claim_sent_at BIGINT NULL,
                recorded_at BIGINT NULL,
                noticed_status VARCHAR(24) NULL,
                PRIMARY KEY (refund_id),
                KEY ' . $refunds . '_order (order_id, created_at),
                KEY ' . $refunds . '_open (status, checked_at)
            )' . $options,
        ];
    }

    /** @return list<string> the tables, for the port's names */
    public static function tables(SqlPort $sql): array
    {
        return [$sql->table(self::CHECKOUTS), $sql->table(self::ORDERS), $sql->table(self::STATE), $sql->table(self::REFUNDS)];
    }
}
