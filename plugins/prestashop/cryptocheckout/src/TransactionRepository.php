<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

/**
 * The module table: one row per order paid with Crypto Checkout, holding what was sent when the
 * checkout was created (amount, currency, wallet) and the order's reconciliation state. State
 * changes are conditional updates, so among racing webhooks, polls and return visits exactly one
 * request wins each transition.
 */
final class TransactionRepository
{
    public const TABLE = 'cryptocheckout_transaction';

    public const STATE_AWAITING = 'awaiting_payment';
    public const STATE_UNDERPAID = 'underpaid';
    public const STATE_LATE_REVIEW = 'late_payment_review';
    public const STATE_PAID = 'paid';
    public const STATE_CANCELLED = 'cancelled';

    /** States in which the service may still report news about the order. */
    public const OPEN_STATES = [self::STATE_AWAITING, self::STATE_UNDERPAID];

    /** @var \Db */
    private $db;

    public function __construct(?\Db $db = null)
    {
        $this->db = $db ?? \Db::getInstance();
    }

    public static function table(): string
    {
        return _DB_PREFIX_ . self::TABLE;
    }

    public function install(): bool
    {
        return $this->db->execute(
            'CREATE TABLE IF NOT EXISTS `' . self::table() . '` (
                `id_order` INT(10) UNSIGNED NOT NULL,
                `id_cart` INT(10) UNSIGNED NOT NULL,
                `transaction_code` VARCHAR(64) NULL,
                `checkout_url` VARCHAR(2048) NULL,
                `fiat_amount` VARCHAR(32) NOT NULL,
                `fiat_currency` VARCHAR(3) NOT NULL,
                `wallet_address` VARCHAR(128) NOT NULL,
                `wallet_currency` VARCHAR(16) NOT NULL,
                `wallet_network` VARCHAR(16) NOT NULL,
                `state` VARCHAR(32) NOT NULL DEFAULT \'awaiting_payment\',
                `last_status` VARCHAR(32) NULL,
                `last_checked` DATETIME NULL,
                `date_add` DATETIME NOT NULL,
                `date_upd` DATETIME NOT NULL,
                PRIMARY KEY (`id_order`),
                UNIQUE KEY `cryptocheckout_code` (`transaction_code`),
                KEY `cryptocheckout_state` (`state`)
            ) ENGINE=' . _MYSQL_ENGINE_ . ' DEFAULT CHARSET=utf8mb4'
        );
    }

    public function uninstall(): bool
    {
        return $this->db->execute('DROP TABLE IF EXISTS `' . self::table() . '`');
    }

    /** @return array<string, string|null>|null */
    public function findByOrder(int $idOrder): ?array
    {
        $row = $this->db->getRow('SELECT * FROM `' . self::table() . '` WHERE `id_order` = ' . (int) $idOrder);

        return is_array($row) ? $row : null;
    }

    /** @return array<string, string|null>|null */
    public function findByTransactionCode(string $code): ?array
    {
        $row = $this->db->getRow('SELECT * FROM `' . self::table() . "` WHERE `transaction_code` = '" . pSQL($code) . "'");

        return is_array($row) ? $row : null;
    }

    /**
     * Keeps what the checkout will be created with. Does nothing when the order already has a row.
     *
     * @param array{wallet_address: string, crypto_currency: string, crypto_currency_network: string} $wallet
     */
    public function createForOrder(int $idOrder, int $idCart, string $fiatAmount, string $fiatCurrency, array $wallet): void
    {
        $now = date('Y-m-d H:i:s');
        $this->db->insert(self::TABLE, [
            'id_order' => (int) $idOrder,
            'id_cart' => (int) $idCart,
            'fiat_amount' => pSQL($fiatAmount),
            'fiat_currency' => pSQL($fiatCurrency),
            'wallet_address' => pSQL($wallet['wallet_address']),
            'wallet_currency' => pSQL($wallet['crypto_currency']),
            'wallet_network' => pSQL($wallet['crypto_currency_network']),
            'state' => self::STATE_AWAITING,
            'date_add' => $now,
            'date_upd' => $now,
        ], false, true, \Db::INSERT_IGNORE);
    }

    /** Stores the created checkout unless the order already has one; true when this call stored it. */
    public function attachCheckout(int $idOrder, string $code, string $checkoutUrl): bool
    {
        $this->db->update(self::TABLE, [
            'transaction_code' => pSQL($code),
            'checkout_url' => pSQL($checkoutUrl),
            'date_upd' => date('Y-m-d H:i:s'),
        ], '`id_order` = ' . (int) $idOrder . ' AND `transaction_code` IS NULL');

        return $this->db->Affected_Rows() === 1;
    }

    /**
     * Moves the order from $from to $to only if it is still in $from. True for exactly one caller
     * per transition, however many requests race for it.
     */
    public function claimTransition(int $idOrder, string $from, string $to): bool
    {
        $this->db->update(self::TABLE, [
            'state' => pSQL($to),
            'date_upd' => date('Y-m-d H:i:s'),
        ], '`id_order` = ' . (int) $idOrder . " AND `state` = '" . pSQL($from) . "'");

        return $this->db->Affected_Rows() === 1;
    }

    public function recordCheck(int $idOrder, ?string $status): void
    {
        $this->db->update(self::TABLE, [
            'last_status' => $status === null ? null : pSQL($status),
            'last_checked' => date('Y-m-d H:i:s'),
        ], '`id_order` = ' . (int) $idOrder, 0, true);
    }

    /**
     * Orders the scheduled poll looks at: open ones, and cancelled ones recent enough for a late
     * payment to still arrive; the least recently checked first.
     *
     * @return list<int>
     */
    public function findOrdersToPoll(int $limit, int $lateWindowHours = 48): array
    {
        $since = date('Y-m-d H:i:s', time() - $lateWindowHours * 3600);
        $rows = $this->db->executeS(
            'SELECT `id_order` FROM `' . self::table() . '` WHERE `transaction_code` IS NOT NULL AND ('
            . "`state` IN ('" . implode("', '", self::OPEN_STATES) . "')"
            . " OR (`state` = '" . self::STATE_CANCELLED . "' AND `date_add` >= '" . pSQL($since) . "')"
            . ') ORDER BY `last_checked` IS NOT NULL, `last_checked` ASC, `id_order` ASC LIMIT ' . max(1, (int) $limit)
        );

        return array_map('intval', array_column(is_array($rows) ? $rows : [], 'id_order'));
    }
}
