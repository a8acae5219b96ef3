<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

/**
 * GET /wp-json/cryptocheckout/v1/orders/<id>/status?key=<order key>: the order-received page's
 * script polls it. The order key (which WooCommerce puts in the order-received URL) is the
 * credential, as on the order-received page itself. An open order is checked against the service
 * first, so the page learns of a payment even when the webhook never arrives.
 */
final class StatusController
{
    private const THROTTLE_PREFIX = 'cryptocheckout_status_';
    private const THROTTLE_SECONDS = 5;

    public static function registerRoutes(): void
    {
        register_rest_route(WebhookController::REST_NAMESPACE, '/orders/(?P<order_id>\d+)/status', [
            'methods' => 'GET',
            'callback' => [self::class, 'handle'],
            'permission_callback' => [self::class, 'canRead'],
            'args' => [
                'order_id' => ['required' => true, 'sanitize_callback' => 'absint'],
                'key' => ['required' => true, 'sanitize_callback' => 'sanitize_text_field'],
            ],
        ]);
    }

    /** @return bool */
    public static function canRead(\WP_REST_Request $request)
    {
        $order = wc_get_order((int) $request->get_param('order_id'));
        $key = (string) $request->get_param('key');
        return $order instanceof \WC_Order && $key !== '' && hash_equals((string) $order->get_order_key(), $key);
    }

    /** @return \WP_REST_Response */
    public static function handle(\WP_REST_Request $request)
    {
        $orderId = (int) $request->get_param('order_id');
        $order = wc_get_order($orderId);
        if ($order instanceof \WC_Order && $order->get_payment_method() === Gateway::ID && OrderData::isWatched($order, time())
            && get_transient(self::THROTTLE_PREFIX . $orderId) === false) {
            // One lookup per order every few seconds, however many tabs poll.
            set_transient(self::THROTTLE_PREFIX . $orderId, '1', self::THROTTLE_SECONDS);
            (new OrderSync())->sync($orderId, 'status');
            $order = wc_get_order($orderId);
        }
        if (!$order instanceof \WC_Order) {
            return new \WP_REST_Response(['error' => 'Order not found.'], 404);
        }
        $response = new \WP_REST_Response(OrderStatus::forBuyer($order), 200);
        $response->header('Cache-Control', 'no-store');
        return $response;
    }

    public static function url(\WC_Order $order): string
    {
        return add_query_arg(
            'key',
            rawurlencode((string) $order->get_order_key()),
            rest_url(WebhookController::REST_NAMESPACE . '/orders/' . $order->get_id() . '/status')
        );
    }
}
