<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * What Kernel::startRefund() did: the refund (started, or found again for the same platform refund
 * id), or why none was started, in words for the admin screen (translated). On a problem nothing
 * was stored and nothing was refunded.
 */
final class RefundStart
{
    /** No merchant key (or operator token) is set in the plugin's settings. */
    public const NO_CREDENTIAL = 'no_credential';
    /** The amount is not a positive decimal. */
    public const INVALID_AMOUNT = 'invalid_amount';
    /** The order has no settled payment in the ledger. */
    public const NO_SETTLED_CHECKOUT = 'no_settled_checkout';
    /** Another request holds the order. */
    public const BUSY = 'busy';
    /** No answer from the service, or a server error. */
    public const UNREACHABLE = 'unreachable';
    /** The service did not accept the credential (401). */
    public const UNAUTHORIZED = 'unauthorized';
    /** The service refused the refund (its message says why). */
    public const REFUSED = 'refused';
    /** The service answered something the client cannot read. */
    public const UNEXPECTED = 'unexpected';

    public bool $ok;
    public ?RefundRecord $refund;
    /** One of the constants above, or null when $ok. */
    public ?string $problem;
    /** For the admin: what happened, translated. */
    public string $message;
    /** The service's own message (refused), or the exception's; for the log. */
    public ?string $detail;
    /** The service's error code and field, when it refused. */
    public ?string $errorCode;
    public ?string $field;
    /** False when the service answered a refund made earlier with the same platform refund id. */
    public bool $created;
    /** Whether the buyer has been sent the claim link (now or by an earlier attempt). */
    public bool $linkSent;

    private function __construct(bool $ok, ?RefundRecord $refund, ?string $problem, string $message)
    {
        $this->ok = $ok;
        $this->refund = $refund;
        $this->problem = $problem;
        $this->message = $message;
        $this->detail = null;
        $this->errorCode = null;
        $this->field = null;
        $this->created = false;
        $this->linkSent = false;
    }

    public static function started(RefundRecord $refund, bool $created, string $message): self
    {
        $start = new self(true, $refund, null, $message);
        $start->created = $created;
        $start->linkSent = $refund->claimSentAt !== null;
        return $start;
    }

    public static function failed(string $problem, string $message, ?string $detail = null, ?string $errorCode = null, ?string $field = null): self
    {
        $start = new self(false, null, $problem, $message);
        $start->detail = $detail;
        $start->errorCode = $errorCode;
        $start->field = $field;
        return $start;
    }
}
