<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Exception\SettingsException;
use CryptoCheckout\Client\Http\Transport;
use CryptoCheckout\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Client\Kernel\Ledger\SqlPort;

/**
 * The plugin kernel assembled once from a platform's pieces: its order (OrderPort), its database
 * (SqlPort), its HTTP transport and its translation function. Every entry point of a plugin calls
 * one method here and sends back what it returns; the webhook and the buyer's status endpoint are
 * throttled alike on every platform, and the service probe is cached in the ledger.
 *
 *   webhook()       transaction.settled and refund.paid                 → HttpReply (+ verified)
 *   statusReply()   the buyer's status endpoint (polled by the widget)  → HttpReply
 *   buyerStatus()   the same status for a page the plugin renders       → BuyerStatus shape or null
 *   poll()          the scheduled poll                                  → RunOutcome list
 *   open()          "Place order" / pay button                          → CheckoutOpener::open()
 *   check()         an admin's "Check payment now"                      → RunOutcome
 *   probe()         is the service URL a Crypto Checkout service, offering
 *                   the merchant's settlement?                         → ServiceProbe::probe() + checked_at
 *   checkWallet()   a Bitcoin wallet being saved: refused by the service,
 *                   or the first addresses of its key to show          → WalletCheck::check() + checked_at
 *   startRefund()   the platform's refund action                        → RefundStart
 *   checkRefunds()  the scheduled poll (with poll()), an admin's check  → RefundRunner::check() list
 *   refunds()       the order panel's refunds (RefundLabels)            → RefundRecord list
 */
final class Kernel
{
    /** Webhooks per client IP per window; 0 turns the limit off. */
    public const WEBHOOK_LIMIT = 60;
    /** Status requests per client IP and order per window (the widget polls every 3 s). */
    public const STATUS_LIMIT = 30;
    public const THROTTLE_WINDOW_SECONDS = 60;
    /** How long a probe's answer is reused by the settings page. */
    public const PROBE_CACHE_SECONDS = 60;
    /** How long the answer of a wallet check is remembered for the settings page (rememberedWalletCheck()). */
    public const WALLET_CHECK_MEMORY_SECONDS = 30 * 86400;

    private const LAST_VERIFIED_WEBHOOK = 'last_verified_webhook';

    private OrderPort $orders;
    private Ledger $ledger;
    private ?Transport $transport;
    /** @var callable(string, array<string, string>): string|null */
    private $translate;
    private Clock $clock;
    private int $webhookLimit = self::WEBHOOK_LIMIT;
    private int $statusLimit = self::STATUS_LIMIT;
    private ?Runner $runner = null;
    private ?RefundRunner $refundRunner = null;

    /**
     * @param Transport|null $transport the platform's HTTP (WordPress' HTTP API); null: curl, else PHP streams
     * @param callable(string, array<string, string>): string|null $translate the platform's translation of
     *     the kernel's English texts, filling in their %placeholders%
     */
    public function __construct(OrderPort $orders, SqlPort $sql, ?Transport $transport = null, ?callable $translate = null, ?Clock $clock = null)
    {
        $this->orders = $orders;
        $this->ledger = new Ledger($sql);
        $this->transport = $transport;
        $this->translate = $translate;
        $this->clock = $clock ?? new SystemClock();
    }

    /** Other limits than WEBHOOK_LIMIT and STATUS_LIMIT (requests per window; 0: no limit). */
    public function withLimits(int $webhookLimit, int $statusLimit): self
    {
        $this->webhookLimit = max(0, $webhookLimit);
        $this->statusLimit = max(0, $statusLimit);
        return $this;
    }

    public function ledger(): Ledger
    {
        return $this->ledger;
    }

    public function orders(): OrderPort
    {
        return $this->orders;
    }

    public function clock(): Clock
    {
        return $this->clock;
    }

    public function runner(): Runner
    {
        return $this->runner ?? ($this->runner = new Runner($this->orders, $this->ledger, [$this, 'client'], $this->clock));
    }

    public function refundRunner(): RefundRunner
    {
        return $this->refundRunner ?? ($this->refundRunner = new RefundRunner(
            $this->orders,
            $this->ledger,
            function (string $serviceUrl, int $timeoutSeconds): Client {
                return Client::forServiceOrigin($serviceUrl, $this->transport, $timeoutSeconds);
            },
            $this->clock,
            $this->translate
        ));
    }

    /** The API client for a service URL, cut off at the kernel's lookup timeout. */
    public function client(string $serviceUrl): Client
    {
        return Client::forServiceOrigin($serviceUrl, $this->transport, Runner::LOOKUP_TIMEOUT_SECONDS);
    }

    /**
     * The webhook endpoint (transaction.settled and refund.paid), throttled per client IP (429 with
     * Retry-After).
     *
     * @param RefundPort|null $refunds the platform's refunds, for refund.paid; null: the OrderPort when
     *     it implements RefundPort, else refund webhooks are answered "ignored"
     * @return array{reply: HttpReply, verified: bool} see WebhookHandler::handle()
     */
    public function webhook(string $method, string $rawBody, string $clientIp, ?RefundPort $refunds = null): array
    {
        $throttled = $this->throttle('webhook|' . $clientIp, $this->webhookLimit);
        if ($throttled !== null) {
            return ['reply' => $throttled, 'verified' => false];
        }
        $refunds = $refunds ?? ($this->orders instanceof RefundPort ? $this->orders : null);
        $handled = (new WebhookHandler($this->orders, $this->ledger, $this->runner(), $this->refundRunner(), $refunds))->handle($method, $rawBody);
        if ($handled['verified']) {
            $this->ledger->putValue(self::LAST_VERIFIED_WEBHOOK, (string) $this->clock->now());
        }
        return $handled;
    }

    /** Unix seconds of the last webhook the service's lookup confirmed, or null. */
    public function lastVerifiedWebhook(): ?int
    {
        $value = $this->ledger->value(self::LAST_VERIFIED_WEBHOOK, $this->clock->now());
        return $value === null ? null : (int) $value;
    }

    /**
     * The buyer's status endpoint: throttled per client IP and order, 404 for an order without a
     * checkout, else BuyerStatus in the success envelope. The caller checks the buyer's credential
     * (order key, guest token) first.
     */
    public function statusReply(string $orderId, string $clientIp): HttpReply
    {
        $throttled = $this->throttle('status|' . $clientIp . '|' . $orderId, $this->statusLimit);
        if ($throttled !== null) {
            return $throttled;
        }
        $status = $this->buyerStatus($orderId);
        return $status === null
            ? HttpReply::error(404, 'not_found', 'This order has no Crypto Checkout payment.')
            : HttpReply::success($status);
    }

    /**
     * What the buyer's page shows, after a check of the service when one is due
     * (Runner::runForBuyer()); null when the order has no checkout. Orders are the kernel's when
     * they hold a checkout, whatever their payment method says now.
     *
     * @return array{state: string, message: string, terminal: bool, checkout_url: string|null}|null
     */
    public function buyerStatus(string $orderId): ?array
    {
        if ($this->ledger->checkouts($orderId) === []) {
            return null;
        }
        $outcome = $this->runner()->runForBuyer($orderId);
        $unrecorded = $outcome !== null && in_array($outcome->result, [RunOutcome::BUSY, RunOutcome::FAILED], true) ? $outcome->status : null;
        return BuyerStatus::of(
            $this->orders->orderState($orderId, $this->ledger->recordedState($orderId)),
            $this->ledger->checkouts($orderId),
            $this->clock->now(),
            $this->translate,
            $unrecorded
        );
    }

    /** The order's state as the kernel decides on it (OrderState::*). */
    public function orderState(string $orderId): string
    {
        return $this->orders->orderState($orderId, $this->ledger->recordedState($orderId));
    }

    /** @return list<StoredCheckout> the order's checkouts, newest first */
    public function checkouts(string $orderId): array
    {
        return $this->ledger->checkouts($orderId);
    }

    /** The scheduled poll (PollPolicy). @return list<RunOutcome> */
    public function poll(?PollPolicy $policy = null): array
    {
        return $this->runner()->poll($policy ?? new PollPolicy());
    }

    /** An admin's or the buyer's return: every watched checkout of the order, now. */
    public function check(string $orderId, string $trigger = 'admin', int $waitSeconds = 2): RunOutcome
    {
        return $this->runner()->run($orderId, $trigger, null, $waitSeconds);
    }

    /**
     * One checkout per order (CheckoutOpener::open()).
     *
     * @param array<string, string> $terms
     * @return array{result: string, checkout: StoredCheckout|null}
     */
    public function open(string $orderId, array $terms): array
    {
        return (new CheckoutOpener($this->orders, $this->ledger, $this->runner(), [$this, 'client'], $this->clock))->open($orderId, $terms);
    }

    /**
     * Refunds $amount $currency (the order's fiat currency, or the paid asset such as "USDC") of the
     * order's settled payment, from the platform's refund action (RefundRunner::start()): the
     * service makes the refund, the platform sends the buyer the claim link and notes it on the
     * order. $platformRefundId is sent as the refund's reference, so a retried action gets the same
     * refund. Never throws for the service's answers: RefundStart says what happened, translated.
     *
     * @param string $credential the merchant key (or operator token) from the plugin's settings
     */
    public function startRefund(string $orderId, string $amount, string $currency, string $platformRefundId, ?string $reason, string $credential, RefundPort $port): RefundStart
    {
        return $this->refundRunner()->start($orderId, $amount, $currency, $platformRefundId, $reason, $credential, $port);
    }

    /**
     * Follows the open refunds (due ones, RefundRunner::BATCH_SIZE at most), or the one named, with
     * the service's GET /refund: a paid refund is recorded on the platform once, a cancelled or
     * expired one noted for the owner once. Plugins run it with the scheduled poll.
     *
     * @return list<array{refund_id: string, order_id: string|null, result: string, status: string|null}>
     */
    public function checkRefunds(RefundPort $port, ?string $refundId = null): array
    {
        return $this->refundRunner()->check($port, $refundId, $refundId === null ? 0 : WebhookHandler::CLAIM_WAIT_SECONDS);
    }

    /** @return list<RefundRecord> the order's refunds, newest first (RefundLabels::rows() for the panel) */
    public function refunds(string $orderId): array
    {
        return $this->refundRunner()->ofOrder($orderId);
    }

    /**
     * Whether a Crypto Checkout service answers at $serviceUrl (ServiceProbe) and, given the
     * merchant's settlement, whether it offers it (offered; problem settlement_not_offered with the
     * service's reason when not), remembered for PROBE_CACHE_SECONDS unless $fresh. A remembered
     * answer is reused only for the same settlement.
     *
     * @param int $timeoutSeconds 1 to ServiceProbe::TIMEOUT_SECONDS (a buyer's payment step waits less)
     * @param array<string, mixed> $settlement the merchant's settings, of which wallet_currency and
     *     wallet_network (SettingsRules::ASSET, SettingsRules::NETWORK) are read; []: reachability only
     * @return array{reachable: bool, problem: string|null, message: string, offered: bool|null, checked_at: int, settlement: string}
     */
    public function probe(string $serviceUrl, bool $fresh = false, int $timeoutSeconds = ServiceProbe::TIMEOUT_SECONDS, array $settlement = []): array
    {
        $asset = strtoupper(SettingsRules::text($settlement[SettingsRules::ASSET] ?? ''));
        $network = strtoupper(SettingsRules::text($settlement[SettingsRules::NETWORK] ?? ''));
        $asked = $asset === '' || $network === '' ? '' : $asset . ' ' . $network;
        $key = 'probe:' . sha1($serviceUrl);
        $now = $this->clock->now();
        if (!$fresh) {
            $cached = json_decode((string) $this->ledger->value($key, $now), true);
            if (is_array($cached) && isset($cached['reachable'], $cached['message'], $cached['checked_at']) && ($cached['settlement'] ?? '') === $asked) {
                return $cached + ['offered' => null];
            }
        }
        $transport = $this->transport ?? Client::createDefaultTransport();
        $probe = new ServiceProbe($transport, $this->translate, $timeoutSeconds);
        $result = ($asked === '' ? $probe->probe($serviceUrl) : $probe->probe($serviceUrl, $asset, $network)) + ['checked_at' => $now, 'settlement' => $asked];
        $this->ledger->putValue($key, (string) json_encode($result), $now + self::PROBE_CACHE_SECONDS);
        return $result;
    }

    /**
     * What the service makes of the wallet being saved (WalletCheck): asked only for a Bitcoin wallet
     * (result not_checked otherwise), with the service URL being saved, waiting at most
     * $timeoutSeconds. The platform refuses the save on result "refused" (a settings error for
     * field, like SettingsRules' own) and shows message as a notice otherwise. The answer, unless
     * refused or not checked, is remembered for the settings page (rememberedWalletCheck()).
     *
     * @param int $timeoutSeconds 1 to WalletCheck::TIMEOUT_SECONDS
     * @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>, checked_at: int}
     */
    public function checkWallet(string $serviceUrl, string $network, string $walletAddress, int $timeoutSeconds = WalletCheck::TIMEOUT_SECONDS): array
    {
        $check = new WalletCheck($this->transport ?? Client::createDefaultTransport(), $this->translate, $timeoutSeconds);
        $now = $this->clock->now();
        $result = $check->check($serviceUrl, $network, $walletAddress) + ['checked_at' => $now];
        if (!in_array($result['result'], [WalletCheck::RESULT_NOT_CHECKED, WalletCheck::RESULT_REFUSED], true)) {
            $this->ledger->putValue(self::walletCheckKey($serviceUrl, $network, $walletAddress), (string) json_encode($result), $now + self::WALLET_CHECK_MEMORY_SECONDS);
        }
        return $result;
    }

    /**
     * The last answer of checkWallet() for this service URL, network and wallet, as it was given
     * (its message in the language of that moment), or null when there is none from the last
     * WALLET_CHECK_MEMORY_SECONDS. Asks nothing.
     *
     * @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>, checked_at: int}|null
     */
    public function rememberedWalletCheck(string $serviceUrl, string $network, string $walletAddress): ?array
    {
        $remembered = json_decode((string) $this->ledger->value(self::walletCheckKey($serviceUrl, $network, $walletAddress), $this->clock->now()), true);
        if (!is_array($remembered) || !isset($remembered['result'], $remembered['message'], $remembered['checked_at']) || !is_string($remembered['message'])) {
            return null;
        }
        return $remembered + ['problem' => null, 'field' => null, 'description' => '', 'addresses' => []];
    }

    /** The ledger key of a wallet check: the service URL as SettingsRules stores it, the network, the wallet. */
    private static function walletCheckKey(string $serviceUrl, string $network, string $walletAddress): string
    {
        try {
            $url = SettingsRules::serviceUrl($serviceUrl);
        } catch (SettingsException $invalid) {
            $url = SettingsRules::text($serviceUrl);
        }
        return 'wallet_check:' . sha1($url . "\n" . strtoupper(SettingsRules::text($network)) . "\n" . SettingsRules::text($walletAddress));
    }

    /** A kernel text through the platform's translation, placeholders filled in. @param array<string, string> $parameters */
    public function translate(string $text, array $parameters = []): string
    {
        return $this->translate === null ? strtr($text, $parameters) : (string) ($this->translate)($text, $parameters);
    }

    /** A 429 once $bucket used up $limit requests in the current window, else null (the request is counted). */
    private function throttle(string $bucket, int $limit): ?HttpReply
    {
        if ($limit <= 0) {
            return null;
        }
        $now = $this->clock->now();
        $windowStart = $now - ($now % self::THROTTLE_WINDOW_SECONDS);
        $windowEnd = $windowStart + self::THROTTLE_WINDOW_SECONDS;
        if ($this->ledger->countUpTo('throttle:' . sha1($bucket) . ':' . $windowStart, $limit, $windowEnd)) {
            return null;
        }
        return HttpReply::error(429, 'rate_limited', 'Too many requests; try again later.', null, ['Retry-After' => (string) max(1, $windowEnd - $now)]);
    }
}
