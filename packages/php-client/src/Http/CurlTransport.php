<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Http;

use CryptoCheckout\Client\Exception\NetworkException;
use CryptoCheckout\Client\Support\Url;

/**
 * Transport over ext-curl, the default when the extension is loaded.
 */
final class CurlTransport implements Transport
{
    /** curl's "operation timed out" error number. */
    private const TIMED_OUT = 28;

    /** Whether ext-curl is loaded and its functions are not disabled by the host. */
    public static function isAvailable(): bool
    {
        foreach (['curl_init', 'curl_setopt_array', 'curl_exec'] as $function) {
            if (!function_exists($function) || self::isDisabled($function)) {
                return false;
            }
        }
        return true;
    }

    public function send(string $method, string $url, array $headers, ?string $body, int $timeoutSeconds): Response
    {
        $handle = curl_init();
        if ($handle === false) {
            throw new NetworkException('Could not start a curl request.');
        }
        $headerLines = [];
        foreach ($headers as $name => $value) {
            $headerLines[] = $name . ': ' . $value;
        }
        $responseHeaders = [];
        $options = [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $headerLines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_CONNECTTIMEOUT => max(1, $timeoutSeconds),
            CURLOPT_TIMEOUT => max(1, $timeoutSeconds),
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_HEADERFUNCTION => static function ($unused, string $line) use (&$responseHeaders): int {
                $responseHeaders[] = $line;
                return strlen($line);
            },
        ];
        if ($body !== null) {
            $options[CURLOPT_POSTFIELDS] = $body;
        }
        curl_setopt_array($handle, $options);
        $responseBody = curl_exec($handle);
        $errorNumber = curl_errno($handle);
        $error = curl_error($handle);
        $status = (int) curl_getinfo($handle, CURLINFO_HTTP_CODE);
        // curl_close() is a no-op since PHP 8.0 and deprecated in 8.5; older versions need it.
        if (PHP_VERSION_ID < 80000) {
            curl_close($handle);
        }
        if ($errorNumber !== 0 || !is_string($responseBody)) {
            throw new NetworkException(
                sprintf('Could not reach %s: %s (curl error %d).', Url::origin($url), $error !== '' ? $error : 'no response', $errorNumber),
                $errorNumber === self::TIMED_OUT
            );
        }
        [, $parsedHeaders] = Response::parseHeaderLines($responseHeaders);
        return new Response($status, $responseBody, $parsedHeaders);
    }

    private static function isDisabled(string $function): bool
    {
        $disabled = (string) ini_get('disable_functions');
        return $disabled !== '' && in_array($function, array_map('trim', explode(',', $disabled)), true);
    }
}
