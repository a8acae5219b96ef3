<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

/**
 * Brings the module's storage up to the code's version on the first request that finds it
 * behind, whichever way the files arrived. PrestaShop runs upgrade/upgrade-*.php only when the
 * request that received the files reads the new version from the module class: PrestaShop 8.1.2's
 * upload (ModuleManager::upgrade() → upgradeMigration() → Module::getModulesOnDisk()) reads it
 * from the class PHP has loaded, and OPcache (revalidate_freq, 2 s by default) still serves the
 * old cryptocheckout.php to a request that comes within seconds of one that compiled it, such as
 * the Module Manager page the zip is dropped on. That upload then says "Module installed!", runs
 * no upgrade script and leaves ps_module.version as it was, while the next requests run the new
 * code. A folder replaced by hand runs no upgrade either.
 *
 * So every entry point asks ready() first. The version whose storage is complete is kept in
 * Configuration (VERSION_KEY, written last); while it differs from the code's, one request at a
 * time (MySQL's GET_LOCK, named after the database and prefix) runs Cryptocheckout::
 * upgradeStorage() (every upgrade script's step, each safe to repeat), then records the version
 * in ps_module too, so PrestaShop does not run the scripts again. A failure is logged once per
 * reason and kept (PROBLEM_KEY) for the back office banner; the next try comes RETRY_SECONDS
 * later (at once from the configuration page). Until then the JSON endpoints answer 503 with
 * Retry-After and the payment option stays hidden.
 */
final class SchemaUpgrade
{
    /** Configuration: the module version whose storage is complete. */
    public const VERSION_KEY = 'CRYPTOCHECKOUT_SCHEMA_VERSION';
    /** Configuration: JSON {message, at, from} of the last failed try, until one succeeds. */
    public const PROBLEM_KEY = 'CRYPTOCHECKOUT_UPGRADE_PROBLEM';
    /** A request waits this long for another one that is upgrading (seconds). */
    public const LOCK_WAIT_SECONDS = 5;
    /** After a failure, the next try (and the Retry-After of the 503 answers). */
    public const RETRY_SECONDS = 60;

    /** @var array<string, bool> the versions found complete in this request */
    private static $ready = [];

    private function __construct()
    {
    }

    /**
     * True when the storage is the code's, upgrading it first when it is behind. Never throws.
     *
     * @param bool $force try again now even when the last try failed less than RETRY_SECONDS ago
     */
    public static function ready(\Cryptocheckout $module, bool $force = false): bool
    {
        $version = (string) $module->version;
        if (isset(self::$ready[$version]) || (string) \Configuration::getGlobalValue(self::VERSION_KEY) === $version) {
            return self::$ready[$version] = true;
        }
        $problem = self::problem();
        if (!$force && $problem !== null && time() - $problem['at'] < self::RETRY_SECONDS) {
            return false;
        }

        return self::run($module) === null;
    }

    /**
     * Upgrades now, one request at a time; PrestaShop's upgrade scripts and enable() call it too.
     *
     * @return string|null why the storage could not be brought up, or null when it is current
     */
    public static function run(\Cryptocheckout $module): ?string
    {
        $version = (string) $module->version;
        $db = \Db::getInstance();
        $lock = "'" . pSQL('cryptocheckout_upgrade_' . md5(_DB_NAME_ . '.' . _DB_PREFIX_)) . "'";
        try {
            if ((string) $db->getValue('SELECT GET_LOCK(' . $lock . ', ' . self::LOCK_WAIT_SECONDS . ')', false) !== '1') {
                return 'another request has been upgrading the module for more than ' . self::LOCK_WAIT_SECONDS . ' seconds';
            }
        } catch (\Exception $exception) {
            return self::failed($module, 'the upgrade lock could not be taken: ' . $exception->getMessage(), null);
        }
        $from = null;
        try {
            // Read again under the lock: the request that held it may have done the work.
            $from = self::recorded();
            if ($from === $version) {
                self::$ready[$version] = true;

                return null;
            }
            $from = $from ?? (string) $db->getValue('SELECT `version` FROM `' . _DB_PREFIX_ . "module` WHERE `name` = '" . pSQL($module->name) . "'", false);
            $module->upgradeStorage();
            \Module::upgradeModuleVersion($module->name, $version);
            \Configuration::updateGlobalValue(self::VERSION_KEY, $version);
            \Configuration::deleteByName(self::PROBLEM_KEY);
            self::$ready[$version] = true;
            $module->kernel()->orders()->log('info', sprintf('The module\'s tables and hooks are up to date for version %s (the shop had %s).', $version, $from === '' ? 'none' : $from));

            return null;
        } catch (\Throwable $exception) {
            return self::failed($module, $exception->getMessage(), $from);
        } finally {
            try {
                $db->getValue('SELECT RELEASE_LOCK(' . $lock . ')', false);
            } catch (\Exception $ignored) {
                // The lock ends with the connection anyway.
            }
        }
    }

    /**
     * The last failed try, while the storage is behind.
     *
     * @return array{message: string, at: int, from: string}|null
     */
    public static function problem(): ?array
    {
        $stored = json_decode((string) \Configuration::getGlobalValue(self::PROBLEM_KEY), true);

        return is_array($stored) && isset($stored['message'], $stored['at'])
            ? ['message' => (string) $stored['message'], 'at' => (int) $stored['at'], 'from' => (string) ($stored['from'] ?? '')]
            : null;
    }

    /** The version recorded as complete, read from the database (not from this request's Configuration cache). */
    private static function recorded(): ?string
    {
        $value = \Db::getInstance()->getValue('SELECT `value` FROM `' . _DB_PREFIX_ . "configuration` WHERE `name` = '" . self::VERSION_KEY . "'", false);

        return $value === false || $value === null ? null : (string) $value;
    }

    private static function failed(\Cryptocheckout $module, string $message, ?string $from): string
    {
        try {
            $previous = self::problem();
            if ($previous === null || $previous['message'] !== $message) {
                $module->kernel()->orders()->log('error', sprintf('The module\'s tables could not be brought up to date for version %s: %s. Payment notifications are answered 503 and the payment option is hidden until they are; the module tries again at the next request a minute later, or at once when its configuration page is opened.', (string) $module->version, $message));
            }
            \Configuration::updateGlobalValue(self::PROBLEM_KEY, json_encode(['message' => $message, 'at' => time(), 'from' => (string) $from]));
        } catch (\Exception $unrecorded) {
            // The database refuses even this: the answer still says why.
        }

        return $message;
    }
}
