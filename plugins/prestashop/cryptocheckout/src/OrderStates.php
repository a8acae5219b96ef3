<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\OrderState;

/**
 * The order states the module adds, created once and kept by id in Configuration, and the map
 * between PrestaShop order states and the kernel's (OrderState::*).
 */
final class OrderStates
{
    public const AWAITING = 'CRYPTOCHECKOUT_OS_AWAITING';
    public const UNDERPAID = 'CRYPTOCHECKOUT_OS_UNDERPAID';
    public const REVIEW = 'CRYPTOCHECKOUT_OS_REVIEW';

    /** Configuration key => [English name, colour]. */
    public const DEFINITIONS = [
        self::AWAITING => ['Awaiting crypto payment', '#4169E1'],
        self::UNDERPAID => ['Crypto payment underpaid', '#FF8C00'],
        self::REVIEW => ['Crypto payment to review', '#8A2BE2'],
    ];

    private function __construct()
    {
    }

    /**
     * Creates the module's order states unless they exist; a state left by an earlier install
     * (same module, same name) is taken back instead of adding a duplicate.
     *
     * @param callable(string): string $translate
     */
    public static function install(string $moduleName, callable $translate): bool
    {
        $idLang = (int) \Configuration::get('PS_LANG_DEFAULT');
        foreach (self::DEFINITIONS as $key => [$name, $color]) {
            $existing = new \OrderState((int) \Configuration::get($key));
            if (\Validate::isLoadedObject($existing) && !$existing->deleted) {
                continue;
            }
            $state = self::findPrevious($moduleName, $name, $idLang) ?? new \OrderState();
            $names = [];
            foreach (\Language::getLanguages(false) as $language) {
                $names[(int) $language['id_lang']] = $translate($name);
            }
            $state->name = $names;
            $state->module_name = $moduleName;
            $state->color = $color;
            $state->send_email = false;
            $state->invoice = false;
            $state->logable = false;
            $state->paid = false;
            $state->hidden = false;
            $state->shipped = false;
            $state->delivery = false;
            $state->unremovable = true;
            $state->deleted = false;
            if (!$state->save()) {
                return false;
            }
            \Configuration::updateValue($key, (int) $state->id);
        }

        return true;
    }

    /** Retires the states without deleting them: past orders keep pointing at them. */
    public static function uninstall(): bool
    {
        foreach (array_keys(self::DEFINITIONS) as $key) {
            $state = new \OrderState((int) \Configuration::get($key));
            if (\Validate::isLoadedObject($state)) {
                $state->deleted = true;
                $state->save();
            }
        }

        return true;
    }

    public static function id(string $key): int
    {
        return (int) \Configuration::get($key);
    }

    /** The PrestaShop order state the kernel's OrderState::* stands for. */
    public static function idFor(string $state): int
    {
        switch ($state) {
            case OrderState::PAID:
                return (int) \Configuration::get('PS_OS_PAYMENT');
            case OrderState::CANCELLED:
                return (int) \Configuration::get('PS_OS_CANCELED');
            case OrderState::UNDERPAID:
                return self::id(self::UNDERPAID);
            case OrderState::LATE_PAYMENT_REVIEW:
                return self::id(self::REVIEW);
            default:
                return self::id(self::AWAITING);
        }
    }

    /**
     * The kernel's view of a PrestaShop order state, whoever set it: the merchant's "Canceled" or
     * "Payment error" close the order, and any state PrestaShop counts as paid (Payment accepted,
     * Processing in progress, Shipped, …) means the order must not be paid a second time.
     */
    public static function toKernel(int $idState): string
    {
        if ($idState === (int) \Configuration::get('PS_OS_CANCELED') || $idState === (int) \Configuration::get('PS_OS_ERROR')) {
            return OrderState::CANCELLED;
        }
        if ($idState === self::id(self::UNDERPAID)) {
            return OrderState::UNDERPAID;
        }
        if ($idState === self::id(self::REVIEW)) {
            return OrderState::LATE_PAYMENT_REVIEW;
        }
        $paid = \Db::getInstance()->getValue('SELECT `paid` FROM `' . _DB_PREFIX_ . 'order_state` WHERE `id_order_state` = ' . $idState, false);

        return (int) $paid === 1 ? OrderState::PAID : OrderState::AWAITING_PAYMENT;
    }

    private static function findPrevious(string $moduleName, string $name, int $idLang): ?\OrderState
    {
        foreach (\OrderState::getOrderStates($idLang, false) as $row) {
            if ((string) $row['module_name'] === $moduleName && (string) $row['name'] === $name) {
                return new \OrderState((int) $row['id_order_state']);
            }
        }

        return null;
    }
}
