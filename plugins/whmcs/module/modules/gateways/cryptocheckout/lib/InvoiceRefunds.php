<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Exception\MoneyException;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\RefundPort;
use CryptoCheckout\Whmcs\Vendor\Client\Kernel\RefundRecord;
use CryptoCheckout\Whmcs\Vendor\Client\Money;
use CryptoCheckout\Whmcs\Vendor\Client\Wallet\Networks;
use WHMCS\Database\Capsule;

/**
 * WHMCS's side of a refund (the kernel's RefundPort): the claim link goes to the client by WHMCS's
 * own e-mail (the SendEmail API, a custom message of the invoice type), notes go where the admin
 * reads them, and a paid refund becomes the refund transaction WHMCS's own "Refund through Gateway"
 * writes on success: a row of tblaccounts with amountout, the chain transaction as its transaction
 * ID and refundid pointing at the payment it refunds, in one insert (the AddTransaction API cannot
 * set refundid), then "Refunded" once the invoice's payments are refunded in full.
 */
final class InvoiceRefunds implements RefundPort
{
    /** The refund transaction's description: WHMCS's own wording, then the refund it records. */
    public const DESCRIPTION = 'Refund of Transaction ID %s (Crypto Checkout refund %s: %s %s)';

    private InvoicePort $invoices;
    private Ledger $ledger;

    public function __construct(InvoicePort $invoices, Ledger $ledger)
    {
        $this->invoices = $invoices;
        $this->ledger = $ledger;
    }

    /** True once the invoice holds a refund transaction of this refund (its id in the description, or its chain transaction). */
    public function isRefundRecorded(string $orderId, string $refundId): bool
    {
        $refundId = strtolower($refundId);
        $txId = $this->ledger->refunds()->find($refundId)->txId ?? null;
        foreach (Capsule::table('tblaccounts')->where('invoiceid', (int) $orderId)->get() as $row) {
            $mentions = strpos((string) $row->description, 'Crypto Checkout refund ' . $refundId) !== false;
            $samePayout = $txId !== null && (string) $row->transid === $txId && Money::compare((string) $row->amountout, '0') > 0;
            if ($mentions || $samePayout) {
                return true;
            }
        }
        return false;
    }

    /**
     * The refund transaction, in the invoice's own currency and amount (what the Refund tab was
     * asked, converted back at the checkout's rate when "Convert To For Processing" applied).
     *
     * @throws \RuntimeException when the invoice is gone or the amount cannot be worked out
     */
    public function recordRefundPaid(string $orderId, RefundRecord $refund): void
    {
        $invoiceId = (int) $orderId;
        $invoice = $this->invoices->invoice($invoiceId);
        if ($invoice === null) {
            throw new \RuntimeException(sprintf('Invoice #%d no longer exists; the paid refund %s could not be recorded on it.', $invoiceId, $refund->refundId));
        }
        [$amount, $currency] = $this->invoiceAmount($orderId, $refund);
        $payment = Capsule::table('tblaccounts')->where('invoiceid', $invoiceId)->where('transid', $refund->transactionCode)->first();
        $userId = (int) $invoice['userid'];
        $rowId = Capsule::table('tblaccounts')->insertGetId([
            'userid' => $userId,
            'currency' => 0,
            'gateway' => Settings::GATEWAY,
            'date' => date('Y-m-d H:i:s'),
            'description' => sprintf(self::DESCRIPTION, $refund->transactionCode, $refund->refundId, $refund->amount, $refund->asset),
            'amountin' => '0.00',
            'fees' => '0.00',
            'amountout' => $amount,
            'rate' => $payment === null ? '1' : (string) $payment->rate,
            'transid' => (string) ($refund->txId ?? $refund->refundId),
            'invoiceid' => $invoiceId,
            'refundid' => $payment === null ? 0 : (int) $payment->id,
        ]);
        logActivity(sprintf('Refunded Invoice Payment - Invoice ID: %d - Transaction ID: %d', $invoiceId, $payment === null ? 0 : (int) $payment->id), $userId);
        $refundedInFull = $this->refundedInFull($invoiceId);
        if ($refundedInFull) {
            localAPI('UpdateInvoice', ['invoiceid' => $invoiceId, 'status' => 'Refunded']);
        }
        $this->invoices->gatewayLog('Refund Recorded', [
            'invoice' => (string) $invoiceId,
            'refund_id' => $refund->refundId,
            'paid' => $refund->amount . ' ' . $refund->asset . ' to ' . (string) $refund->address,
            'chain_transaction' => (string) $refund->txId,
            'recorded' => $amount . ' ' . $currency . ' (transaction #' . $rowId . ')',
            'invoice_status' => $refundedInFull ? 'Refunded' : (string) $invoice['status'],
        ]);
        $this->invoices->adminNote($orderId, sprintf(
            'Crypto Checkout: the refund of %s %s was paid (transaction %s) and is recorded on the invoice as a refund of %s %s.%s',
            $refund->amount,
            $refund->asset,
            (string) ($refund->txUrl ?? $refund->txId),
            $amount,
            $currency,
            $refundedInFull ? ' The invoice is refunded in full.' : ''
        ), false);
    }

    /** The claim link by WHMCS's e-mail to the invoice's client; a refusal is logged with WHMCS's reason. */
    public function sendClaimLink(string $orderId, RefundRecord $refund): bool
    {
        $invoice = $this->invoices->invoice((int) $orderId);
        $number = trim((string) ($invoice['invoicenum'] ?? '')) !== '' ? (string) $invoice['invoicenum'] : $orderId;
        $answer = localAPI('SendEmail', [
            'customtype' => 'invoice',
            'id' => (int) $orderId,
            'customsubject' => sprintf('Your refund for invoice #%s', $number),
            'custommessage' => self::claimMessage($refund, $number),
        ]);
        if (is_array($answer) && ($answer['result'] ?? '') === 'success') {
            return true;
        }
        $this->invoices->gatewayLog('Refund E-mail Not Sent', [
            'invoice' => $orderId,
            'refund_id' => $refund->refundId,
            'message' => is_array($answer) ? (string) ($answer['message'] ?? '') : 'SendEmail gave no answer',
            'action' => 'Send the client the claim link shown on the invoice yourself.',
        ]);
        return false;
    }

    /** Sticky while the admin has something to do (send the payment, pass on a link not e-mailed); otherwise a plain note. */
    public function refundNote(string $orderId, RefundRecord $refund, string $note): void
    {
        $act = $refund->status === RefundRecord::AWAITING_PAYMENT
            || ($refund->status === RefundRecord::AWAITING_ADDRESS && $refund->claimSentAt === null);
        $this->invoices->adminNote($orderId, 'Crypto Checkout: ' . $note, $act);
    }

    /**
     * The e-mail's HTML body. WHMCS runs custom messages through Smarty, so nothing in it may carry
     * a brace; every value is escaped.
     */
    public static function claimMessage(RefundRecord $refund, string $invoiceNumber): string
    {
        $network = Networks::get($refund->network);
        $networkName = $network === null ? $refund->network : (string) $network['name'];
        $asked = $refund->fiatAmount === null ? '' : $refund->fiatAmount . ' ' . $refund->fiatCurrency . ', paid as ';
        $link = HttpResponse::escape((string) $refund->claimUrl);
        return '<p>' . HttpResponse::escape(sprintf('We are refunding you %s%s %s on %s for invoice #%s.', $asked, $refund->amount, $refund->asset, $networkName, $invoiceNumber)) . '</p>'
            . '<p>' . HttpResponse::escape(sprintf('To receive it, open the link below and enter the address of your own wallet on %s that can receive %s. Do not use an exchange deposit address that needs a memo or tag. The link is for you alone.', $networkName, $refund->asset)) . '</p>'
            . '<p><a href="' . $link . '">' . $link . '</a></p>'
            . '<p>' . HttpResponse::escape('Please confirm your address within 30 days; we send the refund once you have.') . '</p>';
    }

    /**
     * @return array{0: string, 1: string} the amount and currency of the invoice the refund gives back
     * @throws \RuntimeException when the refund was not asked in the checkout's currency
     */
    private function invoiceAmount(string $orderId, RefundRecord $refund): array
    {
        foreach ($this->ledger->checkouts($orderId) as $checkout) {
            if (!$checkout->hasCode($refund->transactionCode) || $refund->fiatAmount === null) {
                continue;
            }
            $currency = $checkout->orderCurrency ?? $checkout->fiatCurrency;
            try {
                if (strtoupper($refund->fiatCurrency) === strtoupper($currency)) {
                    return [self::twoDecimals(Money::roundHalfUp($refund->fiatAmount, 2)), $currency];
                }
                if ($checkout->orderAmount !== null && strtoupper($refund->fiatCurrency) === strtoupper($checkout->fiatCurrency)) {
                    return [self::twoDecimals(Money::scaleByRatio($refund->fiatAmount, $checkout->orderAmount, $checkout->fiatAmount, 2)), $currency];
                }
            } catch (MoneyException $unreadable) {
                break;
            }
        }
        throw new \RuntimeException(sprintf('The paid refund %s (%s %s) cannot be converted to the invoice\'s currency; record it on invoice #%s by hand.', $refund->refundId, (string) $refund->fiatAmount, $refund->fiatCurrency, $orderId));
    }

    /** Whether the invoice's payments are all refunded, as WHMCS decides when it marks an invoice Refunded. */
    private function refundedInFull(int $invoiceId): bool
    {
        $in = '0';
        $out = '0';
        try {
            foreach (Capsule::table('tblaccounts')->where('invoiceid', $invoiceId)->get() as $row) {
                $in = Money::add($in, (string) $row->amountin);
                $out = Money::add($out, (string) $row->amountout);
            }
        } catch (MoneyException $unreadable) {
            return false; // A hand-made entry (a negative amount): the admin sets the status.
        }
        return Money::compare($in, '0') > 0 && Money::compare($in, $out) <= 0;
    }

    /** "5" → "5.00": WHMCS keeps every amount with two decimals. */
    private static function twoDecimals(string $decimal): string
    {
        $parts = explode('.', $decimal . '.');
        return $parts[0] . '.' . str_pad(substr($parts[1], 0, 2), 2, '0');
    }
}
