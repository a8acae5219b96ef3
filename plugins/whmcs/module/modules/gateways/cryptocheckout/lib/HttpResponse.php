<?php

declare(strict_types=1);

namespace CryptoCheckout\Whmcs;

use CryptoCheckout\Whmcs\Vendor\Client\Kernel\HttpReply;

/** An answer of the module's web entry point, sent in one place. */
final class HttpResponse
{
    /** @var int */
    public $status;
    /** @var array<string, string> */
    public $headers;
    /** @var string */
    public $body;

    /** @param array<string, string> $headers */
    public function __construct(int $status, array $headers, string $body)
    {
        $this->status = $status;
        $this->headers = $headers;
        $this->body = $body;
    }

    /** @param array<string, mixed> $data */
    public static function json(int $status, array $data): self
    {
        return new self($status, [
            'Content-Type' => 'application/json; charset=utf-8',
            'Cache-Control' => 'no-store',
            'X-Content-Type-Options' => 'nosniff',
        ], (string) json_encode($data, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE));
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
            . '<p>' . Html::escape($message) . '</p>'
            . '<p><a href="' . Html::escape($backUrl) . '">Back to the invoice</a></p></body></html>';
        return new self($status, ['Content-Type' => 'text/html; charset=utf-8', 'Cache-Control' => 'no-store'], $body);
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
