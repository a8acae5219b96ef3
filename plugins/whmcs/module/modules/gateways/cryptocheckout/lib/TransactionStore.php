<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\StoredCheckout;
use WHMCS\Database\Capsule;

/**
 * The module's own tables, through WHMCS's database layer: mod_cryptocheckout_transactions (every
 * checkout of every invoice, several per invoice over time) and mod_cryptocheckout_settings (the
 * signing key, the schema version and the per-invoice claim markers). Created on first use, and
 * brought up to date on first use after an upgrade; many requests doing that at once is expected
 * (WHMCS serves many at a time), so "already exists" is caught and the table checked again, and a
 * step that fails while another request holds the database is tried again.
 *
 * Times are stored as "Y-m-d H:i:s" in UTC, so that they compare as text the same way in MySQL
 * and SQLite (the poll's query filters and orders on them).
 */
final class TransactionStore
{
    public const TABLE = 'mod_cryptocheckout_transactions';
    public const SETTINGS_TABLE = 'mod_cryptocheckout_settings';

    /** Bumped whenever a column is added; rows of older installs are completed once. */
    public const SCHEMA_VERSION = '2';

    /** Columns added in schema version 2 (the kernel's StoredCheckout fields and the owner-note marker). */
    private const ADDED_COLUMNS = ['service_url', 'watch_until', 'last_status', 'received_usd', 'applied_action', 'resolution', 'notified_action'];

    /** @var bool */
    private static $ready = false;

    /** Attempts at bringing the schema up to date while other requests do the same. */
    private const SCHEMA_ATTEMPTS = 5;

    public function __construct()
    {
        if (!self::$ready) {
            $this->ensureSchemaAlongsideOthers();
            self::$ready = true;
        }
    }

    /**
     * The first requests after an install or upgrade all find the schema missing and change it at
     * once. Every step tolerates another request having done it; a step that fails because another
     * request is half-way through (its table there but not yet its settings, a lock held by its
     * DDL) is tried again once that request has had time to finish.
     */
    private function ensureSchemaAlongsideOthers(): void
    {
        for ($attempt = 1; ; $attempt++) {
            try {
                $this->ensureSchema();
                return;
            } catch (\Exception $exception) {
                if ($attempt >= self::SCHEMA_ATTEMPTS) {
                    throw $exception;
                }
                usleep(random_int(50000, 150000) * $attempt);
            }
        }
    }

    private function ensureSchema(): void
    {
        $schema = Capsule::schema();
        // The settings table first, so whoever sees the checkouts table also finds where its version
        // goes; in one statement with its key, because the schema builder adds keys afterwards, and a
        // request inserting in between would leave the claims without the key that makes them atomic.
        if (!$schema->hasTable(self::SETTINGS_TABLE)) {
            Capsule::connection()->statement(sprintf(
                'CREATE TABLE IF NOT EXISTS %1$s (setting VARCHAR(64) NOT NULL, value TEXT NOT NULL, CONSTRAINT %1$s_setting_unique UNIQUE (setting))',
                self::SETTINGS_TABLE
            ));
        }
        $created = false;
        if (!$schema->hasTable(self::TABLE)) {
            $created = $this->createTable(self::TABLE, static function ($table): void {
                $table->increments('id');
                $table->integer('invoice_id')->index();
                $table->string('transaction_code', 64)->unique();
                $table->string('checkout_url', 2048);
                $table->string('fiat_amount', 32);
                $table->string('fiat_currency', 3);
                $table->string('invoice_amount', 32);
                $table->string('invoice_currency', 3);
                $table->string('wallet_address', 128);
                $table->string('wallet_currency', 16);
                $table->string('wallet_network', 16);
                // The order state recorded for this checkout (awaiting_payment, underpaid, cancelled, late_payment_review, paid).
                $table->string('state', 32)->index();
                $table->text('note')->nullable();
                $table->string('expires_at', 32)->nullable();
                $table->string('checked_at', 32)->nullable();
                $table->string('created_at', 32);
                $table->string('updated_at', 32);
                self::addedColumns($table, self::ADDED_COLUMNS);
            });
        }
        if ($created) {
            $this->putSetting('schema_version', self::SCHEMA_VERSION);
        } elseif ($this->setting('schema_version') !== self::SCHEMA_VERSION) {
            $this->upgrade();
        }
    }

    /** @return bool true when this request created it */
    private function createTable(string $name, \Closure $columns): bool
    {
        try {
            Capsule::schema()->create($name, $columns);
            return true;
        } catch (\Exception $exception) {
            // Only "already exists" means another request created it; a failure after this request's
            // own CREATE TABLE (adding a key) must not pass for that.
            if (self::isAlreadyExists($exception) && Capsule::schema()->hasTable($name)) {
                return false;
            }
            throw $exception;
        }
    }

    /** MySQL's SQLSTATE 42S01, or SQLite's "table … already exists". */
    private static function isAlreadyExists(\Exception $exception): bool
    {
        return (string) $exception->getCode() === '42S01' || stripos($exception->getMessage(), 'already exists') !== false;
    }

    /** Adds what installs from before the kernel lack, and completes their rows. */
    private function upgrade(): void
    {
        $schema = Capsule::schema();
        foreach (self::ADDED_COLUMNS as $column) {
            if ($schema->hasColumn(self::TABLE, $column)) {
                continue;
            }
            try {
                $schema->table(self::TABLE, static function ($table) use ($column): void {
                    self::addedColumns($table, [$column]);
                });
            } catch (\Exception $exception) {
                if (!$schema->hasColumn(self::TABLE, $column)) {
                    throw $exception;
                }
            }
        }
        // Rows written before: the expiry as the service sent it (ISO 8601), no watch deadline, and
        // an outcome that lived in "state". Idempotent, so two requests doing it at once agree.
        foreach (Capsule::table(self::TABLE)->whereNull('watch_until')->get() as $row) {
            $expiresAt = StoredCheckout::parseTime($row->expires_at) ?? (StoredCheckout::parseTime($row->created_at) ?? time()) + StoredCheckout::DEFAULT_EXPIRY_SECONDS;
            $values = ['expires_at' => self::time($expiresAt), 'watch_until' => self::time(StoredCheckout::watchDeadline($expiresAt))];
            if ((string) $row->state === 'paid') {
                $values += ['applied_action' => 'mark_paid', 'resolution' => StoredCheckout::RESOLUTION_BOOKED];
            } elseif ((string) $row->state === 'late_payment_review') {
                $values += ['applied_action' => 'hold_late_payment', 'resolution' => StoredCheckout::RESOLUTION_FLAGGED, 'notified_action' => 'hold_late_payment'];
            }
            Capsule::table(self::TABLE)->where('id', (int) $row->id)->whereNull('watch_until')->update($values);
        }
        $this->putSetting('schema_version', self::SCHEMA_VERSION);
    }

    /**
     * @param object $table the schema blueprint
     * @param list<string> $columns
     */
    private static function addedColumns($table, array $columns): void
    {
        $lengths = ['service_url' => 2048, 'watch_until' => 32, 'last_status' => 32, 'received_usd' => 40, 'applied_action' => 32, 'resolution' => 16, 'notified_action' => 32];
        foreach ($columns as $column) {
            $definition = $table->string($column, $lengths[$column])->nullable();
            if ($column === 'watch_until') {
                $definition->index();
            }
        }
    }

    /** @return list<object> the invoice's checkouts, newest first */
    public function forInvoice(int $invoiceId): array
    {
        return Capsule::table(self::TABLE)->where('invoice_id', $invoiceId)->orderBy('created_at', 'desc')->orderBy('id', 'desc')->get()->all();
    }

    /** @return object|null */
    public function findByCode(string $code)
    {
        return Capsule::table(self::TABLE)->where('transaction_code', strtolower(trim($code)))->first();
    }

    /** @param array<string, mixed> $row */
    public function insert(array $row): void
    {
        $now = self::time(time());
        Capsule::table(self::TABLE)->insert($row + ['note' => null, 'created_at' => $now, 'updated_at' => $now]);
    }

    /**
     * Updates one checkout's row; with $unless, only while $column holds something else, so that
     * of several requests making the same change exactly one sees it happen.
     *
     * @param array<string, mixed> $values
     * @return bool true when the row changed
     */
    public function update(string $code, array $values, ?string $column = null, ?string $unless = null): bool
    {
        $query = Capsule::table(self::TABLE)->where('transaction_code', strtolower($code));
        if ($column !== null) {
            $query->where(static function ($where) use ($column, $unless): void {
                $where->whereNull($column)->orWhere($column, '<>', (string) $unless);
            });
        }
        return $query->update($values + ['updated_at' => self::time(time())]) > 0;
    }

    /**
     * Checkouts the poll should look at (see PollPolicy): the filter is part of the query, so old
     * checkouts never crowd out newer ones.
     *
     * @return list<object>
     */
    public function due(int $now, int $openCheckedBefore, int $lateCheckedBefore, int $limit): array
    {
        $nowText = self::time($now);
        $open = self::time($openCheckedBefore);
        $late = self::time($lateCheckedBefore);
        return Capsule::table(self::TABLE)
            ->whereNull('resolution')
            ->where('watch_until', '>=', $nowText)
            ->where(static function ($due) use ($nowText, $open, $late): void {
                $due->whereNull('checked_at')
                    ->orWhere('checked_at', '<=', $late)
                    ->orWhere(static function ($payable) use ($nowText, $open): void {
                        $payable->where('checked_at', '<=', $open)->where('expires_at', '>', $nowText);
                    });
            })
            // Never-checked first (NULL sorts first in MySQL and SQLite), then least recently checked, then newest.
            ->orderBy('checked_at')
            ->orderBy('created_at', 'desc')
            ->orderBy('id', 'desc')
            ->limit($limit)
            ->get()
            ->all();
    }

    public function setting(string $name): ?string
    {
        $value = Capsule::table(self::SETTINGS_TABLE)->where('setting', $name)->value('value');
        return $value === null ? null : (string) $value;
    }

    /** Stores $value unless the setting exists; returns the stored value either way. */
    public function settingOnce(string $name, string $value): string
    {
        $existing = $this->setting($name);
        if ($existing !== null || $this->insertSetting($name, $value)) {
            return $existing ?? $value;
        }
        return (string) $this->setting($name);
    }

    /**
     * Compare-and-swap of a setting: replaces it only if it still holds $expected (null: absent);
     * a null $replacement removes it. True for exactly one of several requests doing the same swap
     * (the unique key refuses a second insert; the conditional update and delete match once).
     */
    public function swapSetting(string $name, ?string $expected, ?string $replacement): bool
    {
        if ($expected === null) {
            return $replacement === null ? $this->setting($name) === null : $this->insertSetting($name, $replacement);
        }
        $query = Capsule::table(self::SETTINGS_TABLE)->where('setting', $name)->where('value', $expected);
        return ($replacement === null ? $query->delete() : $query->update(['value' => $replacement])) === 1;
    }

    private function putSetting(string $name, string $value): void
    {
        if (!$this->insertSetting($name, $value)) {
            Capsule::table(self::SETTINGS_TABLE)->where('setting', $name)->update(['value' => $value]);
        }
    }

    private function insertSetting(string $name, string $value): bool
    {
        try {
            Capsule::table(self::SETTINGS_TABLE)->insert(['setting' => $name, 'value' => $value]);
            return true;
        } catch (\Exception $taken) {
            return false;
        }
    }

    /** Unix seconds as stored ("Y-m-d H:i:s", UTC); null stays null. */
    public static function time(?int $unix): ?string
    {
        return $unix === null ? null : gmdate('Y-m-d H:i:s', $unix);
    }
}
