<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\StoredCheckout;

/**
 * The module's two tables. cryptocheckout_checkout keeps every checkout created for an order (a
 * replaced checkout stays payable at the service, so it is kept and watched too), found by its
 * transaction code (unique); its id_checkout only orders two checkouts created in the same second.
 * cryptocheckout_claim holds each order's claim marker, written only by
 * compare-and-swap. Times are Unix seconds, so they mean the same whatever the shop's time zone.
 */
final class CheckoutRepository
{
    public const TABLE = 'cryptocheckout_checkout';
    public const CLAIM_TABLE = 'cryptocheckout_claim';
    /** The one-row-per-order table of versions before 1.1.0. */
    public const LEGACY_TABLE = 'cryptocheckout_transaction';

    /** The columns recordCheck() writes; recordApplied() writes only applied_action and resolution. */
    private const CHECK_FIELDS = ['expires_at', 'watch_until', 'checked_at', 'last_status', 'received_usd'];

    /** The legacy table's per-order state, as the kernel would have recorded it. */
    private const LEGACY_APPLIED = [
        'awaiting_payment' => [null, null],
        'underpaid' => ['hold_underpaid', null],
        'cancelled' => ['cancel_expired', null],
        'paid' => ['mark_paid', StoredCheckout::RESOLUTION_BOOKED],
        'late_payment_review' => ['hold_late_payment', StoredCheckout::RESOLUTION_FLAGGED],
    ];

    /** @var \Db */
    private $db;

    public function __construct(?\Db $db = null)
    {
        $this->db = $db ?? \Db::getInstance();
    }

    public static function table(string $name = self::TABLE): string
    {
        return _DB_PREFIX_ . $name;
    }

    public function install(): bool
    {
        return $this->db->execute(
            'CREATE TABLE IF NOT EXISTS `' . self::table() . '` (
                `id_checkout` INT(10) UNSIGNED NOT NULL AUTO_INCREMENT,
                `transaction_code` VARCHAR(64) NOT NULL,
                `id_order` INT(10) UNSIGNED NOT NULL,
                `checkout_url` VARCHAR(2048) NOT NULL,
                `service_url` VARCHAR(2048) NOT NULL,
                `fiat_amount` VARCHAR(32) NOT NULL,
                `fiat_currency` VARCHAR(3) NOT NULL,
                `wallet_address` VARCHAR(128) NOT NULL,
                `wallet_currency` VARCHAR(16) NOT NULL,
                `wallet_network` VARCHAR(16) NOT NULL,
                `created_at` INT(10) UNSIGNED NOT NULL,
                `expires_at` INT(10) UNSIGNED NULL,
                `watch_until` INT(10) UNSIGNED NOT NULL,
                `checked_at` INT(10) UNSIGNED NULL,
                `last_status` VARCHAR(32) NULL,
                `received_usd` VARCHAR(32) NULL,
                `applied_action` VARCHAR(32) NULL,
                `resolution` VARCHAR(16) NULL,
                PRIMARY KEY (`id_checkout`),
                UNIQUE KEY `cryptocheckout_checkout_code` (`transaction_code`),
                KEY `cryptocheckout_checkout_order` (`id_order`),
                KEY `cryptocheckout_checkout_due` (`resolution`, `watch_until`)
            ) ENGINE=' . _MYSQL_ENGINE_ . ' DEFAULT CHARSET=utf8mb4'
        ) && $this->db->execute(
            'CREATE TABLE IF NOT EXISTS `' . self::table(self::CLAIM_TABLE) . '` (
                `id_order` INT(10) UNSIGNED NOT NULL,
                `claim` VARCHAR(128) NULL,
                PRIMARY KEY (`id_order`)
            ) ENGINE=' . _MYSQL_ENGINE_ . ' DEFAULT CHARSET=utf8mb4'
        );
    }

    public function uninstall(): bool
    {
        $ok = true;
        foreach ([self::TABLE, self::CLAIM_TABLE, self::LEGACY_TABLE] as $name) {
            $ok = $this->db->execute('DROP TABLE IF EXISTS `' . self::table($name) . '`') && $ok;
        }

        return $ok;
    }

    /**
     * Moves the rows of the pre-1.1.0 table over: each order's checkout with its terms, its last
     * check and what was applied to it. The old table is dropped only once every row that held a
     * checkout is found in the new one. A row without a transaction code never reached the service
     * (it was down when the order was placed): there is no checkout to keep, and the order's retry
     * link creates one as before.
     *
     * @param string $serviceUrl the configured service, where every checkout of those versions was created
     * @return int how many checkouts were carried over
     * @throws \RuntimeException when a row could not be moved; the old table is then left in place
     */
    public function migrateLegacyTable(string $serviceUrl, int $now): int
    {
        $legacy = self::table(self::LEGACY_TABLE);
        if (!$this->db->executeS("SHOW TABLES LIKE '" . pSQL($legacy) . "'")) {
            return 0;
        }
        $rows = $this->db->executeS('SELECT * FROM `' . $legacy . '` WHERE `transaction_code` IS NOT NULL AND `transaction_code` <> \'\'');
        foreach (is_array($rows) ? $rows : [] as $row) {
            $createdAt = self::legacyTime($row['date_add']) ?? $now;
            [$applied, $resolution] = self::LEGACY_APPLIED[(string) $row['state']] ?? [null, null];
            $checkout = StoredCheckout::fromArray([
                'transaction_code' => $row['transaction_code'],
                'checkout_url' => $row['checkout_url'],
                'service_url' => $serviceUrl,
                'fiat_amount' => $row['fiat_amount'],
                'fiat_currency' => $row['fiat_currency'],
                'wallet_address' => $row['wallet_address'],
                'wallet_currency' => $row['wallet_currency'],
                'wallet_network' => $row['wallet_network'],
                'created_at' => $createdAt,
                'checked_at' => self::legacyTime($row['last_checked']),
                'last_status' => $row['last_status'],
                'applied_action' => $applied,
                'resolution' => $resolution,
            ]);
            if ($resolution === null) {
                // Those versions did not keep the expiry: the poll gets at least one look, and the
                // lookup brings the real expiry and watch window.
                $checkout->watchUntil = max($checkout->watchUntil, $now + StoredCheckout::WATCH_MARGIN_SECONDS);
            }
            $this->insert((int) $row['id_order'], $checkout, \Db::INSERT_IGNORE);
        }
        $missing = (int) $this->db->getValue(
            'SELECT COUNT(*) FROM `' . $legacy . '` l LEFT JOIN `' . self::table() . '` c ON c.`transaction_code` = LOWER(l.`transaction_code`)'
            . ' WHERE l.`transaction_code` IS NOT NULL AND l.`transaction_code` <> \'\' AND c.`transaction_code` IS NULL',
            false
        );
        if ($missing > 0) {
            throw new \RuntimeException(sprintf('%d checkouts of %s could not be copied to %s; the old table is kept.', $missing, $legacy, self::table()));
        }
        $this->db->execute('DROP TABLE `' . $legacy . '`');

        return is_array($rows) ? count($rows) : 0;
    }

    /** The order holding a checkout with this transaction code, or null. */
    public function findOrder(string $transactionCode): ?int
    {
        $id = $this->db->getValue(
            'SELECT `id_order` FROM `' . self::table() . "` WHERE `transaction_code` = '" . pSQL(strtolower(trim($transactionCode))) . "'",
            false
        );

        return $id === false || $id === null ? null : (int) $id;
    }

    /** @return list<StoredCheckout> newest first */
    public function checkouts(int $idOrder): array
    {
        $rows = $this->db->executeS(
            'SELECT * FROM `' . self::table() . '` WHERE `id_order` = ' . (int) $idOrder . ' ORDER BY `created_at` DESC, `id_checkout` DESC',
            true,
            false
        );

        return array_map([StoredCheckout::class, 'fromArray'], is_array($rows) ? $rows : []);
    }

    public function add(int $idOrder, StoredCheckout $checkout): void
    {
        $this->insert($idOrder, $checkout, \Db::INSERT);
    }

    public function recordCheck(int $idOrder, StoredCheckout $checkout): void
    {
        $this->updateFields($idOrder, $checkout, self::CHECK_FIELDS);
    }

    public function recordApplied(int $idOrder, StoredCheckout $checkout): void
    {
        $this->updateFields($idOrder, $checkout, ['applied_action', 'resolution']);
    }

    public function readClaim(int $idOrder): ?string
    {
        $claim = $this->db->getValue('SELECT `claim` FROM `' . self::table(self::CLAIM_TABLE) . '` WHERE `id_order` = ' . (int) $idOrder, false);

        return is_string($claim) && $claim !== '' ? $claim : null;
    }

    /**
     * One conditional write, so among racing requests exactly one sees its swap succeed (the
     * database reports one changed row to it, none to the others).
     */
    public function swapClaim(int $idOrder, ?string $expected, ?string $replacement): bool
    {
        $table = self::table(self::CLAIM_TABLE);
        $value = $replacement === null ? 'NULL' : "'" . pSQL($replacement) . "'";
        if ($expected === null) {
            // The order's first claim: the row is created by the swap itself.
            $this->db->execute('INSERT IGNORE INTO `' . $table . '` (`id_order`, `claim`) VALUES (' . (int) $idOrder . ', ' . $value . ')');
            if ($this->db->Affected_Rows() === 1) {
                return true;
            }
            $condition = '`claim` IS NULL';
        } else {
            $condition = "`claim` = '" . pSQL($expected) . "'";
        }
        $this->db->execute('UPDATE `' . $table . '` SET `claim` = ' . $value . ' WHERE `id_order` = ' . (int) $idOrder . ' AND ' . $condition);

        return $this->db->Affected_Rows() === 1;
    }

    /**
     * The checkouts the poll should look at, in the policy's order: one query that filters before
     * its LIMIT (PollPolicy), so a backlog of old checkouts never hides a due one.
     *
     * @return list<array{0: string, 1: string}> [order id, transaction code]
     */
    public function due(PollPolicy $policy, int $now): array
    {
        $rows = $this->db->executeS(
            'SELECT `id_order`, `transaction_code` FROM `' . self::table() . '`'
            . ' WHERE `resolution` IS NULL AND `watch_until` >= ' . $now
            . ' AND (`checked_at` IS NULL'
            . ' OR (`checked_at` <= ' . $policy->openCheckedBefore($now) . ' AND (`expires_at` IS NULL OR `expires_at` > ' . $now . '))'
            . ' OR `checked_at` <= ' . $policy->lateCheckedBefore($now) . ')'
            . ' ORDER BY `checked_at` IS NOT NULL, `checked_at` ASC, `created_at` DESC'
            . ' LIMIT ' . (int) $policy->batchSize,
            true,
            false
        );
        $due = [];
        foreach (is_array($rows) ? $rows : [] as $row) {
            $due[] = [(string) $row['id_order'], (string) $row['transaction_code']];
        }

        return $due;
    }

    private function insert(int $idOrder, StoredCheckout $checkout, int $type): void
    {
        $row = ['id_order' => $idOrder];
        foreach ($checkout->toArray() as $field => $value) {
            $row[$field] = self::sqlValue($value);
        }
        if (!$this->db->insert(self::TABLE, $row, false, false, $type)) {
            throw new \RuntimeException('The checkout ' . $checkout->transactionCode . ' could not be stored.');
        }
    }

    /** @param list<string> $fields */
    private function updateFields(int $idOrder, StoredCheckout $checkout, array $fields): void
    {
        $values = $checkout->toArray();
        $row = [];
        foreach ($fields as $field) {
            $row[$field] = self::sqlValue($values[$field]);
        }
        $this->db->update(
            self::TABLE,
            $row,
            '`id_order` = ' . (int) $idOrder . " AND `transaction_code` = '" . pSQL($checkout->transactionCode) . "'",
            0,
            false,
            false
        );
    }

    /**
     * A value for Db::insert()/update(): null as SQL NULL (their $null_values would also turn an
     * empty string into NULL), anything else escaped.
     *
     * @param string|int|null $value
     * @return string|array{type: string, value: string}
     */
    private static function sqlValue($value)
    {
        return $value === null ? ['type' => 'sql', 'value' => 'NULL'] : pSQL((string) $value);
    }

    /** A DATETIME the old table wrote with date(), in the shop's time zone. */
    private static function legacyTime($value): ?int
    {
        if (!is_string($value) || $value === '' || strpos($value, '0000-00-00') === 0) {
            return null;
        }
        $time = strtotime($value);

        return $time === false ? null : $time;
    }
}
