<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Assets;
use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Order\WooCommerceRefundPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\HttpReply;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\OrderState;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\StatusWidgetMarkup;

/**
 * The public entry points, one kernel call each: transaction.settled and refund.paid (POST /wp-json/cryptocheckout/v1/webhook,
 * or ?wc-api=cryptocheckout where the REST API is blocked), the buyer's status endpoint
 * (/orders/<id>/status?key=<order key>: the order-received URL's key is the credential), and the
 * order-received page's status box, for every payment method (the Store API may change it), which
 * build/thankyou.js keeps up to date and, in the "payment window" display, opens over the shop.
 */
final class Endpoints
{
    public const REST_NAMESPACE = 'cryptocheckout/v1';
    public const WEBHOOK_ROUTE = '/webhook';
    public const SCRIPT_HANDLE = 'cryptocheckout-thankyou';

    private function __construct()
    {
    }

    public static function registerRoutes(): void
    {
        register_rest_route(self::REST_NAMESPACE, self::WEBHOOK_ROUTE, [
            // Every method reaches the kernel, which answers anything but POST with 405.
            'methods' => \WP_REST_Server::ALLMETHODS,
            'callback' => [self::class, 'webhook'],
            // Public by design: the service sends no credential, and nothing is trusted from the body.
            'permission_callback' => '__return_true',
        ]);
        register_rest_route(self::REST_NAMESPACE, '/orders/(?P<order_id>\d+)/status', [
            'methods' => 'GET',
            'callback' => [self::class, 'status'],
            'permission_callback' => [self::class, 'canReadStatus'],
            'args' => [
                'order_id' => ['required' => true, 'sanitize_callback' => 'absint'],
                'key' => ['required' => true, 'sanitize_callback' => 'sanitize_text_field'],
            ],
        ]);
    }

    /**
     * rest_request_before_callbacks: a body that is not JSON reaches the kernel, not WordPress' own refusal.
     *
     * @param array<string, mixed> $handler
     */
    public static function letWebhookRefuse($response, $handler, $request)
    {
        $ours = is_array($handler) && ($handler['callback'] ?? null) === [self::class, 'webhook'];
        return $ours && $response instanceof \WP_Error && $response->get_error_code() === 'rest_invalid_json' ? null : $response;
    }

    /** rest_post_dispatch, after WordPress' own Allow header: the webhook route takes POST only. */
    public static function allowHeader($response, $server, $request)
    {
        if ($response instanceof \WP_REST_Response && $request instanceof \WP_REST_Request && $request->get_route() === '/' . self::REST_NAMESPACE . self::WEBHOOK_ROUTE) {
            $response->header('Allow', 'POST');
        }
        return $response;
    }

    public static function webhook(\WP_REST_Request $request): \WP_REST_Response
    {
        return self::restResponse(Kernel::get()->webhook((string) $request->get_method(), (string) $request->get_body(), Kernel::clientIp(), new WooCommerceRefundPort())['reply']);
    }

    /** woocommerce_api_cryptocheckout */
    public static function legacyWebhook(): void
    {
        $method = isset($_SERVER['REQUEST_METHOD']) ? sanitize_text_field(wp_unslash((string) $_SERVER['REQUEST_METHOD'])) : '';
        $reply = Kernel::get()->webhook($method, (string) file_get_contents('php://input'), Kernel::clientIp(), new WooCommerceRefundPort())['reply'];
        foreach ($reply->headers as $name => $value) {
            if (strtolower($name) !== 'content-type') {
                header($name . ': ' . $value);
            }
        }
        wp_send_json($reply->body, $reply->status);
    }

    public static function canReadStatus(\WP_REST_Request $request): bool
    {
        $order = wc_get_order((int) $request->get_param('order_id'));
        return $order instanceof \WC_Order && (string) $request->get_param('key') !== '' && hash_equals((string) $order->get_order_key(), (string) $request->get_param('key'));
    }

    public static function status(\WP_REST_Request $request): \WP_REST_Response
    {
        $orderId = (string) (int) $request->get_param('order_id');
        return self::restResponse(Kernel::get($orderId)->statusReply($orderId, Kernel::clientIp()));
    }

    /**
     * woocommerce_thankyou: the status box, and for an unpaid order whose payment window closed and
     * that still needs payment, WooCommerce's own "pay for order" page, which opens a new checkout:
     * never while a payment is being confirmed (not terminal), for a part-paid or a cancelled order.
     *
     * @param int $orderId
     */
    public static function orderReceived($orderId): void
    {
        $order = wc_get_order((int) $orderId);
        $id = $order instanceof \WC_Order ? (string) $order->get_id() : '';
        $status = $id === '' ? null : Kernel::get($id)->buyerStatus($id);
        if ($status === null) {
            return;
        }
        if (Assets::register(self::SCRIPT_HANDLE, 'thankyou')) {
            wp_enqueue_script(self::SCRIPT_HANDLE);
        }
        $statusUrl = add_query_arg('key', rawurlencode((string) $order->get_order_key()), rest_url(self::REST_NAMESPACE . '/orders/' . $id . '/status'));
        $openModal = isset($_GET[Gateway::PAY_QUERY_ARG]); // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display switch only
        // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- StatusWidgetMarkup escapes every value it writes
        echo StatusWidgetMarkup::render($status, $statusUrl, [Kernel::class, 'translate'], $openModal);
        if ($status['terminal'] && $status['state'] === OrderState::AWAITING_PAYMENT && $status['checkout_url'] === null && $order->needs_payment()) {
            echo '<p class="cryptocheckout-status__restart"><a class="button" href="' . esc_url($order->get_checkout_payment_url()) . '">'
                . esc_html__('Start a new payment', 'cryptocheckout-for-woocommerce') . '</a></p>';
        }
    }

    private static function restResponse(HttpReply $reply): \WP_REST_Response
    {
        $response = new \WP_REST_Response($reply->body, $reply->status);
        foreach ($reply->headers as $name => $value) {
            $response->header($name, $value);
        }
        return $response;
    }
}
