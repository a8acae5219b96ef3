<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Http\Transport;

/**
 * The other people around a refund, over real HTTP to the refund service on loopback
 * (test/refund-service-fake.ts): the buyer confirming an address on the claim page, the merchant
 * paying (sandbox) or cancelling, time letting a claim expire, the service going down; and the
 * refund.paid webhook body the service would send.
 */
final class RefundDesk
{
    public const BUYER_ADDRESS = '0x1111111111111111111111111111111111111111';

    private string $url;
    private Transport $http;

    public function __construct(string $serviceUrl)
    {
        $this->url = rtrim($serviceUrl, '/');
        $this->http = Client::createDefaultTransport();
    }

    /** The service learns a settled transaction it can refund (`received` in the asset). */
    public function settled(string $code, string $received = '100', string $externalReference = 'order-1', string $rate = '1.08'): void
    {
        $this->post('/__fake/transactions', ['transaction_code' => $code, 'received' => $received, 'external_reference' => $externalReference, 'asset' => 'USDC', 'network' => 'POLYGON', 'fiat_currency' => 'EUR', 'rate' => $rate]);
    }

    /** The buyer confirms an address on the claim page (its confirm step). */
    public function confirmAddress(string $claimUrl, string $address = self::BUYER_ADDRESS): void
    {
        $response = $this->http->send('POST', $claimUrl, ['Content-Type' => 'application/x-www-form-urlencoded'], http_build_query(['step' => 'confirm', 'address' => $address, 'confirmed' => 'yes']), 5);
        if ($response->getStatus() !== 303) {
            throw new \RuntimeException('Confirming the address answered ' . $response->getStatus() . ': ' . $response->getBody());
        }
    }

    /** The merchant pays the refund (sandbox). */
    public function pay(string $refundId): void
    {
        $this->post('/api/sandbox/refunds/pay', ['refund_id' => $refundId]);
    }

    public function expire(string $refundId): void
    {
        $this->post('/__fake/expire', ['refund_id' => $refundId]);
    }

    public function cancel(string $refundId, string $credential): void
    {
        Client::forServiceOrigin($this->url, $this->http, 5)->cancelRefund($refundId, $credential, 'asked by the test');
    }

    public function down(bool $down): void
    {
        $this->post('/__fake/down', ['down' => $down]);
    }

    /** The refund.paid body the service sends for a paid refund. */
    public function paidWebhookBody(string $refundId): string
    {
        $refund = Client::forServiceOrigin($this->url, $this->http, 5)->getRefund($refundId);
        return (string) json_encode([
            'event' => 'refund.paid',
            'refund_id' => $refund['refund_id'],
            'transaction_code' => $refund['transaction_code'],
            'external_reference' => $refund['external_reference'],
            'reference' => $refund['reference'],
            'amount' => $refund['amount'],
            'asset' => $refund['asset'],
            'network' => $refund['network'],
            'address' => (string) $refund['address'],
            'tx_id' => (string) $refund['tx_id'],
            'timestamp' => time(),
        ]);
    }

    /** @param array<string, mixed> $body */
    private function post(string $path, array $body): void
    {
        $response = $this->http->send('POST', $this->url . $path, ['Content-Type' => 'application/json'], (string) json_encode($body), 5);
        if ($response->getStatus() !== 200) {
            throw new \RuntimeException($path . ' answered ' . $response->getStatus() . ': ' . $response->getBody());
        }
    }
}
