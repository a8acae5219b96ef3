<?php
/**
 * Test harness reproducing the part of PrestaShop 8.1.2 that the cryptocheckout module uses.
 *
 * Every class and function below keeps the public signature of PrestaShop 8.1.2 (classes/…,
 * src/Core/Payment/PaymentOption.php) and its documented behaviour for what the module relies on:
 * Module / PaymentModule (install, uninstall, hooks, validateOrder with the secure key,
 * currentOrder, currency restrictions, trans/l, fetch), Configuration, Context, Link, Cart,
 * Customer, Currency, Order (current state, OrderHistory, addOrderPayment, totals), OrderState,
 * OrderPayment, Message, Db / DbQuery, Tools, Validate, HelperForm, Media, PrestaShopLogger,
 * Hook, Controller / FrontController / ModuleFrontController (with Controller::__construct()
 * deciding $ajax from the request, and a page render without a template failing as Smarty does),
 * Cache (the per-request object cache of ObjectModel) and the Smarty subset the module's
 * templates use. What it leaves out (carriers, taxes, stock, e-mails, invoices, multishop) the
 * module never touches.
 *
 * Storage is a real SQLite database (pdo_sqlite) shared by every PHP request of a test, so
 * conditional updates and the affected-row count behave as on MySQL. Db translates the few
 * MySQL-only spellings of CREATE TABLE (ENGINE, CHARSET, UNSIGNED, KEY) to SQLite.
 *
 * Settings come from $GLOBALS['HARNESS']: db (SQLite file), shop_url, modules_dir.
 *
 * Fault injection, for crash tests: harness_fail_once('Order::setCurrentState') (stored in the
 * database, so it holds across requests) makes the next call of that method throw before it
 * changes anything, as a lost database connection or a failing hook would.
 */

define('_PS_VERSION_', '8.1.2');
define('_DB_PREFIX_', 'ps_');
// As config/parameters.php's database_name: the DSN's dbname on MySQL, the file's name on SQLite.
define('_DB_NAME_', preg_match('/dbname=([^;]+)/', (string) $GLOBALS['HARNESS']['db'], $harnessDbName) ? $harnessDbName[1] : basename((string) $GLOBALS['HARNESS']['db']));
define('_MYSQL_ENGINE_', 'InnoDB');
define('_COOKIE_KEY_', 'harness-cookie-key');
define('__PS_BASE_URI__', '/');
define('_PS_MODULE_DIR_', rtrim($GLOBALS['HARNESS']['modules_dir'], '/') . '/');
define('_PS_MODE_DEV_', false);
define('_PS_MAIL_DIR_', '/shop/mails/');

require_once __DIR__ . '/PaymentOption.php';

class PrestaShopException extends Exception
{
}

class PrestaShopDatabaseException extends PrestaShopException
{
}

/** Raised by Tools::redirect() and the die() paths so a test can see where PrestaShop stopped. */
class HarnessExit extends Exception
{
}

/** Smarty's own exception (vendor/smarty), which PrestaShop's front controllers do not catch. */
class SmartyException extends Exception
{
}

/** Arms a one-time failure of $point (see the file comment). */
function harness_fail_once($point)
{
    Configuration::updateValue('HARNESS_FAIL_ONCE', $point);
}

/** Throws once when a test armed a failure of $point. */
function harness_fault($point)
{
    if (Configuration::get('HARNESS_FAIL_ONCE') === $point) {
        Configuration::deleteByName('HARNESS_FAIL_ONCE');

        throw new PrestaShopException('harness: ' . $point . ' failed');
    }
}

function pSQL($string, $htmlOK = false)
{
    return Db::getInstance()->escape($string, $htmlOK);
}

function bqSQL($string)
{
    return str_replace('`', '\`', pSQL($string));
}

class Db
{
    const INSERT = 1;
    const INSERT_IGNORE = 2;
    const REPLACE = 3;
    const ON_DUPLICATE_KEY = 4;

    /** @var Db|null */
    private static $instance;
    /** @var PDO */
    private $pdo;
    private $affected = 0;
    /** @var bool true on MySQL/MariaDB, where the module's SQL runs as written */
    private $mysql;

    public static function getInstance($master = true)
    {
        if (self::$instance === null) {
            self::$instance = new self();
        }

        return self::$instance;
    }

    /**
     * $GLOBALS['HARNESS']['db'] is a SQLite file, or a `mysql:` DSN (with db_user, db_password)
     * for a real MySQL/MariaDB server, as PrestaShop's DbPDO connects.
     */
    private function __construct()
    {
        $dsn = (string) $GLOBALS['HARNESS']['db'];
        $this->mysql = strpos($dsn, 'mysql:') === 0;
        $this->pdo = $this->mysql
            ? new PDO($dsn, (string) ($GLOBALS['HARNESS']['db_user'] ?? 'root'), (string) ($GLOBALS['HARNESS']['db_password'] ?? ''))
            : new PDO('sqlite:' . $dsn);
        $this->pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
        $this->pdo->setAttribute(PDO::ATTR_DEFAULT_FETCH_MODE, PDO::FETCH_ASSOC);
        $this->pdo->setAttribute(PDO::ATTR_TIMEOUT, 10);
        // PrestaShop's MySQL layer hands every column back as a string; so does the harness.
        $this->pdo->setAttribute(PDO::ATTR_STRINGIFY_FETCHES, true);
    }

    /**
     * As Db::escape(): numbers as they are; otherwise escaped for the database (DbPDO::_escape()
     * on MySQL; quotes doubled on SQLite, which has no backslash escapes), tags stripped unless
     * $html_ok.
     */
    public function escape($string, $html_ok = false, $bq_sql = false)
    {
        if (is_numeric($string)) {
            return $string;
        }
        $string = $this->mysql
            ? str_replace(['\\', "\0", "\n", "\r", "\x1a", "'", '"'], ['\\\\', '\\0', '\\n', '\\r', '\\Z', "\\'", '\\"'], (string) $string)
            : str_replace("'", "''", (string) $string);
        if (!$html_ok) {
            $string = strip_tags(nl2br($string));
        }

        return $string;
    }

    public function getMsgError($query = false)
    {
        $error = $this->pdo->errorInfo();

        return $error[0] === '00000' ? '' : (string) $error[2];
    }

    /** MySQL spellings PrestaShop modules write, in the SQLite dialect of the harness database. */
    public static function translate($sql)
    {
        $sql = preg_replace('/\)\s*ENGINE\s*=\s*\w+[^;]*/i', ')', $sql);
        // An AUTO_INCREMENT primary key is SQLite's INTEGER PRIMARY KEY AUTOINCREMENT, declared on the column.
        if (preg_match('/`?(\w+)`?\s+INT(?:\(\d+\))?(?:\s+UNSIGNED)?\s+NOT\s+NULL\s+AUTO_INCREMENT/i', $sql, $auto)) {
            $sql = str_replace($auto[0], '`' . $auto[1] . '` INTEGER PRIMARY KEY AUTOINCREMENT', $sql);
            $sql = preg_replace('/,\s*PRIMARY\s+KEY\s*\(`?' . $auto[1] . '`?\)/i', '', $sql);
        }
        $sql = preg_replace('/\bUNSIGNED\b/i', '', $sql);
        $sql = preg_replace('/\bUNIQUE\s+KEY\s+(`?\w+`?)\s*\(/i', 'CONSTRAINT $1 UNIQUE (', $sql);
        $sql = preg_replace('/,\s*(?:INDEX|KEY)\s+`?\w+`?\s*\([^)]*\)/i', '', $sql);
        $sql = preg_replace('/\bINSERT\s+IGNORE\b/i', 'INSERT OR IGNORE', $sql);
        $sql = preg_replace('/\bNOW\(\)/i', "datetime('now')", $sql);
        $sql = preg_replace('/^\s*SHOW\s+TABLES\s+LIKE\s+/i', "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ", $sql);
        // MySQL's named locks: SQLite lets one writer at a time anyway, so a lock is always granted.
        $sql = preg_replace('/\b(?:GET_LOCK|RELEASE_LOCK)\s*\([^)]*\)/i', '1', $sql);

        return $sql;
    }

    /** As DbPDO::_query(): a database error is thrown as PrestaShopException, the PDOException its cause. */
    private function run(callable $statement)
    {
        try {
            return $statement();
        } catch (PDOException $exception) {
            throw new PrestaShopException($exception->getMessage(), (int) $exception->getCode(), $exception);
        }
    }

    /** The statement in the harness database's dialect: as written on MySQL, translated on SQLite. */
    private function dialect($sql)
    {
        return $this->mysql ? (string) $sql : self::translate((string) $sql);
    }

    public function execute($sql, $use_cache = true)
    {
        // A test that races first requests widens the window: each CREATE TABLE waits this long (µs).
        if (!empty($GLOBALS['HARNESS']['slow_ddl']) && preg_match('/^\s*CREATE\s+TABLE/i', (string) $sql)) {
            usleep((int) $GLOBALS['HARNESS']['slow_ddl']);
        }
        $this->affected = $this->run(function () use ($sql) {
            return $this->pdo->exec($this->dialect($sql));
        });

        return $this->affected !== false;
    }

    public function executeS($sql, $array = true, $use_cache = true)
    {
        if ($sql instanceof DbQuery) {
            $sql = $sql->build();
        }

        return $this->run(function () use ($sql) {
            return $this->pdo->query($this->dialect($sql))->fetchAll();
        });
    }

    public function getRow($sql, $use_cache = true)
    {
        if ($sql instanceof DbQuery) {
            $sql = $sql->build();
        }
        $sql = rtrim((string) $sql, " \n\t;");
        if (!preg_match('/\bLIMIT\s+\d+\s*$/i', $sql)) {
            $sql .= ' LIMIT 1';
        }
        $row = $this->run(function () use ($sql) {
            return $this->pdo->query($this->dialect($sql))->fetch();
        });

        return $row === false ? false : $row;
    }

    public function getValue($sql, $use_cache = true)
    {
        $row = $this->getRow($sql, $use_cache);

        return is_array($row) ? reset($row) : false;
    }

    public function insert($table, $data, $null_values = false, $use_cache = true, $type = self::INSERT, $add_prefix = true)
    {
        if (!$data) {
            return true;
        }
        if ($add_prefix) {
            $table = _DB_PREFIX_ . $table;
        }
        if (!isset($data[0])) {
            $data = [$data];
        }
        $ok = true;
        foreach ($data as $row) {
            $columns = [];
            $values = [];
            foreach ($row as $key => $value) {
                $columns[] = '`' . bqSQL($key) . '`';
                $values[] = $this->literal($value, $null_values);
            }
            $verb = $type === self::INSERT_IGNORE ? 'INSERT IGNORE' : ($type === self::REPLACE ? 'REPLACE' : 'INSERT');
            $ok = $this->execute($verb . ' INTO `' . $table . '` (' . implode(', ', $columns) . ') VALUES (' . implode(', ', $values) . ')') && $ok;
        }

        return $ok;
    }

    public function update($table, $data, $where = '', $limit = 0, $null_values = false, $use_cache = true, $add_prefix = true)
    {
        if (!$data) {
            return true;
        }
        if ($add_prefix) {
            $table = _DB_PREFIX_ . $table;
        }
        $sets = [];
        foreach ($data as $key => $value) {
            $sets[] = '`' . bqSQL($key) . '` = ' . $this->literal($value, $null_values);
        }

        return $this->execute('UPDATE `' . $table . '` SET ' . implode(', ', $sets) . ($where ? ' WHERE ' . $where : ''));
    }

    public function delete($table, $where = '', $limit = 0, $use_cache = true, $add_prefix = true)
    {
        if ($add_prefix) {
            $table = _DB_PREFIX_ . $table;
        }

        return $this->execute('DELETE FROM `' . $table . '`' . ($where ? ' WHERE ' . $where : ''));
    }

    public function Affected_Rows()
    {
        return (int) $this->affected;
    }

    public function Insert_ID()
    {
        return (int) $this->pdo->lastInsertId();
    }

    private function literal($value, $null_values)
    {
        if (is_array($value) && isset($value['type']) && $value['type'] === 'sql') {
            return $value['value'];
        }
        if ($value === null || ($null_values && $value === '')) {
            return 'NULL';
        }
        if (is_bool($value)) {
            return $value ? '1' : '0';
        }

        return "'" . (string) $value . "'";
    }
}

class DbQuery
{
    private $query = ['select' => [], 'from' => [], 'where' => [], 'order' => [], 'limit' => ''];

    public function select($fields)
    {
        $this->query['select'][] = $fields;

        return $this;
    }

    public function from($table, $alias = null)
    {
        $this->query['from'][] = '`' . _DB_PREFIX_ . $table . '`' . ($alias ? ' ' . $alias : '');

        return $this;
    }

    public function where($restriction)
    {
        $this->query['where'][] = $restriction;

        return $this;
    }

    public function orderBy($fields)
    {
        $this->query['order'][] = $fields;

        return $this;
    }

    public function limit($limit, $offset = 0)
    {
        $this->query['limit'] = (int) $limit . ($offset ? ' OFFSET ' . (int) $offset : '');

        return $this;
    }

    public function build()
    {
        $sql = 'SELECT ' . ($this->query['select'] ? implode(', ', $this->query['select']) : '*')
            . ' FROM ' . implode(', ', $this->query['from']);
        if ($this->query['where']) {
            $sql .= ' WHERE (' . implode(') AND (', $this->query['where']) . ')';
        }
        if ($this->query['order']) {
            $sql .= ' ORDER BY ' . implode(', ', $this->query['order']);
        }
        if ($this->query['limit'] !== '') {
            $sql .= ' LIMIT ' . $this->query['limit'];
        }

        return $sql;
    }

    public function __toString()
    {
        return $this->build();
    }
}

class PrestaShopLogger
{
    public static function addLog($message, $severity = 1, $errorCode = null, $objectType = null, $objectId = null, $allowDuplicate = false, $idEmployee = null)
    {
        return Db::getInstance()->insert('log', [
            'severity' => (int) $severity,
            'error_code' => (int) $errorCode,
            'message' => pSQL($message),
            'object_type' => pSQL((string) $objectType),
            'object_id' => (int) $objectId,
            'date_add' => date('Y-m-d H:i:s'),
        ]);
    }
}

class Configuration
{
    public static function get($key, $idLang = null, $idShopGroup = null, $idShop = null, $default = false)
    {
        $value = Db::getInstance()->getValue('SELECT `value` FROM `' . _DB_PREFIX_ . "configuration` WHERE `name` = '" . pSQL($key) . "'");

        return $value === false || $value === null ? $default : $value;
    }

    public static function getMultiple($keys, $idLang = null, $idShopGroup = null, $idShop = null)
    {
        $values = [];
        foreach ($keys as $key) {
            $values[$key] = self::get($key, $idLang, $idShopGroup, $idShop);
        }

        return $values;
    }

    public static function hasKey($key, $idLang = null, $idShopGroup = null, $idShop = null)
    {
        return (bool) Db::getInstance()->getValue('SELECT 1 FROM `' . _DB_PREFIX_ . "configuration` WHERE `name` = '" . pSQL($key) . "'");
    }

    public static function updateValue($key, $values, $html = false, $idShopGroup = null, $idShop = null)
    {
        if (!Validate::isConfigName($key)) {
            throw new PrestaShopException(sprintf('[%s] is not a valid configuration key', $key));
        }
        if (is_bool($values)) {
            $values = (int) $values;
        }
        $value = (string) $values;
        if (!$html) {
            $value = strip_tags($value);
        }
        $db = Db::getInstance();
        $now = date('Y-m-d H:i:s');
        if (self::hasKey($key)) {
            return $db->update('configuration', ['value' => pSQL($value, true), 'date_upd' => $now], "`name` = '" . pSQL($key) . "'", 0, true);
        }

        return $db->insert('configuration', ['name' => pSQL($key), 'value' => pSQL($value, true), 'date_add' => $now, 'date_upd' => $now], true);
    }

    public static function getGlobalValue($key, $idLang = null)
    {
        return self::get($key, $idLang);
    }

        public static function updateGlobalValue($key, $values, $html = false)
    {
        return self::updateValue($key, $values, $html);
    }

    public static function deleteByName($key)
    {
        if (!Validate::isConfigName($key)) {
            return false;
        }

        return Db::getInstance()->delete('configuration', "`name` = '" . pSQL($key) . "'");
    }
}

class Validate
{
    public static function isLoadedObject($object)
    {
        return is_object($object) && $object->id;
    }

    public static function isConfigName($data)
    {
        return (bool) preg_match('/^[a-zA-Z_0-9-]+$/', (string) $data);
    }

    public static function isUnsignedInt($value)
    {
        return (is_numeric($value) || is_string($value)) && preg_match('#^[0-9]+$#', (string) $value) && $value < 4294967296 && $value >= 0;
    }

    public static function isAbsoluteUrl($url)
    {
        if (!empty($url)) {
            return (bool) preg_match('/^(https?:)?\/\/[$~:;#,%&_=\(\)\[\]\.\? \+\-@\/a-zA-Z0-9]+$/', $url);
        }

        return true;
    }

    public static function isCleanHtml($html, $allow_iframe = false)
    {
        return !preg_match('/<[\s]*script/ims', (string) $html) && !preg_match('/(' . 'on[a-z]+' . ')[\s]*=/ims', (string) $html);
    }

    public static function isGenericName($name)
    {
        return empty($name) || preg_match('/^[^<>={}]*$/u', $name);
    }

    public static function isEmail($email)
    {
        return !empty($email) && filter_var($email, FILTER_VALIDATE_EMAIL) !== false;
    }
}

class Tools
{
    public static function getValue($key, $default_value = false)
    {
        if (!isset($key) || empty($key) || !is_string($key)) {
            return false;
        }
        $ret = (isset($_POST[$key]) ? $_POST[$key] : (isset($_GET[$key]) ? $_GET[$key] : $default_value));
        if (is_string($ret)) {
            return stripslashes(urldecode(preg_replace('/((\%5C0+)|(\%00+))/i', '', urlencode($ret))));
        }

        return $ret;
    }

    /** As Tools::getRemoteAddr(): X-Forwarded-For's first address when the request comes from a private or loopback proxy. */
    public static function getRemoteAddr()
    {
        $remote = isset($_SERVER['REMOTE_ADDR']) ? trim($_SERVER['REMOTE_ADDR']) : null;
        if (!empty($_SERVER['HTTP_X_FORWARDED_FOR']) && ($remote === null || preg_match('/^(127\.|172\.(1[6-9]|2\d|30|31)\.|192\.168|10\.)/', $remote))) {
            return strpos($_SERVER['HTTP_X_FORWARDED_FOR'], ',') ? explode(',', $_SERVER['HTTP_X_FORWARDED_FOR'])[0] : $_SERVER['HTTP_X_FORWARDED_FOR'];
        }

        return $_SERVER['REMOTE_ADDR'];
    }

    public static function getIsset($key)
    {
        return is_string($key) && (isset($_POST[$key]) || isset($_GET[$key]));
    }

    public static function isSubmit($submit)
    {
        return isset($_POST[$submit]) || isset($_POST[$submit . '_x']) || isset($_POST[$submit . '_y'])
            || isset($_GET[$submit]) || isset($_GET[$submit . '_x']) || isset($_GET[$submit . '_y']);
    }

    public static function hash($passwd)
    {
        return md5(_COOKIE_KEY_ . $passwd);
    }

    public static function getToken($page = true, Context $context = null)
    {
        if (!$context) {
            $context = Context::getContext();
        }
        $customer = $context->customer;
        $id = $customer ? $customer->id : 0;
        $passwd = $customer ? $customer->passwd : '';

        return Tools::hash($id . $passwd . ($page === true ? $_SERVER['SCRIPT_NAME'] : $page));
    }

    public static function getAdminTokenLite($tab, Context $context = null)
    {
        if (!$context) {
            $context = Context::getContext();
        }

        return Tools::hash($tab . (int) Tab::getIdFromClassName($tab) . (int) ($context->employee ? $context->employee->id : 0));
    }

    public static function redirect($url, $base_uri = __PS_BASE_URI__, Link $link = null, $headers = null)
    {
        if (!preg_match('@^https?://@i', $url) && strpos($url, 'index.php') === 0) {
            $url = $GLOBALS['HARNESS']['shop_url'] . $base_uri . $url;
        }
        header('Location: ' . $url);
        throw new HarnessExit('redirect');
    }

    public static function displayError($string = 'Fatal error', $htmlentities = null, Context $context = null)
    {
        return $string;
    }

    public static function ps_round($value, $precision = 0, $round_mode = null)
    {
        return round((float) $value, (int) $precision, PHP_ROUND_HALF_UP);
    }

    public static function passwdGen($length = 8, $flag = 'ALPHANUMERIC')
    {
        $chars = $flag === 'NO_NUMERIC' ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' : ($flag === 'NUMERIC' ? '0123456789' : 'abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNPQRSTUVWXYZ23456789');
        $out = '';
        for ($i = 0; $i < $length; ++$i) {
            $out .= $chars[random_int(0, strlen($chars) - 1)];
        }

        return $out;
    }

    public static function safeOutput($string, $html = false)
    {
        if (!$html) {
            $string = strip_tags($string);
        }

        return htmlentities((string) $string, ENT_QUOTES, 'utf-8');
    }

    public static function htmlentitiesUTF8($string, $type = ENT_QUOTES)
    {
        if (is_array($string)) {
            return array_map(['Tools', 'htmlentitiesUTF8'], $string);
        }

        return htmlentities((string) $string, $type, 'utf-8');
    }

    public static function nl2br($str)
    {
        return str_replace(["\r\n", "\r", "\n"], '<br />', (string) $str);
    }

    public static function getShopDomainSsl($http = false, $entities = false)
    {
        $host = (string) parse_url($GLOBALS['HARNESS']['shop_url'], PHP_URL_HOST);
        $port = parse_url($GLOBALS['HARNESS']['shop_url'], PHP_URL_PORT);

        return ($http ? 'https://' : '') . $host . ($port ? ':' . $port : '');
    }

    public static function strtolower($str)
    {
        return mb_strtolower((string) $str, 'utf-8');
    }

    public static function substr($str, $start, $length = false, $encoding = 'utf-8')
    {
        return mb_substr((string) $str, (int) $start, $length === false ? null : (int) $length, $encoding);
    }
}

class Tab
{
    public static function getIdFromClassName($class_name)
    {
        return $class_name === 'AdminModules' ? 47 : 0;
    }
}

class Media
{
    public static $js_def = [];

    public static function addJsDef($js_def)
    {
        if (is_array($js_def)) {
            foreach ($js_def as $key => $js) {
                self::$js_def[$key] = $js;
            }
        }
    }
}

class Hook
{
    public static function getIdByName($hook_name, bool $withAliases = true, bool $refreshCache = false)
    {
        $db = Db::getInstance();
        $name = strtolower((string) $hook_name);
        $id = $db->getValue('SELECT `id_hook` FROM `' . _DB_PREFIX_ . "hook` WHERE lower(`name`) = '" . pSQL($name) . "'");
        if (!$id) {
            // As Hook::registerHook() makes an unknown hook: its title is its name.
            $db->insert('hook', ['name' => pSQL($hook_name), 'title' => pSQL($hook_name)]);
            $id = $db->Insert_ID();
        }

        return (int) $id;
    }

    public static function registerHook($module_instance, $hook_name, $shop_list = null)
    {
        $ok = true;
        foreach ((array) $hook_name as $name) {
            if (!Validate::isLoadedObject($module_instance) || !preg_match('/^[a-zA-Z0-9_-]+$/', $name)) {
                return false;
            }
            $id_hook = self::getIdByName($name);
            // As PrestaShop: the module goes last on the hook.
            $position = 1 + (int) Db::getInstance()->getValue('SELECT MAX(`position`) FROM `' . _DB_PREFIX_ . 'hook_module` WHERE `id_hook` = ' . $id_hook . ' AND `id_shop` = 1');
            $ok = Db::getInstance()->insert('hook_module', ['id_module' => (int) $module_instance->id, 'id_hook' => $id_hook, 'id_shop' => 1, 'position' => $position], false, true, Db::INSERT_IGNORE) && $ok;
        }

        return $ok;
    }

    public static function unregisterHook($module_instance, $hook_name, $shop_list = null)
    {
        $id_hook = is_numeric($hook_name) ? (int) $hook_name : self::getIdByName($hook_name);

        return Db::getInstance()->delete('hook_module', '`id_module` = ' . (int) $module_instance->id . ' AND `id_hook` = ' . $id_hook);
    }

    public static function isModuleRegisteredOnHook($module_instance, $hook_name, $id_shop)
    {
        return (bool) Db::getInstance()->getValue(
            'SELECT 1 FROM `' . _DB_PREFIX_ . 'hook_module` hm JOIN `' . _DB_PREFIX_ . 'hook` h ON h.id_hook = hm.id_hook'
            . ' WHERE hm.id_module = ' . (int) $module_instance->id . " AND lower(h.name) = '" . pSQL(strtolower($hook_name)) . "'"
        );
    }

    /** Calls hook<Name>($hook_args) on every active module registered on the hook. */
    public static function exec($hook_name, $hook_args = [], $id_module = null, $array_return = false, $check_exceptions = true, $use_push = false, $id_shop = null, $chain = false)
    {
        $rows = Db::getInstance()->executeS(
            'SELECT m.name FROM `' . _DB_PREFIX_ . 'hook_module` hm JOIN `' . _DB_PREFIX_ . 'hook` h ON h.id_hook = hm.id_hook'
            . ' JOIN `' . _DB_PREFIX_ . 'module` m ON m.id_module = hm.id_module'
            . " WHERE lower(h.name) = '" . pSQL(strtolower($hook_name)) . "' AND m.active = 1" . ($id_module ? ' AND m.id_module = ' . (int) $id_module : '')
        );
        $results = [];
        foreach ($rows as $row) {
            $module = Module::getInstanceByName($row['name']);
            $method = 'hook' . ucfirst($hook_name);
            if ($module && is_callable([$module, $method])) {
                $results[$row['name']] = $module->{$method}($hook_args);
            }
        }
        if ($array_return) {
            return $results;
        }
        $out = '';
        foreach ($results as $result) {
            $out .= is_string($result) ? $result : '';
        }

        return $out;
    }
}

/**
 * The Smarty subset the module's templates use: {$var|escape:…}, {l s=… d=…},
 * {if}/{elseif}/{else}/{/if} and {foreach $list as $item}/{/foreach}.
 */
class HarnessSmarty
{
    public $tpl_vars = [];

    public function assign($tpl_var, $value = null)
    {
        if (is_array($tpl_var)) {
            foreach ($tpl_var as $key => $val) {
                $this->tpl_vars[$key] = $val;
            }
        } else {
            $this->tpl_vars[$tpl_var] = $value;
        }

        return $this;
    }

    public function getTemplateVars($name = null)
    {
        return $name === null ? $this->tpl_vars : ($this->tpl_vars[$name] ?? null);
    }

    public function fetch($template)
    {
        if ($template === null || $template === '') {
            // What Smarty says when a front controller renders its page without a template.
            throw new SmartyException('Missing \'$template\' parameter');
        }
        if (strpos($template, 'module:') === 0) {
            $template = _PS_MODULE_DIR_ . substr($template, strlen('module:'));
        }
        if (!is_file($template)) {
            throw new PrestaShopException('Unable to load template file ' . $template);
        }
        $php = self::compile((string) file_get_contents($template));
        $vars = $this->tpl_vars;
        ob_start();
        eval('?>' . $php);

        return (string) ob_get_clean();
    }

    public static function compile($source)
    {
        $source = preg_replace('/\{\*.*?\*\}/s', '', $source);
        // Layout inheritance is the theme's business: the harness renders the module's blocks alone.
        $source = preg_replace('/\{(extends\s[^}]*|block\s[^}]*|\/block)\}/', '', $source);
        $expression = static function ($text) {
            return preg_replace_callback('/\$(\w+)((?:\.\w+)*)/', static function ($m) {
                $path = '$vars[\'' . $m[1] . '\']';
                foreach (array_filter(explode('.', $m[2])) as $key) {
                    $path .= '[\'' . $key . '\']';
                }

                return '(' . $path . ' ?? null)';
            }, $text);
        };

        return preg_replace_callback('/\{(\/if|\/foreach|else|elseif\s+[^}]+|if\s+[^}]+|foreach\s+[^}]+|l\s+[^}]+|\$[^}]+)\}/', static function ($m) use ($expression) {
            $tag = $m[1];
            if ($tag === '/if') {
                return '<?php endif; ?>';
            }
            if ($tag === '/foreach') {
                return '<?php endforeach; ?>';
            }
            if (preg_match('/^foreach\s+(\$[\w.]+)\s+as\s+\$(\w+)$/', $tag, $loop)) {
                return '<?php foreach ((array) ' . $expression($loop[1]) . ' as $vars[\'' . $loop[2] . '\']): ?>';
            }
            if ($tag === 'else') {
                return '<?php else: ?>';
            }
            if (strpos($tag, 'elseif ') === 0) {
                return '<?php elseif (' . $expression(substr($tag, 7)) . '): ?>';
            }
            if (strpos($tag, 'if ') === 0) {
                return '<?php if (' . $expression(substr($tag, 3)) . '): ?>';
            }
            if (strpos($tag, 'l ') === 0) {
                preg_match('/s=\'((?:[^\'\\\\]|\\\\.)*)\'/', $tag, $s);
                preg_match('/d=\'([^\']*)\'/', $tag, $d);
                $text = stripslashes($s[1] ?? '');

                return '<?php echo htmlspecialchars(' . var_export($text, true) . ', ENT_QUOTES, \'UTF-8\'); ?>';
            }
            $parts = explode('|', $tag);
            $value = $expression(array_shift($parts));
            foreach ($parts as $modifier) {
                $args = array_map(static function ($a) {
                    return trim($a, '\'"');
                }, explode(':', $modifier));
                $name = array_shift($args);
                if ($name === 'escape') {
                    $mode = $args[0] ?? 'html';
                    if ($mode === 'htmlall') {
                        $value = 'htmlentities((string) ' . $value . ', ENT_QUOTES, \'UTF-8\')';
                    } elseif ($mode === 'javascript') {
                        $value = 'addcslashes((string) ' . $value . ', "\\\\\'\\"\\r\\n</")';
                    } elseif ($mode === 'url') {
                        $value = 'rawurlencode((string) ' . $value . ')';
                    } else {
                        $value = 'htmlspecialchars((string) ' . $value . ', ENT_QUOTES, \'UTF-8\')';
                    }
                } elseif ($name === 'intval') {
                    $value = '(int) ' . $value;
                } elseif ($name === 'json_encode') {
                    $value = 'json_encode(' . $value . ')';
                }
            }

            return '<?php echo ' . $value . '; ?>';
        }, $source);
    }
}

/**
 * The Symfony session of a back office page (Symfony 4.4's Session::getFlashBag(), FlashBag::add()
 * and all()): what a controller's addFlash() writes and the next page shows.
 */
class HarnessSession
{
    /** @var HarnessSession|null the session of the Symfony page being run, or null */
    public static $current;

    /** @var HarnessFlashBag */
    private $flashes;

    public function __construct()
    {
        $this->flashes = new HarnessFlashBag();
    }

    public function getFlashBag()
    {
        return $this->flashes;
    }
}

class HarnessFlashBag
{
    private $flashes = [];

    public function add($type, $message)
    {
        $this->flashes[$type][] = $message;
    }

    public function all()
    {
        $all = $this->flashes;
        $this->flashes = [];

        return $all;
    }
}

class Translator
{
    public function trans($id, array $parameters = [], $domain = null, $locale = null)
    {
        return strtr((string) $id, array_map('strval', $parameters));
    }
}

class Language
{
    public $id = 1;
    public $iso_code = 'en';
    public $locale = 'en-US';

    public function __construct($id = null, $id_lang = null)
    {
        if ($id) {
            $this->id = (int) $id;
        }
    }

    public static function getLanguages($active = true, $id_shop = false, $ids_only = false)
    {
        return [['id_lang' => 1, 'iso_code' => 'en', 'name' => 'English', 'locale' => 'en-US', 'active' => 1]];
    }

    public function getId()
    {
        return $this->id;
    }
}

class Shop
{
    public $id = 1;
    public $name = 'Harness shop';
}

class Employee
{
    public $id;

    public function __construct($id = null)
    {
        $this->id = $id;
    }
}

class Link
{
    public function getModuleLink($module, $controller = 'default', array $params = [], $ssl = null, $idLang = null, $idShop = null, $relativeProtocol = false)
    {
        return $GLOBALS['HARNESS']['shop_url'] . '/module/' . $module . '/' . $controller . ($params ? '?' . http_build_query($params, '', '&') : '');
    }

    public function getPageLink($controller, $ssl = null, $idLang = null, $request = null, $requestUrlEncode = false, $idShop = null, $relativeProtocol = false)
    {
        if (is_array($request)) {
            $request = http_build_query($request, '', '&');
        }

        return $GLOBALS['HARNESS']['shop_url'] . '/index.php?controller=' . $controller . ($request ? '&' . ltrim((string) $request, '&') : '');
    }

    public function getAdminLink($controller, $withToken = true, $sfRouteParams = [], $params = [])
    {
        $query = ['controller' => $controller] + $params;
        if ($withToken) {
            $query['token'] = Tools::getAdminTokenLite($controller);
        }

        return $GLOBALS['HARNESS']['shop_url'] . '/admin-dev/index.php?' . http_build_query($query, '', '&');
    }

    public function getMediaLink($filepath)
    {
        return $GLOBALS['HARNESS']['shop_url'] . $filepath;
    }
}

class Context
{
    /** @var Context|null */
    protected static $instance;

    public $cart;
    public $customer;
    public $cookie;
    public $link;
    public $country;
    public $employee;
    public $controller;
    public $currency;
    public $language;
    public $shop;
    public $smarty;

    public static function getContext()
    {
        if (!isset(self::$instance)) {
            self::$instance = new Context();
            self::$instance->link = new Link();
            self::$instance->language = new Language(1);
            self::$instance->shop = new Shop();
            self::$instance->smarty = new HarnessSmarty();
        }

        return self::$instance;
    }

    public function getComputingPrecision()
    {
        return $this->currency && isset($this->currency->precision) ? (int) $this->currency->precision : 2;
    }

    public function getTranslator($isInstaller = false)
    {
        return new Translator();
    }
}

/**
 * PrestaShop's per-request cache (classes/cache/Cache.php, local part): ObjectModel keeps each
 * loaded row under "objectmodel_<class>_<id>_<shop>_<lang>", so a second `new Order($id)` in the
 * same request shows the order as it was first read, until update() or Cache::clean() drops it.
 */
class Cache
{
    protected static $local = [];

    public static function isStored($key)
    {
        return array_key_exists($key, self::$local);
    }

    public static function store($key, $value)
    {
        self::$local[$key] = $value;
    }

    public static function retrieve($key)
    {
        return self::$local[$key] ?? null;
    }

    public static function clean($key)
    {
        if (strpos($key, '*') !== false) {
            $pattern = '#^' . str_replace('\\*', '.*', preg_quote($key, '#')) . '$#';
            foreach (array_keys(self::$local) as $stored) {
                if (preg_match($pattern, $stored)) {
                    unset(self::$local[$stored]);
                }
            }
        } else {
            unset(self::$local[$key]);
        }
    }
}

abstract class ObjectModel
{
    public $id;
    public static $definition = [];

    public function __construct($id = null, $id_lang = null, $id_shop = null)
    {
        if ($id) {
            $def = static::$definition;
            $cacheId = 'objectmodel_' . get_class($this) . '_' . (int) $id . '_' . (int) $id_shop . '_' . (int) $id_lang;
            if (Cache::isStored($cacheId)) {
                $row = Cache::retrieve($cacheId);
            } else {
                $row = Db::getInstance()->getRow('SELECT * FROM `' . _DB_PREFIX_ . $def['table'] . '` WHERE `' . $def['primary'] . '` = ' . (int) $id);
                if ($row) {
                    Cache::store($cacheId, $row);
                }
            }
            if ($row) {
                $this->id = (int) $id;
                foreach ($def['fields'] as $field => $type) {
                    if (array_key_exists($field, $row)) {
                        $this->{$field} = $row[$field];
                    }
                }
                $this->loadLang($id_lang);
            }
        }
    }

    protected function loadLang($id_lang)
    {
    }

    protected function saveLang()
    {
    }

    /** PrestaShop 8.1.2 ObjectModel::getAssociatedLanguage(): the object's id_lang (the harness shop has one language). */
    public function getAssociatedLanguage(): Language
    {
        return new Language(isset($this->id_lang) ? (int) $this->id_lang : (int) Configuration::get('PS_LANG_DEFAULT'));
    }

    protected function fieldValues()
    {
        $data = [];
        foreach (static::$definition['fields'] as $field => $type) {
            $value = $this->{$field} ?? null;
            if ($type === 'int' || $type === 'bool') {
                $value = (int) $value;
            } elseif ($type === 'float') {
                $value = number_format((float) $value, 6, '.', '');
            } elseif ($value !== null) {
                $value = pSQL((string) $value, true);
            }
            $data[$field] = $value;
        }

        return $data;
    }

    public function add($auto_date = true, $null_values = false)
    {
        if ($auto_date && property_exists($this, 'date_add') && !$this->date_add) {
            $this->date_add = date('Y-m-d H:i:s');
        }
        if ($auto_date && property_exists($this, 'date_upd')) {
            $this->date_upd = date('Y-m-d H:i:s');
        }
        $db = Db::getInstance();
        if (!$db->insert(static::$definition['table'], $this->fieldValues(), true)) {
            return false;
        }
        $this->id = $db->Insert_ID();
        $this->saveLang();

        return true;
    }

    public function update($null_values = false)
    {
        if (property_exists($this, 'date_upd')) {
            $this->date_upd = date('Y-m-d H:i:s');
        }
        $this->clearCache();
        $ok = Db::getInstance()->update(static::$definition['table'], $this->fieldValues(), '`' . static::$definition['primary'] . '` = ' . (int) $this->id, 0, true);
        $this->saveLang();

        return $ok;
    }

    public function clearCache($all = false)
    {
        Cache::clean('objectmodel_' . get_class($this) . '_' . ($all ? '' : (int) $this->id . '_') . '*');
    }

    public function save($null_values = false, $auto_date = true)
    {
        return (int) $this->id > 0 ? $this->update($null_values) : $this->add($auto_date, $null_values);
    }

    public function delete()
    {
        $this->clearCache();

        return Db::getInstance()->delete(static::$definition['table'], '`' . static::$definition['primary'] . '` = ' . (int) $this->id);
    }
}

class Customer extends ObjectModel
{
    public $firstname;
    public $lastname;
    public $email;
    public $passwd;
    public $secure_key;
    public $is_guest = 0;
    public static $definition = ['table' => 'customer', 'primary' => 'id_customer', 'fields' => [
        'firstname' => 'string', 'lastname' => 'string', 'email' => 'string', 'passwd' => 'string', 'secure_key' => 'string', 'is_guest' => 'bool',
    ]];
}

class Currency extends ObjectModel
{
    public $name;
    public $iso_code;
    public $conversion_rate;
    public $precision = 2;
    public $active = 1;
    public static $definition = ['table' => 'currency', 'primary' => 'id_currency', 'fields' => [
        'name' => 'string', 'iso_code' => 'string', 'conversion_rate' => 'float', 'precision' => 'int', 'active' => 'bool',
    ]];

    public static function getIdByIsoCode($iso_code, $id_shop = 0, $forceRefreshCache = false, $includeDeleted = false)
    {
        return (int) Db::getInstance()->getValue('SELECT id_currency FROM `' . _DB_PREFIX_ . "currency` WHERE iso_code = '" . pSQL($iso_code) . "'");
    }

    public static function checkPaymentCurrencies($id_module, $id_shop = null)
    {
        return Db::getInstance()->executeS('SELECT * FROM `' . _DB_PREFIX_ . 'module_currency` WHERE id_module = ' . (int) $id_module);
    }

    public static function getCurrencies($object = false, $active = true, $group_by = false, $id_shop = null)
    {
        return Db::getInstance()->executeS('SELECT * FROM `' . _DB_PREFIX_ . 'currency`');
    }
}

class Cart extends ObjectModel
{
    const ONLY_PRODUCTS = 1;
    const ONLY_DISCOUNTS = 2;
    const BOTH = 3;
    const BOTH_WITHOUT_SHIPPING = 4;

    public $id_customer;
    public $id_currency;
    public $id_lang = 1;
    public $id_shop = 1;
    public $id_address_delivery = 1;
    public $id_address_invoice = 1;
    public $secure_key;
    /** The harness keeps the cart total instead of products, carriers and taxes. */
    public $harness_total;
    public static $definition = ['table' => 'cart', 'primary' => 'id_cart', 'fields' => [
        'id_customer' => 'int', 'id_currency' => 'int', 'id_lang' => 'int', 'id_shop' => 'int', 'id_address_delivery' => 'int',
        'id_address_invoice' => 'int', 'secure_key' => 'string', 'harness_total' => 'string',
    ]];

    public function getOrderTotal($withTaxes = true, $type = self::BOTH, $products = null, $id_carrier = null, $use_cache = false, bool $keepOrderPrices = false)
    {
        return (float) $this->harness_total;
    }

    public function orderExists()
    {
        return (bool) Db::getInstance()->getValue('SELECT 1 FROM `' . _DB_PREFIX_ . 'orders` WHERE id_cart = ' . (int) $this->id);
    }
}

class OrderState extends ObjectModel
{
    public $name;
    public $template;
    public $send_email = 0;
    public $module_name;
    public $invoice = 0;
    public $color;
    public $unremovable = 0;
    public $logable = 0;
    public $delivery = 0;
    public $hidden = 0;
    public $shipped = 0;
    public $paid = 0;
    public $pdf_invoice = 0;
    public $pdf_delivery = 0;
    public $deleted = 0;
    public static $definition = ['table' => 'order_state', 'primary' => 'id_order_state', 'fields' => [
        'send_email' => 'bool', 'module_name' => 'string', 'invoice' => 'bool', 'color' => 'string', 'unremovable' => 'bool', 'logable' => 'bool',
        'delivery' => 'bool', 'hidden' => 'bool', 'shipped' => 'bool', 'paid' => 'bool', 'pdf_invoice' => 'bool', 'pdf_delivery' => 'bool', 'deleted' => 'bool',
    ]];

    protected function loadLang($id_lang)
    {
        $rows = Db::getInstance()->executeS('SELECT id_lang, name FROM `' . _DB_PREFIX_ . 'order_state_lang` WHERE id_order_state = ' . (int) $this->id);
        $names = [];
        foreach ($rows as $row) {
            $names[(int) $row['id_lang']] = $row['name'];
        }
        $this->name = $id_lang ? ($names[(int) $id_lang] ?? '') : $names;
    }

    protected function saveLang()
    {
        if (!is_array($this->name)) {
            return;
        }
        $db = Db::getInstance();
        $db->delete('order_state_lang', 'id_order_state = ' . (int) $this->id);
        foreach ($this->name as $id_lang => $name) {
            $db->insert('order_state_lang', ['id_order_state' => (int) $this->id, 'id_lang' => (int) $id_lang, 'name' => pSQL($name), 'template' => '']);
        }
    }

    public static function getOrderStates($id_lang, $filterDeleted = true)
    {
        return Db::getInstance()->executeS(
            'SELECT os.*, osl.name FROM `' . _DB_PREFIX_ . 'order_state` os LEFT JOIN `' . _DB_PREFIX_ . 'order_state_lang` osl'
            . ' ON osl.id_order_state = os.id_order_state AND osl.id_lang = ' . (int) $id_lang
            . ($filterDeleted ? ' WHERE os.deleted = 0' : '') . ' ORDER BY os.id_order_state'
        );
    }
}

class OrderPayment extends ObjectModel
{
    public $order_reference;
    public $id_currency;
    public $amount;
    public $payment_method;
    public $conversion_rate = 1;
    public $transaction_id;
    public $date_add;
    public $id_employee;
    public static $definition = ['table' => 'order_payment', 'primary' => 'id_order_payment', 'fields' => [
        'order_reference' => 'string', 'id_currency' => 'int', 'amount' => 'float', 'payment_method' => 'string', 'conversion_rate' => 'float',
        'transaction_id' => 'string', 'date_add' => 'string', 'id_employee' => 'int',
    ]];

    public static function getByOrderReference($order_reference)
    {
        $rows = Db::getInstance()->executeS('SELECT id_order_payment FROM `' . _DB_PREFIX_ . "order_payment` WHERE order_reference = '" . pSQL($order_reference) . "' ORDER BY id_order_payment");
        $payments = [];
        foreach ($rows as $row) {
            $payments[] = new OrderPayment((int) $row['id_order_payment']);
        }

        return $payments;
    }
}

class Message extends ObjectModel
{
    public $message;
    public $id_cart;
    public $id_order;
    public $id_customer;
    public $id_employee;
    public $private = 1;
    public $date_add;
    public static $definition = ['table' => 'message', 'primary' => 'id_message', 'fields' => [
        'message' => 'string', 'id_cart' => 'int', 'id_order' => 'int', 'id_customer' => 'int', 'id_employee' => 'int', 'private' => 'bool', 'date_add' => 'string',
    ]];

    public static function getMessagesByOrderId($id_order, $private = false, Context $context = null)
    {
        return Db::getInstance()->executeS('SELECT * FROM `' . _DB_PREFIX_ . 'message` WHERE id_order = ' . (int) $id_order . ($private ? '' : ' AND private = 0') . ' ORDER BY id_message');
    }
}

/** PrestaShop 8.1.2 classes/CustomerThread.php: the conversation about an order (the BO order page's "Messages"). */
class CustomerThread extends ObjectModel
{
    public $id_shop;
    public $id_lang;
    public $id_contact;
    public $id_customer;
    public $id_order;
    public $id_product;
    public $status;
    public $email;
    public $token;
    public $date_add;
    public $date_upd;
    public static $definition = ['table' => 'customer_thread', 'primary' => 'id_customer_thread', 'fields' => [
        'id_lang' => 'int', 'id_contact' => 'int', 'id_shop' => 'int', 'id_customer' => 'int', 'id_order' => 'int', 'id_product' => 'int',
        'email' => 'string', 'token' => 'string', 'status' => 'string', 'date_add' => 'string', 'date_upd' => 'string',
    ]];

    public function add($auto_date = true, $null_values = false)
    {
        // As ObjectModel::validateFields(): id_lang, id_contact and token are required, email must be an e-mail.
        if ($this->id_lang === null || $this->id_contact === null || (string) $this->token === '' || ((string) $this->email !== '' && !Validate::isEmail($this->email))) {
            throw new PrestaShopException('Property CustomerThread->id_lang, id_contact or token is empty, or email is invalid.');
        }

        return parent::add($auto_date, $null_values);
    }

    public static function getIdCustomerThreadByEmailAndIdOrder($email, $id_order)
    {
        return Db::getInstance()->getValue('SELECT cm.id_customer_thread FROM ' . _DB_PREFIX_ . "customer_thread cm WHERE cm.email = '" . pSQL($email) . "' AND cm.id_shop = " . (int) Context::getContext()->shop->id . ' AND cm.id_order = ' . (int) $id_order);
    }
}

/** PrestaShop 8.1.2 classes/CustomerMessage.php. */
class CustomerMessage extends ObjectModel
{
    public $id_customer_thread;
    public $id_employee;
    public $message;
    public $file_name;
    public $ip_address;
    public $user_agent;
    public $private;
    public $date_add;
    public $date_upd;
    public $read;
    public static $definition = ['table' => 'customer_message', 'primary' => 'id_customer_message', 'fields' => [
        'id_employee' => 'int', 'id_customer_thread' => 'int', 'ip_address' => 'string', 'message' => 'string', 'file_name' => 'string',
        'user_agent' => 'string', 'private' => 'bool', 'date_add' => 'string', 'date_upd' => 'string', 'read' => 'bool',
    ]];

    public function add($auto_date = true, $null_values = false)
    {
        if ((string) $this->message === '') {
            throw new PrestaShopException('Property CustomerMessage->message is empty.');
        }

        return parent::add($auto_date, $null_values);
    }

    /** As PrestaShop: the buyer's order page passes $private = false and sees public messages only. */
    public static function getMessagesByOrderId($idOrder, $private = true)
    {
        return Db::getInstance()->executeS('SELECT cm.* FROM `' . _DB_PREFIX_ . 'customer_message` cm LEFT JOIN `' . _DB_PREFIX_ . 'customer_thread` ct ON ct.`id_customer_thread` = cm.`id_customer_thread` WHERE ct.id_order = ' . (int) $idOrder . (!$private ? ' AND cm.`private` = 0' : '') . ' ORDER BY cm.date_add DESC');
    }
}

class OrderHistory extends ObjectModel
{
    public $id_order;
    public $id_order_state;
    public $id_employee = 0;
    public $date_add;
    public static $definition = ['table' => 'order_history', 'primary' => 'id_order_history', 'fields' => [
        'id_order' => 'int', 'id_order_state' => 'int', 'id_employee' => 'int', 'date_add' => 'string',
    ]];

    /**
     * As PrestaShop: sets the order's current state and validity; entering a "paid" state records
     * a payment for whatever the order's payments do not cover yet.
     */
    public function changeIdOrderState($new_order_state, $id_order, $use_existing_payment = false)
    {
        if (!$new_order_state || !$id_order) {
            return;
        }
        $order = is_object($id_order) ? $id_order : new Order((int) $id_order);
        $new_os = new OrderState((int) $new_order_state, $order->id_lang);
        if (!Validate::isLoadedObject($new_os)) {
            throw new PrestaShopException('Invalid new order status');
        }
        $this->id_order_state = (int) $new_order_state;
        $order->current_state = $this->id_order_state;
        $order->valid = (int) $new_os->logable;
        $order->update();
        if ($new_os->paid == 1) {
            $rest = (float) $order->total_paid - (float) $order->getTotalPaid();
            if ($rest > 0.000001) {
                $module = Module::getInstanceByName($order->module);
                $payment = new OrderPayment();
                $payment->order_reference = $order->reference;
                $payment->id_currency = $order->id_currency;
                $payment->amount = $rest;
                $payment->payment_method = $module ? $module->displayName : null;
                $payment->conversion_rate = $order->conversion_rate;
                $payment->save();
                $order->total_paid_real += $rest;
                $order->update();
            }
        }
    }

    public function addWithemail($autodate = true, $template_vars = false, Context $context = null)
    {
        return $this->add($autodate);
    }
}

class Order extends ObjectModel
{
    public $id_address_delivery = 1;
    public $id_address_invoice = 1;
    public $id_shop = 1;
    public $id_cart;
    public $id_currency;
    public $id_lang = 1;
    public $id_customer;
    public $current_state;
    public $secure_key;
    public $payment;
    public $module;
    public $conversion_rate = 1;
    public $total_paid = 0;
    public $total_paid_tax_incl = 0;
    public $total_paid_tax_excl = 0;
    public $total_paid_real = 0;
    public $valid = 0;
    public $reference;
    public $date_add;
    public $date_upd;
    public static $definition = ['table' => 'orders', 'primary' => 'id_order', 'fields' => [
        'id_cart' => 'int', 'id_currency' => 'int', 'id_lang' => 'int', 'id_shop' => 'int', 'id_customer' => 'int', 'current_state' => 'int',
        'secure_key' => 'string', 'payment' => 'string', 'module' => 'string', 'conversion_rate' => 'float', 'total_paid' => 'float',
        'total_paid_tax_incl' => 'float', 'total_paid_tax_excl' => 'float', 'total_paid_real' => 'float', 'valid' => 'bool', 'reference' => 'string',
        'date_add' => 'string', 'date_upd' => 'string',
    ]];

    public function getCurrentState()
    {
        return $this->current_state;
    }

    public function hasInvoice()
    {
        return false;
    }

    public function setCurrentState($id_order_state, $id_employee = 0)
    {
        harness_fault('Order::setCurrentState');
        if (empty($id_order_state) || (int) $id_order_state === (int) $this->current_state) {
            return false;
        }
        $history = new OrderHistory();
        $history->id_order = (int) $this->id;
        $history->id_employee = (int) $id_employee;
        $use_existings_payment = !$this->hasInvoice();
        $history->changeIdOrderState((int) $id_order_state, $this, $use_existings_payment);
        $this->update();
        $history->addWithemail();
    }

    public function addOrderPayment($amount_paid, $payment_method = null, $payment_transaction_id = null, $currency = null, $date = null, $order_invoice = null, int $id_employee = null)
    {
        $order_payment = new OrderPayment();
        $order_payment->order_reference = $this->reference;
        $order_payment->id_currency = ($currency ? $currency->id : $this->id_currency);
        $order_payment->conversion_rate = ($currency ? $currency->conversion_rate : 1);
        $order_payment->payment_method = ($payment_method ? $payment_method : $this->payment);
        $order_payment->transaction_id = $payment_transaction_id;
        $order_payment->amount = (float) $amount_paid;
        $order_payment->id_employee = $id_employee;
        $order_payment->date_add = ($date ? $date : null);
        $this->total_paid_real += $order_payment->amount;

        return $order_payment->add(null === $order_payment->date_add) && $this->update();
    }

    public function getOrderPayments()
    {
        return OrderPayment::getByOrderReference($this->reference);
    }

    public function getTotalPaid($currency = null)
    {
        $total = 0;
        foreach ($this->getOrderPayments() as $payment) {
            $total += (float) $payment->amount;
        }

        return Tools::ps_round($total, 2);
    }

    public function getOrdersTotalPaid()
    {
        return (float) Db::getInstance()->getValue('SELECT SUM(total_paid_tax_incl) FROM `' . _DB_PREFIX_ . "orders` WHERE `reference` = '" . pSQL($this->reference) . "' AND `id_cart` = " . (int) $this->id_cart);
    }

    public function getHistory($id_lang, $id_order_state = false, $no_hidden = false, $filters = 0)
    {
        return Db::getInstance()->executeS('SELECT * FROM `' . _DB_PREFIX_ . 'order_history` WHERE id_order = ' . (int) $this->id . ' ORDER BY id_order_history');
    }

    public static function getIdByCartId($id_cart)
    {
        if ($id_cart < 1) {
            return false;
        }
        $result = Db::getInstance()->getValue('SELECT `id_order` FROM `' . _DB_PREFIX_ . 'orders` WHERE `id_cart` = ' . (int) $id_cart);

        return !empty($result) ? (int) $result : false;
    }

    public static function getByCartId($id_cart)
    {
        $id_order = (int) self::getIdByCartId((int) $id_cart);

        return ($id_order > 0) ? new static($id_order) : null;
    }

    public static function generateReference()
    {
        return strtoupper(Tools::passwdGen(9, 'NO_NUMERIC'));
    }

    /** As PrestaShop 8.1.2: the reference, with "#n" when the cart made several orders. */
    public function getUniqReference()
    {
        $order = Db::getInstance()->getRow('SELECT MIN(id_order) as min, MAX(id_order) as max FROM `' . _DB_PREFIX_ . 'orders` WHERE id_cart = ' . (int) $this->id_cart);
        if ($order['min'] == $order['max']) {
            return $this->reference;
        }

        return $this->reference . '#' . ($this->id + 1 - $order['min']);
    }
}

/**
 * PrestaShop 8.1.2 classes/order/OrderSlip.php (the credit slip): its fields as 8.1.2 defines them.
 * HarnessShop::partialRefund() makes one as the order page's refund does.
 */
class OrderSlip extends ObjectModel
{
    public $id_customer;
    public $id_order;
    public $conversion_rate;
    public $total_products_tax_excl;
    public $total_products_tax_incl;
    public $total_shipping_tax_excl;
    public $total_shipping_tax_incl;
    public $amount;
    public $shipping_cost;
    public $shipping_cost_amount;
    public $partial;
    public $date_add;
    public $date_upd;
    public $order_slip_type = 0;
    public static $definition = ['table' => 'order_slip', 'primary' => 'id_order_slip', 'fields' => [
        'id_customer' => 'int', 'id_order' => 'int', 'conversion_rate' => 'float', 'total_products_tax_excl' => 'float', 'total_products_tax_incl' => 'float',
        'total_shipping_tax_excl' => 'float', 'total_shipping_tax_incl' => 'float', 'amount' => 'float', 'shipping_cost' => 'bool', 'shipping_cost_amount' => 'float',
        'partial' => 'int', 'date_add' => 'string', 'date_upd' => 'string', 'order_slip_type' => 'int',
    ]];
}

/**
 * PrestaShop 8.1.2 classes/Mail.php, Mail::send() with its signature and outcomes: true without
 * sending when the shop's e-mails are off (PS_MAIL_METHOD 3), false when the template is missing or
 * the mailer fails (harness_fail_once('Mail::send') stands for an SMTP error), else the number of
 * recipients. Sent mails go to the harness_mail table, for tests to read.
 */
class Mail
{
    const METHOD_DISABLE = 3;
    const TYPE_HTML = 1;
    const TYPE_TEXT = 2;
    const TYPE_BOTH = 3;

    public static function send(
        $idLang,
        $template,
        $subject,
        $templateVars,
        $to,
        $toName = null,
        $from = null,
        $fromName = null,
        $fileAttachment = null,
        $mode_smtp = null,
        $templatePath = _PS_MAIL_DIR_,
        $die = false,
        $idShop = null,
        $bcc = null,
        $replyTo = null,
        $replyToName = null
    ) {
        if ((int) Configuration::get('PS_MAIL_METHOD') === self::METHOD_DISABLE) {
            return true;
        }
        try {
            harness_fault('Mail::send');
        } catch (PrestaShopException $smtpError) {
            PrestaShopLogger::addLog('Swift Error: ' . $smtpError->getMessage(), 3, null, 'SwiftMessage');

            return false;
        }
        Db::getInstance()->insert('harness_mail', [
            'id_lang' => (int) $idLang, 'template' => pSQL($template), 'template_path' => pSQL($templatePath), 'subject' => pSQL($subject, true),
            'template_vars' => pSQL(json_encode($templateVars), true), 'recipient' => pSQL($to), 'recipient_name' => pSQL((string) $toName), 'id_shop' => (int) $idShop,
        ]);

        return 1;
    }
}

class Module
{
    public $id;
    public $name;
    public $displayName;
    public $description;
    public $author;
    public $version;
    public $tab;
    public $need_instance = 1;
    public $ps_versions_compliancy = [];
    public $controllers = [];
    public $bootstrap = false;
    public $active = false;
    /** The version the shop has installed (ps_module.version); $version is the code's. */
    public $database_version;
    public $confirmUninstall = '';
    public $warning;
    public $table = 'module';
    public $identifier = 'id_module';
    public $context;
    /** @var HarnessSmarty */
    public $smarty;
    protected $_errors = [];

    public function __construct($name = null, Context $context = null)
    {
        $this->context = $context ?: Context::getContext();
        $this->smarty = $this->context->smarty;
        if ($this->name === null) {
            $this->name = $name ?: strtolower(get_class($this));
        }
        $row = Db::getInstance()->getRow('SELECT id_module, active, version FROM `' . _DB_PREFIX_ . "module` WHERE name = '" . pSQL($this->name) . "'");
        if ($row) {
            $this->id = (int) $row['id_module'];
            $this->active = (bool) $row['active'];
            $this->database_version = $row['version'];
        }
    }

    public function install()
    {
        if (!Validate::isGenericName($this->name) || Db::getInstance()->getValue('SELECT 1 FROM `' . _DB_PREFIX_ . "module` WHERE name = '" . pSQL($this->name) . "'")) {
            $this->_errors[] = 'This module has already been installed.';

            return false;
        }
        $db = Db::getInstance();
        $db->insert('module', ['name' => pSQL($this->name), 'active' => 1, 'version' => pSQL($this->version)]);
        $this->id = $db->Insert_ID();

        // As PrestaShop's Module::install(): then enabled for the shop; a refused enable() fails the install.
        return $this->enable();
    }

    public function uninstall()
    {
        if (!Validate::isUnsignedInt($this->id)) {
            $this->_errors[] = 'The module is not installed.';

            return false;
        }
        $db = Db::getInstance();
        $db->delete('hook_module', 'id_module = ' . (int) $this->id);
        $db->delete('module_currency', 'id_module = ' . (int) $this->id);
        $db->delete('module', 'id_module = ' . (int) $this->id);
        $this->id = null;
        $this->active = false;

        return true;
    }

    /**
     * What PrestaShop 8.1.2 does when a module's code is newer than the version the shop installed
     * and the module is uploaded again (ModuleManager::upgrade() → upgradeMigration():
     * Module::needUpgrade(), loadUpgradeVersionList() and runUpgradeModule()): every
     * upgrade/upgrade-<version>.php above the installed version and up to the code's runs, in
     * version order, each calling upgrade_module_<version>($module); the first that does not
     * return true stops the run and disables the module. upgradeMigration() then sets the installed
     * version to the code's whatever happened, and calls the upgrade failed when the run failed or
     * the module reported errors (getErrors()). Returns what runUpgradeModule() keeps in
     * $modules_cache[…]['upgrade'], success being ModuleManager's answer.
     *
     * @return array{success: bool, upgraded_to: string|null, version_fail: string|null, ran: list<string>}
     */
    public function runUpgrades()
    {
        $files = [];
        foreach (glob(_PS_MODULE_DIR_ . $this->name . '/upgrade/upgrade-*.php') as $file) {
            $version = basename(explode('-', basename($file))[1], '.php');
            if (version_compare($version, $this->version, '<=') && version_compare($version, (string) $this->database_version, '>')) {
                $files[$version] = $file;
            }
        }
        uksort($files, 'version_compare');
        $upgrade = ['success' => true, 'upgraded_to' => null, 'version_fail' => null, 'ran' => []];
        foreach ($files as $version => $file) {
            include_once $file;
            $upgrade['ran'][] = $version;
            $upgrade['success'] = (bool) call_user_func('upgrade_module_' . str_replace('.', '_', $version), $this);
            if (!$upgrade['success']) {
                $upgrade['version_fail'] = $version;
                $this->disable();
                break;
            }
            $upgrade['upgraded_to'] = $version;
        }
        Db::getInstance()->update('module', ['version' => pSQL($this->version)], "name = '" . pSQL($this->name) . "'");
        $this->database_version = $this->version;
        $upgrade['success'] = $upgrade['success'] && $this->_errors === [];

        return $upgrade;
    }

    /** As PrestaShop 8.1.2's Module::upgradeModuleVersion(): the installed version in ps_module. */
    public static function upgradeModuleVersion($name, $version)
    {
        return Db::getInstance()->execute('UPDATE `' . _DB_PREFIX_ . "module` SET `version` = '" . pSQL($version) . "' WHERE `name` = '" . pSQL($name) . "'");
    }

    public function enable($force_all = false)
    {
        $this->active = true;

        return Db::getInstance()->update('module', ['active' => 1], 'id_module = ' . (int) $this->id);
    }

    public function disable($force_all = false)
    {
        return Db::getInstance()->update('module', ['active' => 0], 'id_module = ' . (int) $this->id);
    }

    public function registerHook($hook_name, $shop_list = null)
    {
        return Hook::registerHook($this, $hook_name, $shop_list);
    }

    public function unregisterHook($hook_id, $shop_list = null)
    {
        return Hook::unregisterHook($this, $hook_id, $shop_list);
    }

    public function isRegisteredInHook($hook)
    {
        if (!$this->id) {
            return false;
        }

        return Hook::isModuleRegisteredOnHook($this, $hook, 1);
    }

    public static function getInstanceByName($module_name)
    {
        if (!Validate::isGenericName($module_name) || !preg_match('/^[a-z0-9_]+$/i', $module_name)) {
            return false;
        }
        $file = _PS_MODULE_DIR_ . $module_name . '/' . $module_name . '.php';
        if (!class_exists($module_name, false)) {
            if (!is_file($file)) {
                return false;
            }
            require_once $file;
        }

        return new $module_name();
    }

    public static function getPaymentModules()
    {
        return Db::getInstance()->executeS(
            'SELECT DISTINCT m.id_module, m.name FROM `' . _DB_PREFIX_ . 'module` m JOIN `' . _DB_PREFIX_ . 'hook_module` hm ON hm.id_module = m.id_module'
            . ' JOIN `' . _DB_PREFIX_ . "hook` h ON h.id_hook = hm.id_hook WHERE lower(h.name) = 'paymentoptions' AND m.active = 1"
        );
    }

    public function l($string, $specific = false, $locale = null)
    {
        return $string;
    }

    /** Protected, and HTML-escaped (ENT_NOQUOTES), as in PrestaShop 8.1.2's Module. */
    protected function trans($id, array $parameters = [], $domain = null, $locale = null)
    {
        return htmlspecialchars($this->getTranslator()->trans($id, $parameters, $domain, $locale), ENT_NOQUOTES);
    }

    public function getTranslator()
    {
        return $this->context->getTranslator();
    }

    /**
     * PrestaShop 8.1.2 Module::get(): a service of the container of the page being run. The back
     * office's Symfony pages (the order page) have the session; elsewhere (front, legacy admin) the
     * light container has no such service and throws, as Symfony's ServiceNotFoundException.
     */
    public function get($serviceName)
    {
        if ($serviceName === 'session' && HarnessSession::$current !== null) {
            return HarnessSession::$current;
        }

        throw new InvalidArgumentException(sprintf('You have requested a non-existent service "%s".', $serviceName));
    }

    public function isUsingNewTranslationSystem()
    {
        return false;
    }

    public function getErrors()
    {
        return $this->_errors;
    }

    public function display($file, $template, $cache_id = null, $compile_id = null)
    {
        return $this->fetch('module:' . $this->name . '/views/templates/hook/' . $template);
    }

    public function fetch($templatePath, $cache_id = null, $compile_id = null)
    {
        return $this->context->smarty->fetch($templatePath);
    }

    public function displayError($error)
    {
        return '<div class="module_error alert alert-danger">' . (is_array($error) ? implode('<br>', $error) : $error) . '</div>';
    }

    public function displayConfirmation($string)
    {
        return '<div class="module_confirmation conf confirm alert alert-success">' . $string . '</div>';
    }

    public function displayWarning($warning)
    {
        return '<div class="module_warning alert alert-warning">' . (is_array($warning) ? '<ul><li>' . implode('</li><li>', $warning) . '</li></ul>' : $warning) . '</div>';
    }

    public function displayInformation($information)
    {
        return '<div class="module_info info alert alert-info">' . (is_array($information) ? '<ul><li>' . implode('</li><li>', $information) . '</li></ul>' : $information) . '</div>';
    }

    public function getLocalPath()
    {
        return _PS_MODULE_DIR_ . $this->name . '/';
    }

    public function getPathUri()
    {
        return __PS_BASE_URI__ . 'modules/' . $this->name . '/';
    }
}

abstract class PaymentModule extends Module
{
    const DEBUG_MODE = false;

    public $currentOrder;
    public $currentOrderReference;
    public $currencies = true;
    public $currencies_mode = 'checkbox';

    public function install()
    {
        if (!parent::install()) {
            return false;
        }

        return $this->addCheckboxCurrencyRestrictionsForModule();
    }

    public function addCheckboxCurrencyRestrictionsForModule(array $shops = [])
    {
        $db = Db::getInstance();
        foreach (Currency::getCurrencies(false, true) as $currency) {
            $db->insert('module_currency', ['id_module' => (int) $this->id, 'id_shop' => 1, 'id_currency' => (int) $currency['id_currency']], false, true, Db::INSERT_IGNORE);
        }

        return true;
    }

    public function getCurrency($current_id_currency = null)
    {
        if (!(int) $current_id_currency) {
            $current_id_currency = Context::getContext()->currency->id;
        }
        if (!$this->currencies) {
            return false;
        }

        return Db::getInstance()->executeS(
            'SELECT c.* FROM `' . _DB_PREFIX_ . 'module_currency` mc JOIN `' . _DB_PREFIX_ . 'currency` c ON c.id_currency = mc.id_currency'
            . ' WHERE mc.id_module = ' . (int) $this->id . ' AND c.active = 1 ORDER BY c.iso_code'
        );
    }

    /** The signature of PrestaShop 8.1.2; one order per cart (a single package). */
    public function validateOrder(
        $id_cart,
        $id_order_state,
        $amount_paid,
        $payment_method = 'Unknown',
        $message = null,
        $extra_vars = [],
        $currency_special = null,
        $dont_touch_amount = false,
        $secure_key = false,
        Shop $shop = null,
        ?string $order_reference = null
    ) {
        $this->context->cart = new Cart((int) $id_cart);
        $this->context->customer = new Customer((int) $this->context->cart->id_customer);
        $id_currency = $currency_special ? (int) $currency_special : (int) $this->context->cart->id_currency;
        $this->context->currency = new Currency($id_currency);

        $order_status = new OrderState((int) $id_order_state, 1);
        if (!Validate::isLoadedObject($order_status)) {
            PrestaShopLogger::addLog('PaymentModule::validateOrder - Order Status cannot be loaded', 3, null, 'Cart', (int) $id_cart, true);

            throw new PrestaShopException('Can\'t load Order status');
        }
        if (!$this->active) {
            PrestaShopLogger::addLog('PaymentModule::validateOrder - Module is not active', 3, null, 'Cart', (int) $id_cart, true);
            throw new HarnessExit(Tools::displayError());
        }
        if (!Validate::isLoadedObject($this->context->cart) || $this->context->cart->orderExists()) {
            $error = 'Cart cannot be loaded or an order has already been placed using this cart';
            PrestaShopLogger::addLog($error, 4, 1, 'Cart', (int) $this->context->cart->id);
            throw new HarnessExit(Tools::displayError($error));
        }
        if ($secure_key !== false && $secure_key != $this->context->cart->secure_key) {
            PrestaShopLogger::addLog('PaymentModule::validateOrder - Secure key does not match', 3, null, 'Cart', (int) $id_cart, true);
            throw new HarnessExit(Tools::displayError());
        }

        $reference = $order_reference === null ? Order::generateReference() : $order_reference;
        $this->currentOrderReference = $reference;
        $cart_total_paid = (float) Tools::ps_round((float) $this->context->cart->getOrderTotal(true, Cart::BOTH), $this->context->getComputingPrecision());
        $precision = $this->context->getComputingPrecision();
        if ($order_status->logable && number_format($cart_total_paid, $precision) !== number_format((float) $amount_paid, $precision)) {
            $id_order_state = Configuration::get('PS_OS_ERROR');
        }

        $order = new Order();
        $order->id_cart = (int) $id_cart;
        $order->id_customer = (int) $this->context->customer->id;
        $order->id_currency = $id_currency;
        $order->secure_key = $secure_key ? pSQL($secure_key) : pSQL($this->context->customer->secure_key);
        $order->payment = $payment_method;
        $order->module = $this->name;
        $order->reference = $reference;
        $order->total_paid = $order->total_paid_tax_incl = $order->total_paid_tax_excl = $cart_total_paid;
        $order->conversion_rate = $this->context->currency->conversion_rate ?: 1;
        $order->add();

        if ($order_status->logable) {
            $transaction_id = $extra_vars['transaction_id'] ?? null;
            if (!$order->addOrderPayment($amount_paid, null, $transaction_id)) {
                throw new PrestaShopException('Can\'t save Order Payment');
            }
        }
        if (!empty($message)) {
            $msg = new Message();
            $msg->message = strip_tags($message, '<br>');
            $msg->id_cart = (int) $id_cart;
            $msg->id_customer = (int) $order->id_customer;
            $msg->id_order = (int) $order->id;
            $msg->private = true;
            $msg->add();
        }
        $history = new OrderHistory();
        $history->id_order = (int) $order->id;
        $history->changeIdOrderState((int) $id_order_state, $order, true);
        $history->addWithemail(true, $extra_vars);

        $this->currentOrder = (int) $order->id;
        Hook::exec('actionValidateOrder', ['cart' => $this->context->cart, 'order' => $order, 'customer' => $this->context->customer, 'currency' => $this->context->currency, 'orderStatus' => $order_status]);

        return true;
    }
}

abstract class Controller
{
    public $context;
    public $ajax = false;
    public $errors = [];
    protected $template;
    public $php_self;
    protected $display_header;
    protected $display_footer;
    protected $content_only = false;

    /**
     * As PrestaShop 8.1.2: $ajax is decided here from the request, overwriting whatever a
     * subclass declared (`public $ajax = true` is lost unless the request asks for JSON).
     */
    public function __construct()
    {
        if (null === $this->display_header) {
            $this->display_header = true;
        }
        if (null === $this->display_footer) {
            $this->display_footer = true;
        }
        $this->context = Context::getContext();
        $this->context->controller = $this;
        $this->ajax = $this->isAjax();
    }

    private function isAjax()
    {
        $isAjax = Tools::getValue('ajax') || Tools::isSubmit('ajax');
        if (isset($_SERVER['HTTP_ACCEPT'])) {
            $isAjax = $isAjax || preg_match('#\bapplication/json\b#', $_SERVER['HTTP_ACCEPT']);
        }

        return (bool) $isAjax;
    }

    public function init()
    {
    }

    public function setMedia()
    {
    }

    public function postProcess()
    {
    }

    public function initContent()
    {
    }

    public function display()
    {
        echo $this->context->smarty->fetch($this->template);

        return true;
    }

    public function run()
    {
        $this->init();
        if (!$this->content_only && $this->display_header) {
            $this->setMedia();
        }
        $this->postProcess();
        $this->initContent();
        if ($this->ajax) {
            $action = ucfirst((string) Tools::getValue('action'));
            if ($action !== '' && method_exists($this, 'displayAjax' . $action)) {
                $this->{'displayAjax' . $action}();
            } elseif (method_exists($this, 'displayAjax')) {
                $this->displayAjax();
            }
        } else {
            $this->display();
        }
    }

    protected function ajaxRender($value = null, $controller = null, $method = null)
    {
        header('Cache-Control: no-store, no-cache, must-revalidate, post-check=0, pre-check=0');
        echo $value;
    }

    protected function ajaxDie($value = null, $controller = null, $method = null)
    {
        $this->ajaxRender($value, $controller, $method);
        throw new HarnessExit('ajaxDie');
    }

    protected function trans($id, array $parameters = [], $domain = null, $locale = null)
    {
        return htmlspecialchars($this->context->getTranslator()->trans($id, $parameters, $domain, $locale), ENT_NOQUOTES);
    }
}

class FrontController extends Controller
{
    /** Scripts registered through registerJavascript(), by id. */
    public $registered_javascript = [];

    /** As PrestaShop: an ajax request gets no page header or footer. */
    public function init()
    {
        parent::init();
        if ($this->ajax) {
            $this->display_header = false;
            $this->display_footer = false;
        }
    }

    public function registerJavascript($id, $relativePath, $params = [])
    {
        $this->registered_javascript[$id] = ['path' => $relativePath, 'params' => $params];
    }

    public function setTemplate($template, $params = [], $locale = null)
    {
        $this->template = $template;
    }

    public function getTemplate()
    {
        return $this->template;
    }
}

class ModuleFrontController extends FrontController
{
    /** @var PaymentModule|Module */
    public $module;

    public function __construct()
    {
        $this->module = Module::getInstanceByName(Tools::getValue('module'));
        if (!$this->module || !$this->module->active) {
            throw new HarnessExit('module not active');
        }
        parent::__construct();
    }

    public function setTemplate($template, $params = [], $locale = null)
    {
        parent::setTemplate(strpos($template, 'module:') === 0 ? $template : 'module:' . $this->module->name . '/views/templates/front/' . $template, $params, $locale);
    }
}

class AdminModulesController extends Controller
{
    public $js_files = [];

    public function addJS($js_uri, $check_path = true)
    {
        foreach ((array) $js_uri as $uri) {
            $this->js_files[] = $uri;
        }
    }

    public function getLanguages()
    {
        return Language::getLanguages(false);
    }
}

/** The HelperForm fields the module uses (text, select, switch, radio, html), escaped like PrestaShop's form.tpl. */
class HelperForm
{
    public $id;
    public $first_call = true;
    public $fields_value = [];
    public $name_controller = '';
    public $title;
    public $submit_action;
    public $token;
    public $languages;
    public $default_form_language;
    public $allow_employee_form_lang;
    public $show_cancel_button = false;
    public $back_url = '#';
    public $table;
    public $identifier;
    public $currentIndex;
    public $show_toolbar = true;
    public $module;
    public $tpl_vars = [];

    public function generateForm($fields_form)
    {
        $e = static function ($value) {
            return htmlspecialchars((string) $value, ENT_QUOTES, 'UTF-8');
        };
        $values = $this->tpl_vars['fields_value'] ?? $this->fields_value;
        $html = '<form id="module_form" class="defaultForm form-horizontal" method="post" action="' . $e($this->currentIndex . '&token=' . $this->token) . '">';
        foreach ($fields_form as $form) {
            $form = $form['form'];
            $html .= '<div class="panel"><div class="panel-heading">' . $e($form['legend']['title'] ?? '') . '</div>';
            foreach ($form['input'] ?? [] as $input) {
                $name = $input['name'] ?? '';
                $value = $values[$name] ?? '';
                $html .= '<div class="form-group"><label class="control-label" for="' . $e($name) . '">' . $e($input['label'] ?? '') . '</label>';
                switch ($input['type']) {
                    case 'select':
                        $html .= '<select name="' . $e($name) . '" id="' . $e($name) . '">';
                        foreach ($input['options']['query'] as $option) {
                            $key = $option[$input['options']['id']];
                            $html .= '<option value="' . $e($key) . '"' . ((string) $key === (string) $value ? ' selected="selected"' : '') . '>' . $e($option[$input['options']['name']]) . '</option>';
                        }
                        $html .= '</select>';
                        break;
                    case 'switch':
                    case 'radio':
                        foreach ($input['values'] as $option) {
                            $html .= '<input type="radio" name="' . $e($name) . '" id="' . $e($option['id']) . '" value="' . $e($option['value']) . '"' . ((string) $option['value'] === (string) $value ? ' checked="checked"' : '') . '><label for="' . $e($option['id']) . '">' . $e($option['label']) . '</label>';
                        }
                        break;
                    case 'html':
                        $html .= $input['html_content'];
                        break;
                    case 'password':
                        // As 8.1.2's helpers/form/form.tpl: a password field is printed empty, whatever its value.
                        $html .= '<input type="password" id="' . $e($name) . '" name="' . $e($name) . '" value=""' . (isset($input['autocomplete']) && !$input['autocomplete'] ? ' autocomplete="off"' : '') . (!empty($input['required']) ? ' required="required"' : '') . ' />';
                        break;
                    default:
                        $html .= '<input type="text" name="' . $e($name) . '" id="' . $e($name) . '" value="' . $e($value) . '"' . (!empty($input['required']) ? ' required="required"' : '') . '>';
                }
                if (!empty($input['desc'])) {
                    $html .= '<p class="help-block">' . $e($input['desc']) . '</p>';
                }
                $html .= '</div>';
            }
            if (isset($form['submit'])) {
                $html .= '<button type="submit" name="' . $e($this->submit_action) . '" class="btn btn-default pull-right">' . $e($form['submit']['title']) . '</button>';
            }
            $html .= '</div>';
        }

        return $html . '</form>';
    }
}
