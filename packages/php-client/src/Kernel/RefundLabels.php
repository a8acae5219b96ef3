<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Wallet\Networks;

/**
 * What a refund stands at, in words for the merchant's order screen, the same on every platform:
 * English with %placeholders% through the platform's translation, every value plain text (the
 * platform escapes as it prints) and links the platform shows as links.
 */
final class RefundLabels
{
    public const STATES = [
        RefundRecord::AWAITING_ADDRESS => 'Refund %amount% %asset%: waiting for the buyer\'s address',
        RefundRecord::AWAITING_PAYMENT => 'Refund %amount% %asset%: the buyer confirmed an address; waiting for your payment',
        RefundRecord::PAID => 'Refund %amount% %asset%: paid',
        RefundRecord::CANCELLED => 'Refund %amount% %asset%: cancelled; nothing was paid',
        RefundRecord::EXPIRED => 'Refund %amount% %asset%: expired; the buyer did not confirm an address in time, nothing was paid',
    ];

    public const CLAIM_LINK_NOT_SENT = 'The buyer was not sent the claim link; send it to them yourself:';
    public const SEND = 'Send %amount% %asset% on %network% to %address%';
    public const OPEN_IN_WALLET = 'Open in wallet';
    /**
     * Under the payment to send on Solana: the service finds a refund's payment there only by the
     * Solana Pay reference its request carries (docs/solana.md "Refunds"), never by the amount.
     */
    public const PAY_WITH_REQUEST = 'On Solana, pay it with "Open in wallet": the request carries this refund\'s reference, which is how its payment is found. A transfer typed in by hand to the address has none and is not found.';
    /** With the transaction's link after it; PAID_IN when the service gave no link. */
    public const PAID = 'Paid —';
    public const PAID_IN = 'Paid — %tx%';

    private function __construct()
    {
    }

    /**
     * The lines of one refund: its state, then what to do or what happened (the claim link when it
     * was not sent, the payment to send with its wallet link, the paying transaction). A line with
     * a link shows `link_text` as a link to `link` after its text.
     *
     * @param callable(string, array<string, string>): string|null $translate
     * @return list<array{text: string, link: string|null, link_text: string|null}>
     */
    public static function lines(RefundRecord $refund, ?callable $translate = null): array
    {
        $network = Networks::get($refund->network);
        $parameters = [
            '%amount%' => $refund->amount,
            '%asset%' => $refund->asset,
            '%network%' => $network === null ? $refund->network : (string) $network['name'],
            '%address%' => (string) $refund->address,
            '%tx%' => (string) $refund->txId,
        ];
        $lines = [self::line(self::STATES[$refund->status] ?? self::STATES[RefundRecord::AWAITING_ADDRESS], $parameters, $translate)];
        if ($refund->status === RefundRecord::AWAITING_ADDRESS && $refund->claimSentAt === null && $refund->claimUrl !== null) {
            $lines[] = self::line(self::CLAIM_LINK_NOT_SENT, [], $translate, $refund->claimUrl, $refund->claimUrl);
        }
        if ($refund->status === RefundRecord::AWAITING_PAYMENT && $refund->address !== null) {
            $lines[] = self::line(self::SEND, $parameters, $translate, $refund->paymentRequestUri, self::say(self::OPEN_IN_WALLET, [], $translate));
            if (($network['family'] ?? null) === Networks::FAMILY_SOLANA) {
                $lines[] = self::line(self::PAY_WITH_REQUEST, [], $translate);
            }
        }
        if ($refund->status === RefundRecord::PAID && $refund->txId !== null) {
            $lines[] = $refund->txUrl === null
                ? self::line(self::PAID_IN, $parameters, $translate)
                : self::line(self::PAID, $parameters, $translate, $refund->txUrl, $refund->txId);
        }
        return $lines;
    }

    /**
     * One row per refund for the order panel, newest first as given.
     *
     * @param list<RefundRecord> $refunds
     * @param callable(string, array<string, string>): string|null $translate
     * @return list<array{refund_id: string, status: string, lines: list<array{text: string, link: string|null, link_text: string|null}>}>
     */
    public static function rows(array $refunds, ?callable $translate = null): array
    {
        $rows = [];
        foreach ($refunds as $refund) {
            $rows[] = ['refund_id' => $refund->refundId, 'status' => $refund->status, 'lines' => self::lines($refund, $translate)];
        }
        return $rows;
    }

    /**
     * @param array<string, string> $parameters
     * @return array{text: string, link: string|null, link_text: string|null}
     */
    private static function line(string $text, array $parameters, ?callable $translate, ?string $link = null, ?string $linkText = null): array
    {
        return ['text' => self::say($text, $parameters, $translate), 'link' => $link, 'link_text' => $link === null ? null : $linkText];
    }

    /** @param array<string, string> $parameters */
    private static function say(string $text, array $parameters, ?callable $translate): string
    {
        return $translate === null ? strtr($text, $parameters) : (string) $translate($text, $parameters);
    }
}
