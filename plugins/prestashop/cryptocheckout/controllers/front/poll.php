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
 * The scheduled poll, for a cron line (see the module's configuration page):
 *   curl -fsS "https://shop.example/module/cryptocheckout/poll?token=<token>"
 * Webhooks are sent once and never retried; the kernel's poll finds whatever a lost webhook did
 * not bring, late payments included. It also cancels orders that never got a checkout and were
 * left awaiting payment for a day (AbandonedOrders).
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
        $outcomes = $this->module->createRunner()->poll($policy);
        $abandoned = (new AbandonedOrders($this->module->name))->cancelDue(time());
        Configuration::updateValue(Settings::LAST_POLL, date('Y-m-d H:i:s'));

        return HttpReply::success([
            'checked' => count($outcomes),
            'cancelled_without_checkout' => $abandoned,
            'results' => array_map(static function (RunOutcome $outcome): array {
                return $outcome->toArray();
            }, $outcomes),
        ]);
    }
}
