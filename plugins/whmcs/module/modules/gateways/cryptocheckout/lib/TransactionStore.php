<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use WHMCS\Database\Capsule;

/**
 * The module's own tables, created on first use through WHMCS's database layer:
 * mod_cryptocheckout_transactions (one row per checkout, several per invoice over time) and
 * mod_cryptocheckout_settings (the module's signing key).
 */
final class TransactionStore
{
    public const TABLE = 'mod_cryptocheckout_transactions';
    public const SETTINGS_TABLE = 'mod_cryptocheckout_settings';

    /** States a checkout can still move from without the admin. */
    public const OPEN_STATES = ['awaiting_payment', 'underpaid'];

    /** @var bool */
    private static $ready = false;

    public function __construct()
    {
        $this->ensureTables();
    }

    private function ensureTables(): void
    {
        if (self::$ready) {
            return;
        }
        $schema = Capsule::schema();
        if (!$schema->hasTable(self::TABLE)) {
            $schema->create(self::TABLE, static function ($table): void {
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
                $table->string('state', 32)->index();
                $table->text('note')->nullable();
                $table->string('expires_at', 32)->nullable();
                $table->string('checked_at', 32)->nullable();
                $table->string('created_at', 32);
                $table->string('updated_at', 32);
            });
        }
        if (!$schema->hasTable(self::SETTINGS_TABLE)) {
            $schema->create(self::SETTINGS_TABLE, static function ($table): void {
                $table->string('setting', 64)->unique();
                $table->text('value');
            });
        }
        self::$ready = true;
    }

    /** @param array<string, mixed> $row */
    public function insert(array $row): int
    {
        $now = self::now();
        return (int) Capsule::table(self::TABLE)->insertGetId($row + [
            'note' => null,
            'checked_at' => null,
            'created_at' => $now,
            'updated_at' => $now,
        ]);
    }

    /** @return object|null */
    public function findByCode(string $code)
    {
        return Capsule::table(self::TABLE)->where('transaction_code', strtolower($code))->first();
    }

    /** @return object|null the invoice's most recent checkout */
    public function latestForInvoice(int $invoiceId)
    {
        return Capsule::table(self::TABLE)->where('invoice_id', $invoiceId)->orderBy('id', 'desc')->first();
    }

    /** @return array<int, object> checkouts still open, oldest check first */
    public function open(int $limit): array
    {
        return Capsule::table(self::TABLE)
            ->whereIn('state', self::OPEN_STATES)
            ->orderBy('checked_at')
            ->orderBy('id')
            ->limit($limit)
            ->get()
            ->all();
    }

    /**
     * Moves a checkout from $from to $to only if no one else has moved it meanwhile: the
     * conditional update is the lock that makes concurrent webhooks, polls and returns apply a
     * payment once.
     */
    public function transition(int $id, string $from, string $to, ?string $note): bool
    {
        $values = ['state' => $to, 'updated_at' => self::now(), 'checked_at' => self::now()];
        if ($note !== null) {
            $values['note'] = $note;
        }
        return Capsule::table(self::TABLE)->where('id', $id)->where('state', $from)->update($values) === 1;
    }

    public function touch(int $id): void
    {
        Capsule::table(self::TABLE)->where('id', $id)->update(['checked_at' => self::now()]);
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
        if ($existing !== null) {
            return $existing;
        }
        try {
            Capsule::table(self::SETTINGS_TABLE)->insert(['setting' => $name, 'value' => $value]);
        } catch (\Exception $raced) {
            // Another request stored it first (unique key); use theirs.
        }
        return (string) $this->setting($name);
    }

    /**
     * Takes a named lock for at most $ttlSeconds through the settings table's unique key, so two
     * requests (or two web servers) never do the guarded work at once. Returns the lock's token, or
     * null when another request holds it. A lock past its expiry is taken over, once.
     */
    public function acquireLock(string $name, int $ttlSeconds): ?string
    {
        $key = 'lock:' . $name;
        $now = time();
        $token = ($now + $ttlSeconds) . ':' . bin2hex(random_bytes(6));
        if ($this->insertSetting($key, $token)) {
            return $token;
        }
        $current = $this->setting($key);
        if ($current !== null && (int) strtok($current, ':') < $now) {
            Capsule::table(self::SETTINGS_TABLE)->where('setting', $key)->where('value', $current)->delete();
            return $this->insertSetting($key, $token) ? $token : null;
        }
        return null;
    }

    /** Releases a lock taken with {@see acquireLock()}; a lock taken over by another request is left alone. */
    public function releaseLock(string $name, string $token): void
    {
        Capsule::table(self::SETTINGS_TABLE)->where('setting', 'lock:' . $name)->where('value', $token)->delete();
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

    public static function now(): string
    {
        return gmdate('Y-m-d H:i:s');
    }
}
