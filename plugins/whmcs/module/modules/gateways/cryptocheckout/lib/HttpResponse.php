<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\HttpReply;

/** An answer of the module's web entry point, sent in one place; and the HTML escaping of what the module prints. */
final class HttpResponse
{
    public int $status;
    /** @var array<string, string> */
    public array $headers;
    public string $body;

    /** @param array<string, string> $headers */
    public function __construct(int $status, array $headers, string $body)
    {
        $this->status = $status;
        $this->headers = $headers;
        $this->body = $body;
    }

    /** An answer in the service's envelope, as the kernel words it. */
    public static function fromReply(HttpReply $reply): self
    {
        return new self($reply->status, $reply->headers, $reply->json());
    }

    public static function redirect(string $location): self
    {
        return new self(303, ['Location' => $location, 'Cache-Control' => 'no-store'], '');
    }

    /** A plain page for a buyer whose browser posted the form without the script. */
    public static function page(int $status, string $message, string $backUrl): self
    {
        $body = '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Crypto Checkout</title></head><body>'
            . '<p>' . self::escape($message) . '</p>'
            . '<p><a href="' . self::escape($backUrl) . '">Back to the invoice</a></p></body></html>';
        return new self($status, ['Content-Type' => 'text/html; charset=utf-8', 'Cache-Control' => 'no-store'], $body);
    }

    public static function escape(string $text): string
    {
        return htmlspecialchars($text, ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
    }

    public function send(): void
    {
        http_response_code($this->status);
        foreach ($this->headers as $name => $value) {
            header($name . ': ' . str_replace(["\r", "\n"], '', $value));
        }
        echo $this->body;
    }
}
