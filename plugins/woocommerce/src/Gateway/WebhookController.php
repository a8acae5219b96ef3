<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Helper\RateLimiter;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\HttpReply;

/**
 * The routes of transaction.settled: POST /wp-json/cryptocheckout/v1/webhook, and ?wc-api=cryptocheckout
 * for sites whose REST API is blocked. The kernel's WebhookHandler does the rest (the order is
 * found by its stored transaction code, the service's own record decides, the HTTP status policy).
 * Both routes are throttled per client IP first (Helper\RateLimiter: 429 with Retry-After).
 */
final class WebhookController
{
    public const REST_NAMESPACE = 'cryptocheckout/v1';
    public const REST_ROUTE = '/webhook';

    private function __construct()
    {
    }

    public static function registerRoutes(): void
    {
        register_rest_route(self::REST_NAMESPACE, self::REST_ROUTE, [
            // Every method reaches the handler, which answers anything but POST with 405.
            'methods' => \WP_REST_Server::ALLMETHODS,
            'callback' => [self::class, 'handleRest'],
            // Public by design: the service sends no credential, and nothing is trusted from the body.
            'permission_callback' => '__return_true',
        ]);
    }

    /**
     * rest_request_before_callbacks: the REST API refuses a body that is not JSON before any route
     * sees it, in its own error shape; the webhook route answers it by the kernel's policy instead.
     *
     * @param mixed $response
     * @param array<string, mixed> $handler
     * @return mixed
     */
    public static function letHandlerRefuse($response, $handler, $request)
    {
        $ours = is_array($handler) && ($handler['callback'] ?? null) === [self::class, 'handleRest'];
        return $ours && $response instanceof \WP_Error && $response->get_error_code() === 'rest_invalid_json' ? null : $response;
    }

    /**
     * rest_post_dispatch, after WordPress' own Allow header (rest_send_allow_header lists every
     * method the route is registered for): the webhook route takes POST only.
     *
     * @param mixed $response
     * @return mixed
     */
    public static function allowHeader($response, $server, $request)
    {
        if ($response instanceof \WP_REST_Response && $request instanceof \WP_REST_Request && $request->get_route() === '/' . self::REST_NAMESPACE . self::REST_ROUTE) {
            $response->header('Allow', 'POST');
        }
        return $response;
    }

    /** @return \WP_REST_Response */
    public static function handleRest(\WP_REST_Request $request)
    {
        $throttled = RateLimiter::webhook();
        if ($throttled !== null) {
            return self::restResponse($throttled);
        }
        return self::restResponse(self::handle((string) $request->get_method(), (string) $request->get_body()));
    }

    public static function handleLegacy(): void
    {
        $method = isset($_SERVER['REQUEST_METHOD']) ? sanitize_text_field(wp_unslash((string) $_SERVER['REQUEST_METHOD'])) : '';
        $reply = RateLimiter::webhook() ?? self::handle($method, (string) file_get_contents('php://input'));
        foreach ($reply->headers as $name => $value) {
            if (strtolower($name) !== 'content-type') {
                header($name . ': ' . $value);
            }
        }
        wp_send_json($reply->body, $reply->status);
    }

    public static function handle(string $method, string $rawBody): HttpReply
    {
        $port = Kernel::port();
        return Kernel::webhooks($port)->handle($method, $rawBody)['reply'];
    }

    /** A kernel reply as the REST API's response, headers included. */
    public static function restResponse(HttpReply $reply): \WP_REST_Response
    {
        $response = new \WP_REST_Response($reply->body, $reply->status);
        foreach ($reply->headers as $name => $value) {
            $response->header($name, $value);
        }
        return $response;
    }
}
