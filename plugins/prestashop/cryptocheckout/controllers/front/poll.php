<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

use CryptoCheckout\PrestaShop\AbandonedOrders;
use CryptoCheckout\PrestaShop\JsonFrontController;
use CryptoCheckout\PrestaShop\Settings;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\HttpReply;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\PollPolicy;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\RunOutcome;

if (!defined('_PS_VERSION_')) {
    exit;
}

/**
 * The scheduled poll (Kernel::poll()), every five minutes by the cron line of the configuration
 * page: it finds what a lost webhook did not bring (webhooks are sent once), late payments
 * included, and gives orders without a checkout an end (AbandonedOrders); then it follows the
 * open refunds (Kernel::checkRefunds()), recording a paid one on its order once.
 *
 * @property Cryptocheckout $module
 */
class CryptocheckoutPollModuleFrontController extends JsonFrontController
{
    protected function reply(): HttpReply
    {
        $expected = (string) Configuration::get(Settings::POLL_TOKEN);
        $token = (string) Tools::getValue('token', '');
        if ($expected === '' || $token === '' || !hash_equals($expected, $token)) {
            return HttpReply::error(403, 'forbidden', 'Pass the poll token shown on the module configuration page.', 'token');
        }
        $policy = new PollPolicy();
        // Room for the policy's time budget and the last lookup it started.
        @set_time_limit($policy->timeBudgetSeconds + 30);
        $kernel = $this->module->kernel();
        $outcomes = $kernel->poll($policy);
        $abandoned = (new AbandonedOrders($this->module->name, $kernel))->cancelDue(time());
        // The refunds too: a refund.paid webhook can be lost like any other.
        $refunds = $kernel->checkRefunds($this->module->refundPort());
        Configuration::updateValue(Settings::LAST_POLL, date('Y-m-d H:i:s'));

        return HttpReply::success([
            'checked' => count($outcomes),
            'cancelled_without_checkout' => $abandoned,
            'refunds' => $refunds,
            'results' => array_map(static function (RunOutcome $outcome): array {
                return $outcome->toArray();
            }, $outcomes),
        ]);
    }
}
