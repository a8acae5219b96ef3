<?php

declare(strict_types=1);

namespace CryptoCheckout\WooCommerce\Gateway;

defined('ABSPATH') || exit;

use CryptoCheckout\WooCommerce\Helper\Logger;
use CryptoCheckout\WooCommerce\Vendor\Client\Exception\InvalidWebhookException;
use CryptoCheckout\WooCommerce\Vendor\Client\Support\Text;
use CryptoCheckout\WooCommerce\Vendor\Client\WebhookParser;

/**
 * Receives transaction.settled. The body is unsigned, so it only says which order to look at: the
 * order is found by its reference, its stored transaction code must be the one named, and what
 * happens next is decided by OrderSync on the service's own record. Answers within the 8 seconds
 * the service waits (one lookup, a few seconds at most).
 */
final class WebhookController
{
    public const REST_NAMESPACE = 'cryptocheckout/v1';
    public const REST_ROUTE = '/webhook';

    public static function registerRoutes(): void
    {
        register_rest_route(self::REST_NAMESPACE, self::REST_ROUTE, [
            'methods' => 'POST',
            'callback' => [self::class, 'handleRest'],
            // Public by design: the service sends no credential, and nothing is trusted from the body.
            'permission_callback' => '__return_true',
        ]);
    }

    /** @return \WP_REST_Response */
    public static function handleRest(\WP_REST_Request $request)
    {
        [$status, $body] = self::handle((string) $request->get_body());
        return new \WP_REST_Response($body, $status);
    }

    /** `?wc-api=cryptocheckout`, for sites whose REST API is blocked. */
    public static function handleLegacy(): void
    {
        $method = isset($_SERVER['REQUEST_METHOD']) ? sanitize_text_field(wp_unslash((string) $_SERVER['REQUEST_METHOD'])) : '';
        if ($method !== 'POST') {
            wp_send_json(['received' => false, 'error' => 'Send the webhook with POST.'], 405);
        }
        [$status, $body] = self::handle((string) file_get_contents('php://input'));
        wp_send_json($body, $status);
    }

    /** @return array{0: int, 1: array<string, mixed>} HTTP status and JSON body */
    public static function handle(string $rawBody): array
    {
        $logger = Logger::fromSettings();
        try {
            $hint = WebhookParser::parse($rawBody);
        } catch (InvalidWebhookException $exception) {
            $logger->warning('Webhook refused: ' . $exception->getMessage());
            return [400, ['received' => false, 'error' => $exception->getMessage()]];
        }

        $reference = (string) $hint['external_reference'];
        $orderId = ctype_digit($reference) ? (int) $reference : 0;
        $order = $orderId > 0 ? wc_get_order($orderId) : false;
        if (!$order instanceof \WC_Order || $order->get_payment_method() !== Gateway::ID) {
            $logger->warning(sprintf('Webhook for transaction %s names no Crypto Checkout order (reference "%s"); ignored.', (string) $hint['transaction_code'], $reference));
            return [200, ['received' => true, 'result' => 'ignored']];
        }
        $stored = OrderData::transactionCode($order);
        if ($stored === '' || Text::asciiLower($stored) !== Text::asciiLower((string) $hint['transaction_code'])) {
            $logger->warning(sprintf('Webhook for transaction %s does not match order %d (its transaction is %s); ignored.', (string) $hint['transaction_code'], $order->get_id(), $stored === '' ? 'none' : $stored));
            return [200, ['received' => true, 'result' => 'ignored']];
        }

        $outcome = (new OrderSync($logger))->sync($order->get_id(), 'webhook');
        return [200, ['received' => true, 'result' => $outcome['result']]];
    }
}
