<?php
// Test harness (WHMCS 8.13): global functions WHMCS provides to modules and hooks, plus the
// harness's own request and schema set-up (harness_* functions).

use WHMCS\Database\Capsule;

/** @var array<string, array<int, array{0: int, 1: callable}>> */
$GLOBALS['harness_hooks'] = [];

/** @var array<string, string> armed faults: "point|detail" => "exception" or "fatal" */
$GLOBALS['harness_faults'] = [];

/**
 * Test-only fault injection (not part of WHMCS): the next time $point is reached with $detail in
 * this request, it fails once, with an exception ("exception") or as a dying process ("fatal": the
 * process exits there, running no catch and no finally block). Points: "logTransaction" (detail:
 * the result being logged) at its start, "addInvoicePayment" (detail: the transaction id) once the
 * payment is fully applied, "SendEmail" (detail: the custom type) as the mail server refusing it.
 */
function harness_fail_once(string $point, string $detail, string $kind = 'exception'): void
{
    $GLOBALS['harness_faults'][$point . '|' . $detail] = $kind;
}

/**
 * Test-only (not part of WHMCS): $callback runs once, right before the next SQL statement of this
 * request that contains $needle (case-insensitive), standing for another request that does the same
 * at the same moment, or, by throwing, for the database failing that statement.
 */
function harness_before_sql(string $needle, callable $callback): void
{
    $GLOBALS['harness_before_sql'][] = [$needle, $callback];
}

/** Called by the harness's Connection before every statement it runs. */
function harness_before_statement(string $sql): void
{
    foreach ($GLOBALS['harness_before_sql'] ?? [] as $index => [$needle, $callback]) {
        if (stripos($sql, $needle) !== false) {
            unset($GLOBALS['harness_before_sql'][$index]);
            $callback();
            return;
        }
    }
}

function harness_fault(string $point, string $detail): void
{
    $key = $point . '|' . $detail;
    if (!isset($GLOBALS['harness_faults'][$key])) {
        return;
    }
    $kind = $GLOBALS['harness_faults'][$key];
    unset($GLOBALS['harness_faults'][$key]);
    if ($kind === 'fatal') {
        // A process that dies runs no finally block and no catch: exit() stands for it.
        file_put_contents('php://stderr', 'harness: the process died at ' . $key . "\n");
        exit(255);
    }
    throw new \RuntimeException('harness: injected failure at ' . $key);
}

function add_hook($hookPoint, $priority, $function)
{
    $GLOBALS['harness_hooks'][$hookPoint][] = [(int) $priority, $function];
}

/** @return array<int, mixed> the hook functions' return values */
function run_hook($hookPoint, $vars = [])
{
    $hooks = $GLOBALS['harness_hooks'][$hookPoint] ?? [];
    usort($hooks, static function (array $a, array $b): int {
        return $a[0] <=> $b[0];
    });
    $results = [];
    foreach ($hooks as [$priority, $function]) {
        $results[] = $function($vars);
    }
    return $results;
}

function logActivity($description, $userId = 0)
{
    Capsule::table('tblactivitylog')->insert([
        'date' => date('Y-m-d H:i:s'),
        'description' => (string) $description,
        'user' => 'System',
        'userid' => (int) $userId,
    ]);
}

/** WHMCS's internal API, in the shapes of the API reference (values as strings, as WHMCS returns them). */
function localAPI($command, $values = [], $adminUser = '')
{
    switch (strtolower((string) $command)) {
        case 'getinvoice':
            $invoice = Capsule::table('tblinvoices')->where('id', (int) ($values['invoiceid'] ?? 0))->first();
            if ($invoice === null) {
                return ['result' => 'error', 'message' => 'Invoice ID Not Found'];
            }
            $paid = harness_amount_paid((int) $invoice->id);
            return [
                'result' => 'success',
                'invoiceid' => (string) $invoice->id,
                'invoicenum' => (string) $invoice->invoicenum,
                'userid' => (string) $invoice->userid,
                'date' => $invoice->date,
                'duedate' => $invoice->duedate,
                'datepaid' => $invoice->datepaid,
                'subtotal' => $invoice->total,
                'credit' => '0.00',
                'tax' => '0.00',
                'tax2' => '0.00',
                'total' => $invoice->total,
                'balance' => number_format(max(0, (float) $invoice->total - $paid), 2, '.', ''),
                'status' => $invoice->status,
                'paymentmethod' => $invoice->paymentmethod,
                'notes' => $invoice->notes,
                'ccgateway' => false,
                'items' => ['item' => []],
                'transactions' => ['transaction' => []],
            ];
        case 'getclientsdetails':
            $client = Capsule::table('tblclients')->where('id', (int) ($values['clientid'] ?? 0))->first();
            if ($client === null) {
                return ['result' => 'error', 'message' => 'Client Not Found'];
            }
            $currency = Capsule::table('tblcurrencies')->where('id', (int) $client->currency)->first();
            $details = [
                'userid' => (string) $client->id,
                'id' => (string) $client->id,
                'firstname' => $client->firstname,
                'lastname' => $client->lastname,
                'fullname' => $client->firstname . ' ' . $client->lastname,
                'companyname' => '',
                'email' => $client->email,
                'address1' => '', 'address2' => '', 'city' => '', 'state' => '', 'postcode' => '',
                'country' => 'DE',
                'phonenumber' => '',
                'currency' => (string) $client->currency,
                'currency_code' => $currency->code,
                'credit' => $client->credit,
            ];
            return ['result' => 'success', 'client' => $details] + $details;
        case 'updateinvoice':
            $changed = Capsule::table('tblinvoices')->where('id', (int) ($values['invoiceid'] ?? 0))->update(['status' => (string) ($values['status'] ?? '')]);
            return $changed === 1 ? ['result' => 'success', 'invoiceid' => (string) $values['invoiceid']] : ['result' => 'error', 'message' => 'Invoice ID Not Found'];
        case 'sendemail':
            return harness_send_email($values);
        case 'addclientnote':
            Capsule::table('tblnotes')->insert([
                'userid' => (int) ($values['userid'] ?? 0),
                'adminid' => 0,
                'created' => date('Y-m-d H:i:s'),
                'modified' => date('Y-m-d H:i:s'),
                'note' => (string) ($values['notes'] ?? ''),
                'sticky' => empty($values['sticky']) ? 0 : 1,
            ]);
            return ['result' => 'success', 'noteid' => (string) Capsule::connection()->getPdo()->lastInsertId()];
        default:
            return ['result' => 'error', 'message' => 'Command Not Found'];
    }
}

/**
 * SendEmail (https://developers.whmcs.com/api-reference/sendemail/) for custom messages: customtype
 * general (id: client) or invoice (id: invoice), customsubject, custommessage; the mail goes to the
 * client and is kept in tblemails, WHMCS's log of the e-mails sent to clients. Its documented
 * errors; a message Smarty cannot parse (a brace that opens no {$variable}) ends as "Sending
 * Failed", as an "email template contains no body content after processing (typically a Smarty
 * error)" does. Named templates are not modelled: "Email Template not found". Test-only:
 * harness_fail_once('SendEmail', <customtype>) makes the next one fail as a mail server would
 * ("Sending Failed").
 *
 * @param array<string, mixed> $values
 * @return array<string, string>
 */
function harness_send_email(array $values): array
{
    $type = (string) ($values['customtype'] ?? '');
    if ($type === '' && (string) ($values['messagename'] ?? '') === '') {
        return ['result' => 'error', 'message' => 'You must provide either an existing email template name or a custom message type'];
    }
    if ($type === '') {
        return ['result' => 'error', 'message' => 'Email Template not found'];
    }
    if (!in_array($type, ['general', 'product', 'domain', 'invoice', 'support', 'affiliate'], true)) {
        return ['result' => 'error', 'message' => 'Invalid message type provided'];
    }
    if (trim((string) ($values['customsubject'] ?? '')) === '') {
        return ['result' => 'error', 'message' => 'A subject is required for a custom message'];
    }
    if (trim((string) ($values['custommessage'] ?? '')) === '') {
        return ['result' => 'error', 'message' => 'A message body is required for a custom message'];
    }
    $relatedId = (int) ($values['id'] ?? 0);
    if ($relatedId <= 0) {
        return ['result' => 'error', 'message' => 'A related ID is required'];
    }
    $userId = $type === 'invoice' ? (int) Capsule::table('tblinvoices')->where('id', $relatedId)->value('userid') : ($type === 'general' ? $relatedId : 0);
    $client = $userId > 0 ? Capsule::table('tblclients')->where('id', $userId)->first() : null;
    $message = (string) $values['custommessage'];
    if ($client === null || preg_match('/\{(?!\$)/', $message) === 1) {
        return ['result' => 'error', 'message' => 'Sending Failed'];
    }
    try {
        harness_fault('SendEmail', $type);
    } catch (\RuntimeException $mailServerDown) {
        logActivity('Email Sending Failed - ' . $mailServerDown->getMessage(), $userId);
        return ['result' => 'error', 'message' => 'Sending Failed'];
    }
    Capsule::table('tblemails')->insert([
        'userid' => $userId,
        'subject' => (string) $values['customsubject'],
        'message' => $message,
        'date' => date('Y-m-d H:i:s'),
        'to' => (string) $client->email,
    ]);
    return ['result' => 'success'];
}

/** convertCurrency($amount, $fromCurrencyId, $toCurrencyId): through the base currency's rates, 2 decimals. */
function convertCurrency($amount, $from, $to)
{
    $fromRate = (float) Capsule::table('tblcurrencies')->where('id', (int) $from)->value('rate');
    $toRate = (float) Capsule::table('tblcurrencies')->where('id', (int) $to)->value('rate');
    return round((float) $amount / $fromRate * $toRate, 2);
}

function harness_amount_paid(int $invoiceId): float
{
    $paid = 0.0;
    foreach (Capsule::table('tblaccounts')->where('invoiceid', $invoiceId)->get() as $row) {
        $paid += (float) $row->amountin - (float) $row->amountout;
    }
    return $paid;
}

/** Fills $_GET/$_POST/$_SERVER from the request the Node side describes, and reports the answer. */
function harness_boot_request(): void
{
    $method = getenv('REQUEST_METHOD') ?: 'GET';
    $_SERVER['REQUEST_METHOD'] = $method;
    $_SERVER['HTTP_ACCEPT'] = getenv('HTTP_ACCEPT') ?: '*/*';
    $_SERVER['CONTENT_TYPE'] = getenv('CONTENT_TYPE') ?: '';
    $_SERVER['REMOTE_ADDR'] = getenv('REMOTE_ADDR') ?: '127.0.0.1';
    parse_str((string) getenv('QUERY_STRING'), $_GET);
    if ($method === 'POST' && stripos($_SERVER['CONTENT_TYPE'], 'application/x-www-form-urlencoded') === 0 && $_POST === []) {
        parse_str((string) file_get_contents('php://input'), $_POST);
    }
    $_REQUEST = array_merge($_GET, $_POST);
    $failSql = (string) getenv('HARNESS_FAIL_SQL');
    if ($failSql !== '') {
        harness_before_sql($failSql, static function () use ($failSql): void {
            throw new \PDOException('SQLSTATE[HY000]: General error: 5 database is locked (harness: ' . $failSql . ')');
        });
    }
    register_shutdown_function(static function (): void {
        file_put_contents('php://stderr', "\n__HARNESS_RESPONSE__" . json_encode([
            'status' => http_response_code() ?: 200,
            'headers' => headers_list(),
        ]) . "\n");
    });
}

function harness_install_schema(): void
{
    $schema = Capsule::schema();
    if ($schema->hasTable('tblinvoices')) {
        return;
    }
    $pdo = Capsule::connection()->getPdo();
    $pdo->exec('CREATE TABLE tblconfiguration (setting VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)');
    $pdo->exec('CREATE TABLE tblcurrencies (id INTEGER PRIMARY KEY AUTOINCREMENT, code VARCHAR(3) NOT NULL, prefix TEXT, suffix TEXT, format INTEGER DEFAULT 1, rate TEXT NOT NULL, "default" INTEGER DEFAULT 0)');
    $pdo->exec('CREATE TABLE tblclients (id INTEGER PRIMARY KEY AUTOINCREMENT, firstname TEXT, lastname TEXT, email TEXT, currency INTEGER NOT NULL, credit TEXT NOT NULL DEFAULT \'0.00\')');
    $pdo->exec('CREATE TABLE tblinvoices (id INTEGER PRIMARY KEY AUTOINCREMENT, invoicenum TEXT NOT NULL DEFAULT \'\', userid INTEGER NOT NULL, date TEXT, duedate TEXT, datepaid TEXT, total TEXT NOT NULL, status VARCHAR(20) NOT NULL, paymentmethod TEXT, notes TEXT)');
    $pdo->exec('CREATE TABLE tblaccounts (id INTEGER PRIMARY KEY AUTOINCREMENT, userid INTEGER, currency INTEGER, gateway TEXT, date TEXT, description TEXT, amountin TEXT, fees TEXT, amountout TEXT, rate TEXT, transid TEXT, invoiceid INTEGER, refundid INTEGER NOT NULL DEFAULT 0)');
    $pdo->exec('CREATE TABLE tblemails (id INTEGER PRIMARY KEY AUTOINCREMENT, userid INTEGER, subject TEXT, message TEXT, date TEXT, "to" TEXT)');
    $pdo->exec('CREATE TABLE tblgatewaylog (id INTEGER PRIMARY KEY AUTOINCREMENT, date TEXT, gateway TEXT, data TEXT, result TEXT)');
    $pdo->exec('CREATE TABLE tblactivitylog (id INTEGER PRIMARY KEY AUTOINCREMENT, date TEXT, description TEXT, user TEXT, userid INTEGER)');
    $pdo->exec('CREATE TABLE tblnotes (id INTEGER PRIMARY KEY AUTOINCREMENT, userid INTEGER, adminid INTEGER, created TEXT, modified TEXT, note TEXT, sticky INTEGER)');
    $pdo->exec('CREATE TABLE tblpaymentgateways (id INTEGER PRIMARY KEY AUTOINCREMENT, gateway TEXT NOT NULL, setting TEXT NOT NULL, value TEXT NOT NULL, "order" INTEGER DEFAULT 0)');
}
