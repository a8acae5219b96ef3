<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

/**
 * The markup of the buyer's payment status box, the same on every platform; the status widget of
 * @cryptocheckout/core/browser (mountStatusWidget) finds it by [data-cryptocheckout-status], reads
 * data-config and keeps it up to date from the status endpoint. Without JavaScript the box still
 * shows the state and, while paying is possible, a link to the payment page.
 *
 * data-config: {"statusUrl": string, "status": BuyerStatus, "openModal": bool,
 *               "labels": {"title", "pay", "modalTitle", "close", "offline"}}
 */
final class StatusWidgetMarkup
{
    public const LABELS = [
        'title' => 'Crypto payment',
        'pay' => 'Pay now',
        'modalTitle' => 'Crypto Checkout payment',
        'close' => 'Close payment',
        'offline' => 'Checking the payment status failed; retrying…',
    ];

    private function __construct()
    {
    }

    /**
     * @param array{state: string, message: string, terminal: bool, checkout_url: string|null} $status BuyerStatus::of()
     * @param string $statusUrl where the widget polls the same shape (in the success envelope)
     * @param callable(string, array<string, string>): string|null $translate
     * @return string HTML, every value escaped
     */
    public static function render(array $status, string $statusUrl, ?callable $translate = null, bool $openModal = false): string
    {
        $labels = [];
        foreach (self::LABELS as $key => $english) {
            $labels[$key] = $translate === null ? $english : (string) $translate($english, []);
        }
        $config = [
            'statusUrl' => $statusUrl,
            'status' => $status,
            'openModal' => $openModal && $status['checkout_url'] !== null,
            'labels' => $labels,
        ];
        $json = (string) json_encode($config, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE);
        $html = '<section class="cryptocheckout-status" data-cryptocheckout-status data-state="' . self::escape($status['state']) . '" data-config="' . self::escape($json) . '">'
            . '<h2 class="cryptocheckout-status__title">' . self::escape($labels['title']) . '</h2>'
            . '<p class="cryptocheckout-status__message" role="status" aria-live="polite">' . self::escape($status['message']) . '</p>';
        if ($status['checkout_url'] !== null) {
            $html .= '<p class="cryptocheckout-status__actions"><a class="button cryptocheckout-status__pay" href="' . self::escape($status['checkout_url']) . '">' . self::escape($labels['pay']) . '</a></p>';
        }
        return $html . '</section>';
    }

    private static function escape(string $text): string
    {
        return htmlspecialchars($text, ENT_QUOTES | ENT_SUBSTITUTE, 'UTF-8');
    }
}
