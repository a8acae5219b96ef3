<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Kernel;
use CryptoCheckout\WooCommerce\Helper\RateLimiter;
use CryptoCheckout\WooCommerce\Order\WooCommerceOrderPort;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\BuyerStatus;
use CryptoCheckout\WooCommerce\Vendor\Client\Kernel\HttpReply;

/**
 * GET /wp-json/cryptocheckout/v1/orders/<id>/status?key=<order key>: what the buyer's status box
 * polls, the kernel's BuyerStatus in the success envelope. The order key (which WooCommerce puts in
 * the order-received URL) is the credential, as on the order-received page itself. The order is
 * checked against the service first (at most every few seconds, Runner::runForBuyer), so the page
 * learns of a payment even when the webhook never arrives. Throttled per client IP and order
 * (Helper\RateLimiter), counted once the key has been checked.
 */
final class StatusController
{
    private function __construct()
    {
    }

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
        $orderId = (string) (int) $request->get_param('order_id');
        $throttled = RateLimiter::status($orderId);
        if ($throttled !== null) {
            return WebhookController::restResponse($throttled);
        }
        $status = self::current($orderId);
        $reply = $status === null
            ? HttpReply::error(404, 'not_found', 'This order has no Crypto Checkout payment.')
            : HttpReply::success($status);
        return WebhookController::restResponse($reply);
    }

    /**
     * The order's payment status for its buyer after a due check, or null when the order has no
     * checkout: only orders that hold a Crypto Checkout checkout are ours, whatever their payment
     * method says (the Store API may have reset it), and the service is never asked about others.
     *
     * @return array{state: string, message: string, terminal: bool, checkout_url: string|null}|null
     */
    public static function current(string $orderId): ?array
    {
        $port = Kernel::port();
        if ($port->checkouts($orderId) === []) {
            return null;
        }
        Kernel::runner($port)->runForBuyer($orderId);
        return BuyerStatus::of($port->orderState($orderId), $port->checkouts($orderId), time(), [Kernel::class, 'translate']);
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
