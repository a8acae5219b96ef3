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
        $previous = [];
        foreach (\OrderState::getOrderStates((int) \Configuration::get('PS_LANG_DEFAULT'), false) as $row) {
            if ((string) $row['module_name'] === $moduleName) {
                $previous[(string) $row['name']] = (int) $row['id_order_state'];
            }
        }
        foreach (self::DEFINITIONS as $key => [$name, $color]) {
            $state = new \OrderState((int) \Configuration::get($key));
            if (\Validate::isLoadedObject($state) && !$state->deleted) {
                continue;
            }
            $state = new \OrderState($previous[$name] ?? null);
            $state->name = array_fill_keys(array_map('intval', array_column(\Language::getLanguages(false), 'id_lang')), $translate($name));
            $state->module_name = $moduleName;
            $state->color = $color;
            // Not paid, nothing sent or shipped; kept (not deletable) while orders use it.
            foreach (['send_email', 'invoice', 'logable', 'paid', 'hidden', 'shipped', 'delivery', 'deleted'] as $flag) {
                $state->{$flag} = false;
            }
            $state->unremovable = true;
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
        $keys = [OrderState::PAID => 'PS_OS_PAYMENT', OrderState::CANCELLED => 'PS_OS_CANCELED', OrderState::UNDERPAID => self::UNDERPAID, OrderState::LATE_PAYMENT_REVIEW => self::REVIEW];

        return self::id($keys[$state] ?? self::AWAITING);
    }

    /**
     * The kernel's view of a PrestaShop order state, whoever set it: the merchant's "Canceled" or
     * "Payment error" close the order, and any state PrestaShop counts as paid (Payment accepted,
     * Processing in progress, Shipped, …) means the order must not be paid a second time.
     */
    public static function toKernel(int $idState): string
    {
        $states = [self::id('PS_OS_CANCELED') => OrderState::CANCELLED, self::id('PS_OS_ERROR') => OrderState::CANCELLED, self::id(self::UNDERPAID) => OrderState::UNDERPAID, self::id(self::REVIEW) => OrderState::LATE_PAYMENT_REVIEW];
        if (isset($states[$idState])) {
            return $states[$idState];
        }
        $paid = \Db::getInstance()->getValue('SELECT `paid` FROM `' . _DB_PREFIX_ . 'order_state` WHERE `id_order_state` = ' . $idState, false);

        return (int) $paid === 1 ? OrderState::PAID : OrderState::AWAITING_PAYMENT;
    }
}
