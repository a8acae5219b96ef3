<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\RefundPort;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\RefundRecord;

/**
 * PrestaShop's side of a refund (the kernel's RefundPort). The refund itself is PrestaShop's credit
 * slip, made before the kernel is asked; what the module adds is in the order's messages:
 * - the buyer's claim link: a public message on the order from the employee who made the slip, and
 *   the e-mail PrestaShop sends for it, exactly what the order page's "Send a message to the
 *   customer" does (AddOrderCustomerMessageHandler: the core `order_merchant_comment` template in
 *   the order's language). The buyer reads it in their mailbox and on their order page, and the
 *   merchant sees in the Messages card what the buyer was told;
 * - the kernel's notes and the paid refund: private notes (the Messages card and the module's
 *   panel). The paid note carries the refund id, which is how isRefundRecorded() finds it.
 */
final class PrestaShopRefundPort implements RefundPort
{
    /** @var \Cryptocheckout */
    private $module;

    /** @var callable(string, array<string, string>): string */
    private $translate;

    /**
     * @param \Cryptocheckout $module
     * @param callable(string, array<string, string>): string $translate the Admin domain (notes are the merchant's)
     */
    public function __construct(\PaymentModule $module, callable $translate)
    {
        $this->module = $module;
        $this->translate = $translate;
    }

    public function isRefundRecorded(string $orderId, string $refundId): bool
    {
        // Read from the table now: the paid note is the record, and another request may have written it.
        return (bool) \Db::getInstance()->getValue(
            'SELECT 1 FROM `' . _DB_PREFIX_ . 'customer_message` cm JOIN `' . _DB_PREFIX_ . 'customer_thread` ct ON ct.`id_customer_thread` = cm.`id_customer_thread`'
            . ' WHERE ct.`id_order` = ' . (int) $orderId . ' AND cm.`private` = 1 AND cm.`id_employee` = 0'
            . " AND cm.`message` LIKE '" . pSQL(PrestaShopOrderPort::PREFIX) . "%' AND cm.`message` LIKE '%" . pSQL(self::marker($refundId)) . "%'",
            false
        );
    }

    public function recordRefundPaid(string $orderId, RefundRecord $refund): void
    {
        $text = ($this->translate)('Refund of %amount% %asset% for credit slip #%slip% paid: %transaction%', [
            '%amount%' => $refund->amount,
            '%asset%' => $refund->asset,
            '%slip%' => (string) $refund->platformRefundId,
            '%transaction%' => (string) ($refund->txUrl ?? $refund->txId),
        ]);
        PrestaShopOrderPort::note(PrestaShopOrderPort::order((int) $orderId), PrestaShopOrderPort::PREFIX . ' ' . $text . ' ' . self::marker($refund->refundId));
    }

    /**
     * The claim link as the order page's "Send a message to the customer" sends a message: on the
     * order's thread, public, from the employee, then PrestaShop's `order_merchant_comment` e-mail.
     * True only when PrestaShop sent the e-mail (Mail::Send() also answers true when the shop has
     * e-mails turned off, as for every message of the order page).
     */
    public function sendClaimLink(string $orderId, RefundRecord $refund): bool
    {
        $order = PrestaShopOrderPort::order((int) $orderId);
        $customer = new \Customer((int) $order->id_customer);
        $text = $this->module->claimLinkMessage($order, $refund);
        $employee = \Context::getContext()->employee;
        PrestaShopOrderPort::addMessage($order, $text, false, is_object($employee) ? (int) $employee->id : 0);
        if ((int) \Configuration::get('PS_MAIL_TYPE', null, null, (int) $order->id_shop) !== \Mail::TYPE_TEXT) {
            $text = \Tools::nl2br(\Tools::htmlentitiesUTF8($text));
        }
        $language = $order->getAssociatedLanguage();
        $sent = \Mail::send(
            (int) $language->getId(),
            'order_merchant_comment',
            \Context::getContext()->getTranslator()->trans('New message regarding your order', [], 'Emails.Subject', $language->locale),
            [
                '{lastname}' => $customer->lastname,
                '{firstname}' => $customer->firstname,
                '{id_order}' => $order->id,
                '{order_name}' => $order->getUniqReference(),
                '{message}' => $text,
            ],
            (string) $customer->email,
            $customer->firstname . ' ' . $customer->lastname,
            null,
            null,
            null,
            null,
            _PS_MAIL_DIR_,
            false,
            (int) $order->id_shop
        );

        return (bool) $sent;
    }

    public function refundNote(string $orderId, RefundRecord $refund, string $note): void
    {
        PrestaShopOrderPort::note(PrestaShopOrderPort::order((int) $orderId), PrestaShopOrderPort::PREFIX . ' ' . $note);
    }

    /** How a paid note names its refund (the service's refund id: never translated). */
    private static function marker(string $refundId): string
    {
        return '(refund ' . strtolower($refundId) . ')';
    }
}
