<?php
// Test harness (WHMCS 8.13): the subset of WHMCS\Database\Capsule (Laravel's query builder, as
// WHMCS exposes it) that the gateway module uses, backed by PDO SQLite.

namespace WHMCS\Database;

final class Capsule
{
    /** @var Connection|null */
    private static $connection;

    public static function boot(string $path): void
    {
        $pdo = new \PDO('sqlite:' . $path, null, null, [
            \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
            \PDO::ATTR_DEFAULT_FETCH_MODE => \PDO::FETCH_OBJ,
            \PDO::ATTR_TIMEOUT => 10,
            // Values come back as strings, as WHMCS's MySQL connection returns them.
            \PDO::ATTR_STRINGIFY_FETCHES => true,
        ]);
        $pdo->exec('PRAGMA busy_timeout = 10000');
        self::$connection = new Connection($pdo);
    }

    public static function connection(): Connection
    {
        if (self::$connection === null) {
            throw new \RuntimeException('The database is not booted.');
        }
        return self::$connection;
    }

    public static function table(string $table): QueryBuilder
    {
        return self::connection()->table($table);
    }

    public static function schema(): SchemaBuilder
    {
        return new SchemaBuilder(self::connection());
    }
}
