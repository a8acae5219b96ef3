<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Http;

use CryptoCheckout\Client\Support\Text;

/**
 * An HTTP answer as a transport received it.
 */
final class Response
{
    private int $status;
    private string $body;

    /** @var array<string, string> */
    private array $headers;

    /**
     * @param array<string, string> $headers header name => value; names are compared case-insensitively
     */
    public function __construct(int $status, string $body, array $headers = [])
    {
        $this->status = $status;
        $this->body = $body;
        $this->headers = [];
        foreach ($headers as $name => $value) {
            $this->headers[Text::asciiLower((string) $name)] = $value;
        }
    }

    public function getStatus(): int
    {
        return $this->status;
    }

    public function getBody(): string
    {
        return $this->body;
    }

    /** @return array<string, string> lowercase header name => value */
    public function getHeaders(): array
    {
        return $this->headers;
    }

    public function getHeader(string $name): ?string
    {
        return $this->headers[Text::asciiLower($name)] ?? null;
    }

    /**
     * Parses raw header lines ("HTTP/1.1 200 OK", "Content-Type: application/json") into the
     * status of the last response block and its headers; redirects leave several blocks.
     *
     * @param list<string> $lines
     * @return array{0: int, 1: array<string, string>}
     */
    public static function parseHeaderLines(array $lines): array
    {
        $status = 0;
        $headers = [];
        foreach ($lines as $line) {
            $line = rtrim($line, "\r\n");
            if (preg_match('#\AHTTP/\d(?:\.\d)?\s+(\d{3})#', $line, $match) === 1) {
                $status = (int) $match[1];
                $headers = [];
                continue;
            }
            $colon = strpos($line, ':');
            if ($colon !== false) {
                $headers[Text::asciiLower(trim(substr($line, 0, $colon)))] = trim(substr($line, $colon + 1));
            }
        }
        return [$status, $headers];
    }
}
