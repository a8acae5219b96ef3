<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\Log;
use CryptoCheckout\PrestaShop\OrderStates;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\TransactionRepository;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\CryptoCheckoutException;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * Places the order in "Awaiting crypto payment", creates its checkout and sends the buyer to the
 * payment page (or shows it over the shop). Submitting again for the same cart, or following the
 * retry link of an order, reuses the order and its checkout.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutValidationModuleFrontController extends ModuleFrontController
{
    public function postProcess()
    {
        $order = Tools::getIsset('id_order') ? $this->orderFromRetryLink() : $this->orderFromCart();
        $customer = new Customer((int) $order->id_customer);

        try {
            $row = $this->module->createCheckoutStarter()->start($order, $customer);
        } catch (CryptoCheckoutException $exception) {
            Log::error(sprintf('creating the checkout of order %d failed: %s', $order->id, $exception->getMessage()), (int) $order->id);
            $this->context->smarty->assign([
                'cryptocheckout_retry_url' => $this->module->getRetryUrl($order),
                'cryptocheckout_reference' => (string) $order->reference,
            ]);
            $this->setTemplate('module:cryptocheckout/views/templates/front/unavailable.tpl');

            return;
        }

        if ($row['state'] !== TransactionRepository::STATE_AWAITING) {
            // Paid, held or cancelled: the confirmation page tells the buyer where the order stands.
            Tools::redirect($this->module->getReturnUrl($order));
        }
        if (Settings::get(Settings::DISPLAY_MODE) === Settings::MODE_EMBEDDED) {
            $this->context->smarty->assign([
                'cryptocheckout_checkout_url' => (string) $row['checkout_url'],
                'cryptocheckout_return_url' => $this->module->getReturnUrl($order),
                'cryptocheckout_reference' => (string) $order->reference,
            ]);
            $this->registerJavascript('modules-cryptocheckout-front', 'modules/' . $this->module->name . '/views/js/front.js', ['position' => 'bottom', 'priority' => 150]);
            $this->setTemplate('module:cryptocheckout/views/templates/front/embedded.tpl');

            return;
        }
        Tools::redirect((string) $row['checkout_url']);
    }

    /** The buyer's current cart, turned into an order unless an order of this module already holds it. */
    private function orderFromCart()
    {
        $cart = $this->context->cart;
        if (!$cart || !$cart->id || $cart->id_customer == 0 || $cart->id_address_delivery == 0 || $cart->id_address_invoice == 0 || !$this->module->active) {
            Tools::redirect('index.php?controller=order&step=1');
        }
        $authorized = false;
        foreach (Module::getPaymentModules() as $module) {
            if ($module['name'] === $this->module->name) {
                $authorized = true;
                break;
            }
        }
        if (!$authorized || !$this->module->isCartPayable($cart)) {
            throw new PrestaShopException($this->trans('This payment method is not available.', [], 'Modules.Cryptocheckout.Shop'));
        }
        $customer = new Customer((int) $cart->id_customer);
        if (!Validate::isLoadedObject($customer)) {
            Tools::redirect('index.php?controller=order&step=1');
        }

        $existing = Order::getByCartId((int) $cart->id);
        if ($existing !== null && Validate::isLoadedObject($existing)) {
            if ($existing->module !== $this->module->name || $existing->secure_key !== $customer->secure_key) {
                Tools::redirect('index.php?controller=order&step=1');
            }

            return $existing;
        }

        $this->module->validateOrder(
            (int) $cart->id,
            OrderStates::id(OrderStates::AWAITING),
            (float) $cart->getOrderTotal(true, Cart::BOTH),
            $this->module->displayName,
            null,
            [],
            (int) $cart->id_currency,
            false,
            $customer->secure_key
        );

        return new Order((int) $this->module->currentOrder);
    }

    /** An existing order named in the retry link, which carries the order's secure key. */
    private function orderFromRetryLink()
    {
        $order = new Order((int) Tools::getValue('id_order'));
        $key = (string) Tools::getValue('key', '');
        if (!Validate::isLoadedObject($order) || $order->module !== $this->module->name || $key === '' || !hash_equals((string) $order->secure_key, $key)) {
            Tools::redirect('index.php?controller=history');
        }

        return $order;
    }
}
