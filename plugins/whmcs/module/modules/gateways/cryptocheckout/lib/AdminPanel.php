<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\RefundLabels;

/**
 * The Crypto Checkout box on the admin's invoice page (hook AdminInvoicesControlsOutput): each
 * refund of the invoice in the kernel's words (RefundLabels: waiting for the client's address, the
 * payment to send with its wallet link, paid with the chain transaction) and what the last
 * "Refund through Gateway" answered, since WHMCS itself only says "Refund Failed" for anything but
 * a refund completed at once. Nothing is shown on invoices the module has no refund or request for.
 */
final class AdminPanel
{
    /** Links printed as links: web pages and wallet links; anything else stays text. */
    private const LINK_SCHEMES = '/\A(https?|ethereum|bitcoin|solana|tron):/i';

    /** @param array<string, mixed> $vars the hook's parameters (invoiceid, userid, …, paymentmethod) */
    public static function render(array $vars): string
    {
        $invoiceId = (string) (int) ($vars['invoiceid'] ?? 0);
        $gateway = Gateway::fromSavedSettings();
        if ($gateway === null || $invoiceId === '0') {
            return '';
        }
        try {
            $kernel = $gateway->kernel();
            if ($kernel->checkouts($invoiceId) === []) {
                return '';
            }
            $rows = RefundLabels::rows($kernel->refunds($invoiceId));
            $attempt = RefundAction::lastAttempt($kernel, $invoiceId);
        } catch (\RuntimeException $failed) {
            return '<div class="alert alert-warning">' . HttpResponse::escape('Crypto Checkout: the refunds of this invoice cannot be shown right now (' . $failed->getMessage() . ').') . '</div>';
        }
        if ($rows === [] && $attempt === null) {
            return '';
        }
        $html = '<div class="panel panel-default cryptocheckout-refunds"><div class="panel-heading"><strong>Crypto Checkout refunds</strong></div><div class="panel-body">';
        if ($attempt !== null) {
            $html .= '<p class="cryptocheckout-last-request text-' . ($attempt['status'] === RefundAction::REQUESTED ? 'info' : 'danger') . '">'
                . HttpResponse::escape(sprintf('Last refund request (%s UTC): %s', gmdate('Y-m-d H:i', (int) $attempt['at']), (string) $attempt['message'])) . '</p>';
        }
        foreach ($rows as $row) {
            $html .= '<ul class="cryptocheckout-refund" data-refund-id="' . HttpResponse::escape($row['refund_id']) . '" data-status="' . HttpResponse::escape($row['status']) . '">';
            foreach ($row['lines'] as $line) {
                $html .= '<li>' . HttpResponse::escape($line['text']);
                if ($line['link'] !== null && preg_match(self::LINK_SCHEMES, $line['link']) === 1) {
                    $html .= ' <a href="' . HttpResponse::escape($line['link']) . '" target="_blank" rel="noopener noreferrer">' . HttpResponse::escape((string) $line['link_text']) . '</a>';
                }
                $html .= '</li>';
            }
            $html .= '</ul>';
        }
        return $html . '</div></div>';
    }
}
