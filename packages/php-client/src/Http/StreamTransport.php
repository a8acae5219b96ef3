<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Http;

use CryptoCheckout\Client\Exception\NetworkException;
use CryptoCheckout\Client\Support\Url;

/**
 * Transport over PHP's http:// stream wrapper, for hosts without ext-curl (needs allow_url_fopen).
 */
final class StreamTransport implements Transport
{
    public static function isAvailable(): bool
    {
        return filter_var(ini_get('allow_url_fopen'), FILTER_VALIDATE_BOOLEAN);
    }

    public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): Response
    {
        $timeout = max(1, $timeoutSeconds);
        $headerText = 'Connection: close' . "\r\n";
        foreach ($headers as $name => $value) {
            $headerText .= $name . ': ' . $value . "\r\n";
        }
        $http = [
            'method' => $method,
            'header' => $headerText,
            'timeout' => $timeout,
            // Error statuses carry the error envelope, so their bodies must be read, not refused.
            'ignore_errors' => true,
            'follow_location' => 0,
            'protocol_version' => 1.1,
        ];
        if ($body !== null) {
            $http['content'] = $body;
        }
        $context = stream_context_create(['http' => $http]);

        $started = microtime(true);
        $warning = null;
        $stream = self::withWarningsCaught(static function () use ($url, $context) {
            return fopen($url, 'rb', false, $context);
        }, $warning);
        if ($stream === false) {
            // The wrapper reports a timeout and a refused connection with the same message, so
            // the elapsed time tells them apart.
            $timedOut = microtime(true) - $started >= $timeout * 0.9;
            throw new NetworkException(
                sprintf(
                    'Could not reach %s: %s',
                    Url::origin($url),
                    $timedOut ? sprintf('no answer within %d seconds.', $timeout) : ($warning ?? 'connection failed.')
                ),
                $timedOut
            );
        }
        $meta = stream_get_meta_data($stream);
        $responseBody = self::withWarningsCaught(static function () use ($stream) {
            return stream_get_contents($stream);
        }, $warning);
        $afterRead = stream_get_meta_data($stream);
        fclose($stream);
        if ($responseBody === false || !empty($afterRead['timed_out'])) {
            throw new NetworkException(
                sprintf('Could not reach %s: the answer did not complete within %d seconds.', Url::origin($url), $timeout),
                true
            );
        }
        $lines = isset($meta['wrapper_data']) && is_array($meta['wrapper_data']) ? array_values($meta['wrapper_data']) : [];
        [$status, $parsedHeaders] = Response::parseHeaderLines($lines);
        if ($status === 0) {
            throw new NetworkException(sprintf('Could not reach %s: the answer had no HTTP status line.', Url::origin($url)));
        }
        return new Response($status, $responseBody, $parsedHeaders);
    }

    /**
     * Runs $operation with the stream wrapper's warnings caught here, so neither `@` nor the
     * site's own error handler decides what happens to them; $warning receives the last one.
     *
     * @return mixed what $operation returns
     */
    private static function withWarningsCaught(callable $operation, ?string &$warning)
    {
        set_error_handler(static function (int $severity, string $message) use (&$warning): bool {
            $warning = $message;
            return true;
        });
        try {
            return $operation();
        } finally {
            restore_error_handler();
        }
    }
}
