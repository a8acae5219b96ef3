<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\OrderStates;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\Vendor\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\CheckoutOpener;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\SettingsRules;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\StartProblem;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * Places the order in "Awaiting crypto payment", opens its checkout (Kernel::open()) and sends
 * the buyer to the payment page (or shows it over the shop). Submitting again for the same cart,
 * or following the retry link of an order, reuses the order and its open checkout; a new checkout
 * is created only when the last one can no longer be paid.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutValidationModuleFrontController extends ModuleFrontController
{
    public function postProcess()
    {
        // Tables behind that the first request could not bring up: no order is placed (the
        // payment option is hidden meanwhile; a page opened before still posts here).
        if (!$this->module->storageReady()) {
            throw new PrestaShopException($this->trans('This payment method is not available.', [], 'Modules.Cryptocheckout.Shop'));
        }
        // The retry link names an existing order with its secure key.
        $order = Tools::getIsset('id_order') ? $this->module->orderFromLink() : $this->orderFromCart();
        if ($order === null) {
            Tools::redirect('index.php?controller=history');
        }
        $idOrder = (string) $order->id;

        $kernel = $this->module->kernel();
        try {
            // open() brings the order up to date first; one that was paid or cancelled meanwhile
            // gets no new checkout (paid, closed) and the buyer goes to where it stands.
            $opened = $kernel->open($idOrder, $this->module->checkoutTerms($order));
        } catch (CryptoCheckoutException $exception) {
            $kernel->orders()->log('error', 'Creating the checkout failed: ' . StartProblem::forOwner($exception), ['order' => $idOrder]);
            $this->context->smarty->assign([
                'cryptocheckout_problem' => StartProblem::forBuyer($exception, $this->module->translator('Modules.Cryptocheckout.Shop')),
                'cryptocheckout_retry_url' => $this->module->getRetryUrl($order),
                'cryptocheckout_reference' => (string) $order->reference,
            ]);
            $this->setTemplate('module:cryptocheckout/views/templates/front/unavailable.tpl');

            return;
        }

        $checkout = $opened['checkout'];
        if ($checkout === null || !in_array($opened['result'], [CheckoutOpener::RESULT_CREATED, CheckoutOpener::RESULT_REUSED], true)) {
            // Paid, closed, held for the shop, or being prepared by another request: the confirmation
            // page's status box tells the buyer where the order stands.
            Tools::redirect($this->module->getReturnUrl($order));
        }
        if (Settings::get(Settings::DISPLAY_MODE) === SettingsRules::DISPLAY_MODAL) {
            $this->context->smarty->assign([
                'cryptocheckout_checkout_url' => $checkout->checkoutUrl,
                'cryptocheckout_return_url' => $this->module->getReturnUrl($order),
                'cryptocheckout_reference' => (string) $order->reference,
            ]);
            $this->registerJavascript('modules-cryptocheckout-front', 'modules/' . $this->module->name . '/views/js/front.js', ['position' => 'bottom', 'priority' => 150]);
            $this->setTemplate('module:cryptocheckout/views/templates/front/embedded.tpl');

            return;
        }
        Tools::redirect($checkout->checkoutUrl);
    }

    /** The buyer's current cart, turned into an order unless an order of this module already holds it. */
    private function orderFromCart()
    {
        $cart = $this->context->cart;
        if (!$cart || !$cart->id || $cart->id_customer == 0 || $cart->id_address_delivery == 0 || $cart->id_address_invoice == 0 || !$this->module->active) {
            Tools::redirect('index.php?controller=order&step=1');
        }
        $authorized = in_array($this->module->name, array_column(Module::getPaymentModules(), 'name'), true);
        if (!$authorized || !$this->module->isCartPayable($cart, false)) {
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
}
