<?php
// Test harness (WHMCS 8.13): the subset of WHMCS\Database\Capsule (Laravel's query builder, as
// WHMCS exposes it) that the gateway module uses, backed by PDO SQLite (boot) or, for the MariaDB
// tests, by PDO MySQL (bootMysql). In MySQL mode the same classes write what Laravel 8/9's MySQL
// grammar writes (WHMCS 8 ships Laravel 8/9's database layer); see the notes in each file.

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

    /**
     * MySQL mode. The PDO options are Laravel's MySqlConnector defaults: native prepares (integer
     * columns come back as PHP ints), no stringified fetches, and no PDO::MYSQL_ATTR_FOUND_ROWS,
     * so update() counts the rows it changed (a row set to the values it holds counts 0).
     */
    public static function bootMysql(string $dsn, string $user, string $password): void
    {
        $pdo = new \PDO($dsn, $user, $password, [
            \PDO::ATTR_CASE => \PDO::CASE_NATURAL,
            \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
            \PDO::ATTR_ORACLE_NULLS => \PDO::NULL_NATURAL,
            \PDO::ATTR_STRINGIFY_FETCHES => false,
            \PDO::ATTR_EMULATE_PREPARES => false,
            \PDO::ATTR_DEFAULT_FETCH_MODE => \PDO::FETCH_OBJ,
        ]);
        // What MySqlConnector::configureEncoding sends for Laravel's default charset and collation.
        $pdo->exec("SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_ci'");
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
