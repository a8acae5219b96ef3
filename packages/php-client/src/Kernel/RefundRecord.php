<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * One refund the kernel started, as its ledger keeps it (Ledger\RefundLedger): what the service
 * last said of it (status, the buyer's confirmed address, the payment to send, the chain
 * transaction that paid it) and what the kernel did about it (claim link sent, paid refund recorded
 * on the platform, the owner told). Amounts are decimal strings: `amount` in `asset` units, exactly
 * what the merchant sends; `fiatAmount` what was asked in `fiatCurrency`, when asked in fiat.
 */
final class RefundRecord
{
    public const AWAITING_ADDRESS = 'awaiting_address';
    public const AWAITING_PAYMENT = 'awaiting_payment';
    public const PAID = 'paid';
    public const CANCELLED = 'cancelled';
    public const EXPIRED = 'expired';

    /** Statuses the service still changes; the others are final. */
    public const OPEN = [self::AWAITING_ADDRESS, self::AWAITING_PAYMENT];

    public string $refundId = '';
    public string $orderId = '';
    public string $transactionCode = '';
    /** The platform's own id of the refund (sent as `reference`), or null. */
    public ?string $platformRefundId = null;
    /** The service that holds the refund (the checkout's service URL). */
    public string $serviceUrl = '';
    public string $amount = '';
    public string $asset = '';
    public string $network = '';
    public ?string $fiatAmount = null;
    public string $fiatCurrency = '';
    public string $status = self::AWAITING_ADDRESS;
    /** The buyer's claim link: only the create answer carries it. */
    public ?string $claimUrl = null;
    public ?string $address = null;
    public ?string $paymentRequestText = null;
    public ?string $paymentRequestUri = null;
    public ?string $txId = null;
    public ?string $txUrl = null;
    /** Unix seconds, as the service created it. */
    public int $createdAt = 0;
    /** Unix seconds of the last lookup attempt, or null. */
    public ?int $checkedAt = null;
    /** Unix seconds when the platform sent the buyer the claim link, or null. */
    public ?int $claimSentAt = null;
    /** Unix seconds when the platform recorded the paid refund, or null. */
    public ?int $recordedAt = null;
    /** The last status the owner was told about (a note), or null. */
    public ?string $noticedStatus = null;

    /**
     * A refund from the service's answer (`POST /refunds` or `GET /refund` data).
     *
     * @param array<string, mixed> $refund
     */
    public static function fromService(array $refund, string $orderId, ?string $platformRefundId, string $serviceUrl, int $now): self
    {
        $record = new self();
        $record->refundId = strtolower((string) $refund['refund_id']);
        $record->orderId = $orderId;
        $record->transactionCode = strtolower((string) $refund['transaction_code']);
        $record->platformRefundId = $platformRefundId;
        $record->serviceUrl = $serviceUrl;
        $record->amount = (string) $refund['amount'];
        $record->asset = (string) $refund['asset'];
        $record->network = (string) $refund['network'];
        $record->fiatAmount = isset($refund['fiat_amount']) ? (string) $refund['fiat_amount'] : null;
        $record->fiatCurrency = (string) $refund['fiat_currency'];
        $record->claimUrl = isset($refund['claim_url']) ? (string) $refund['claim_url'] : null;
        $record->createdAt = StoredCheckout::parseTime($refund['created_at'] ?? null) ?? $now;
        $record->observe($refund, $now);
        return $record;
    }

    /**
     * Takes in what the service says of the refund now: status, address, payment request, chain
     * transaction. The terms (amount, asset) never change at the service and are kept as stored.
     *
     * @param array<string, mixed> $refund `GET /refund` data
     * @return bool whether anything the owner sees changed
     */
    public function observe(array $refund, int $now): bool
    {
        $before = [$this->status, $this->address, $this->paymentRequestUri, $this->txId];
        $this->status = (string) $refund['status'];
        $this->address = isset($refund['address']) ? (string) $refund['address'] : null;
        $request = $refund['payment_request'] ?? null;
        $this->paymentRequestText = is_array($request) ? (string) $request['text'] : null;
        $this->paymentRequestUri = is_array($request) ? (string) $request['uri'] : null;
        $this->txId = isset($refund['tx_id']) ? (string) $refund['tx_id'] : null;
        $this->txUrl = isset($refund['tx_url']) ? (string) $refund['tx_url'] : null;
        $this->checkedAt = $now;
        return $before !== [$this->status, $this->address, $this->paymentRequestUri, $this->txId];
    }

    /**
     * A refund from a ledger row (snake_case keys, as toArray() writes them).
     *
     * @param array<string, mixed> $row
     */
    public static function fromArray(array $row): self
    {
        $record = new self();
        $record->refundId = (string) $row['refund_id'];
        $record->orderId = (string) $row['order_id'];
        $record->transactionCode = (string) $row['transaction_code'];
        $record->platformRefundId = self::text($row['platform_refund_id'] ?? null);
        $record->serviceUrl = (string) $row['service_url'];
        $record->amount = (string) $row['amount'];
        $record->asset = (string) $row['asset'];
        $record->network = (string) $row['network'];
        $record->fiatAmount = self::text($row['fiat_amount'] ?? null);
        $record->fiatCurrency = (string) $row['fiat_currency'];
        $record->status = (string) $row['status'];
        $record->claimUrl = self::text($row['claim_url'] ?? null);
        $record->address = self::text($row['address'] ?? null);
        $record->paymentRequestText = self::text($row['payment_request_text'] ?? null);
        $record->paymentRequestUri = self::text($row['payment_request_uri'] ?? null);
        $record->txId = self::text($row['tx_id'] ?? null);
        $record->txUrl = self::text($row['tx_url'] ?? null);
        $record->createdAt = (int) $row['created_at'];
        $record->checkedAt = self::time($row['checked_at'] ?? null);
        $record->claimSentAt = self::time($row['claim_sent_at'] ?? null);
        $record->recordedAt = self::time($row['recorded_at'] ?? null);
        $record->noticedStatus = self::text($row['noticed_status'] ?? null);
        return $record;
    }

    /** @return array<string, string|int|null> the ledger's columns */
    public function toArray(): array
    {
        return [
            'refund_id' => $this->refundId,
            'order_id' => $this->orderId,
            'transaction_code' => $this->transactionCode,
            'platform_refund_id' => $this->platformRefundId,
            'service_url' => $this->serviceUrl,
            'amount' => $this->amount,
            'asset' => $this->asset,
            'network' => $this->network,
            'fiat_amount' => $this->fiatAmount,
            'fiat_currency' => $this->fiatCurrency,
            'status' => $this->status,
            'claim_url' => $this->claimUrl,
            'address' => $this->address,
            'payment_request_text' => $this->paymentRequestText,
            'payment_request_uri' => $this->paymentRequestUri,
            'tx_id' => $this->txId,
            'tx_url' => $this->txUrl,
            'created_at' => $this->createdAt,
            'checked_at' => $this->checkedAt,
            'claim_sent_at' => $this->claimSentAt,
            'recorded_at' => $this->recordedAt,
            'noticed_status' => $this->noticedStatus,
        ];
    }

    public function isOpen(): bool
    {
        return in_array($this->status, self::OPEN, true);
    }

    /** @param mixed $value */
    private static function text($value): ?string
    {
        return is_scalar($value) && (string) $value !== '' ? (string) $value : null;
    }

    /** @param mixed $value */
    private static function time($value): ?int
    {
        return $value === null || $value === '' ? null : (int) $value;
    }
}
