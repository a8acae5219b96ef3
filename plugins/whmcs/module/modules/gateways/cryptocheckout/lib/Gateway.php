<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Exception\InvalidWebhookException;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Clock;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\HttpReply;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Kernel;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\SystemClock;
use CryptoCheckout\Whmcs\Vendor\Client\WebhookParser;
use WHMCS\Database\Capsule;
use WHMCS\Utility\Environment\CurrentRequest;

/**
 * The module in one WHMCS request: the one place the kernel is built, over WHMCS's invoice
 * (InvoicePort) and database (CapsuleSql), and made ready on first use (Upgrade); the callback
 * file's requests; the cron's poll; and the HMAC that ties the pay button and the status link to
 * what they were rendered with, so no amount or invoice number is taken from the browser alone.
 */
final class Gateway
{
    public Settings $settings;
    public InvoicePort $invoices;
    private Clock $clock;
    private ?Kernel $kernel = null;
    private ?InvoiceRefunds $refunds = null;
    private ?string $key = null;

    /** @param array<string, mixed> $params getGatewayVariables() or the _link $params */
    public function __construct(array $params, ?Clock $clock = null)
    {
        $this->settings = Settings::fromParams($params);
        $this->invoices = new InvoicePort($this->settings);
        $this->clock = $clock ?? new SystemClock();
    }

    /** The saved settings, read as getGatewayVariables() does, where WHMCS passes none; null while not activated. */
    public static function fromSavedSettings(): ?self
    {
        $params = Capsule::table('tblpaymentgateways')->where('gateway', Settings::GATEWAY)->pluck('value', 'setting')->all();
        $params['systemurl'] = (string) Capsule::table('tblconfiguration')->where('setting', 'SystemURL')->value('value');
        return isset($params['type']) ? new self($params) : null;
    }

    /** @throws \Exception when the ledger cannot be made ready (Upgrade said why in the Gateway Log) */
    public function kernel(): Kernel
    {
        if ($this->kernel === null) {
            $kernel = new Kernel($this->invoices, new CapsuleSql(), null, null, $this->clock);
            Upgrade::ensure($kernel->ledger(), $this->invoices, $this->settings->serviceUrl, $this->clock);
            $this->kernel = $kernel;
        }
        return $this->kernel;
    }

    /** WHMCS's side of refunds (the kernel's RefundPort). @throws \Exception as kernel() */
    public function refunds(): InvoiceRefunds
    {
        return $this->refunds ??= new InvoiceRefunds($this->invoices, $this->kernel()->ledger());
    }

    /** @param list<string> $parts */
    public function sign(string $purpose, array $parts): string
    {
        $this->key ??= $this->kernel()->ledger()->valueOnce(Upgrade::SIGNING_KEY, bin2hex(random_bytes(32)));
        return hash_hmac('sha256', $purpose . "\n" . implode("\n", $parts), $this->key);
    }

    /** @param list<string> $parts */
    public function verify(string $purpose, array $parts, string $token): bool
    {
        return $token !== '' && hash_equals($this->sign($purpose, $parts), $token);
    }

    /**
     * A request of the callback file: the service's webhook (POST, JSON body), the pay button (POST
     * ?action=pay) or the status box (GET ?action=status). The webhook and the status box are the
     * kernel's, which throttles both per client IP (WHMCS's own, which honours Trusted Proxies).
     *
     * @param array<string, mixed> $query $_GET
     * @param array<string, mixed> $form $_POST
     * @param array<string, mixed> $server $_SERVER
     */
    public function answer(array $query, array $form, array $server, string $rawBody): HttpResponse
    {
        $method = strtoupper((string) ($server['REQUEST_METHOD'] ?? 'GET'));
        $action = is_string($query['action'] ?? null) ? $query['action'] : '';
        $clientIp = class_exists(CurrentRequest::class) ? (string) CurrentRequest::getIP() : (string) ($server['REMOTE_ADDR'] ?? '');
        try {
            if ($action === 'pay') {
                return PayButton::press($this, $method, $form, (string) ($server['HTTP_ACCEPT'] ?? ''));
            }
            if ($action === 'status') {
                return HttpResponse::fromReply($this->status($method, $query, $clientIp));
            }
            if ($action === '') {
                return HttpResponse::fromReply($this->webhook($method, $rawBody, $clientIp));
            }
            return HttpResponse::fromReply(HttpReply::error(404, 'not_found', 'Unknown action; use action=pay, action=status, or POST the webhook without one.', 'action'));
        } catch (\RuntimeException $failed) {
            // The database failed, or the first use after an upgrade did (Upgrade logged why).
            return HttpResponse::fromReply(HttpReply::error(503, 'unavailable', 'Crypto payments are not available right now; try again in a minute.'));
        }
    }

    /**
     * The kernel's scheduled poll, on every run of WHMCS's cron (AfterCronJob): open payments, then
     * open refunds (a paid one is recorded on its invoice). Each checkout and refund carries the
     * service URL it was made with, so the poll runs even while the settings are fixed.
     */
    public static function poll(): void
    {
        $gateway = self::fromSavedSettings();
        if ($gateway === null) {
            return;
        }
        // The rest of WHMCS's cron must not depend on this module; the next run tries again.
        try {
            $gateway->kernel()->poll();
        } catch (\Exception $error) {
            $gateway->invoices->log('error', 'The scheduled check of open payments failed: ' . $error->getMessage());
        }
        try {
            $gateway->kernel()->checkRefunds($gateway->refunds());
        } catch (\Exception $error) {
            $gateway->invoices->log('error', 'The scheduled check of open refunds failed: ' . $error->getMessage());
        }
    }

    /** @param array<string, mixed> $query a status link the module signed (PayButton) */
    private function status(string $method, array $query, string $clientIp): HttpReply
    {
        if ($method !== 'GET') {
            return HttpReply::error(405, 'method_not_allowed', 'Ask for the status with GET.', null, ['Allow' => 'GET']);
        }
        $invoiceId = (int) (is_string($query['invoice'] ?? null) ? $query['invoice'] : 0);
        if ($invoiceId <= 0 || !$this->verify('status', [(string) $invoiceId], is_string($query['token'] ?? null) ? $query['token'] : '')) {
            return HttpReply::error(403, 'forbidden', 'This status link does not belong to the invoice; reload the invoice page.', 'token');
        }
        return $this->kernel()->statusReply((string) $invoiceId, $clientIp);
    }

    /**
     * The service's transaction.settled and refund.paid webhooks, with WHMCS's checkCbInvoiceID for
     * the invoice of a known code. Not checkCbTransID: its exit on a recorded transaction id would
     * answer a replay with nothing and keep a run that died after booking from being completed; the
     * kernel asks the same (isPaymentBooked, isRefundRecorded) under the invoice's claim.
     */
    private function webhook(string $method, string $rawBody, string $clientIp): HttpReply
    {
        try {
            $refundPaid = WebhookParser::eventOf($rawBody) === WebhookParser::REFUND_PAID_EVENT;
            $hint = $method !== 'POST' ? null : ($refundPaid ? WebhookParser::parseRefundPaid($rawBody) : WebhookParser::parse($rawBody));
            $code = $hint === null ? '' : strtolower((string) $hint['transaction_code']);
            $ledger = $this->kernel()->ledger();
            $invoiceId = $code === '' ? null
                : ($ledger->orderOf($code) ?? ($refundPaid ? null : Upgrade::importLate($ledger, $code, $this->settings->serviceUrl, $this->clock)));
        } catch (InvalidWebhookException $invalid) {
            $invoiceId = null; // The kernel answers it.
        }
        if ($invoiceId !== null) {
            checkCbInvoiceID((int) $invoiceId, $this->settings->displayName);
        }
        return $this->kernel()->webhook($method, $rawBody, $clientIp, $this->refunds())['reply'];
    }
}
