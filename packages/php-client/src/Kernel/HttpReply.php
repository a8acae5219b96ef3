<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * An answer for one of the plugin's HTTP endpoints, in the service's own envelope:
 * {"status":"success","data":{…}} or {"status":"error","error":{"code","message","field"?}}.
 * The platform sends it with its own means (WP_REST_Response, ajaxRender, header()/echo).
 */
final class HttpReply
{
    public int $status;
    /** @var array<string, string> */
    public array $headers;
    /** @var array<string, mixed> */
    public array $body;

    /**
     * @param array<string, mixed> $body
     * @param array<string, string> $headers
     */
    private function __construct(int $status, array $body, array $headers = [])
    {
        $this->status = $status;
        $this->body = $body;
        $this->headers = $headers + [
            'Content-Type' => 'application/json; charset=utf-8',
            'Cache-Control' => 'no-store',
            'X-Content-Type-Options' => 'nosniff',
        ];
    }

    /** @param array<string, mixed> $data */
    public static function success(array $data, int $status = 200): self
    {
        return new self($status, ['status' => 'success', 'data' => $data]);
    }

    /** @param array<string, string> $headers */
    public static function error(int $status, string $code, string $message, ?string $field = null, array $headers = []): self
    {
        $error = ['code' => $code, 'message' => $message];
        if ($field !== null) {
            $error['field'] = $field;
        }
        return new self($status, ['status' => 'error', 'error' => $error], $headers);
    }

    public function json(): string
    {
        return (string) json_encode($this->body, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE);
    }
}
