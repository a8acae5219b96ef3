<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\HttpReply;

/**
 * A front controller that answers JSON (the kernel's HttpReply) to whoever asks: the service's
 * webhook, a cron line's curl, the buyer's status widget. PrestaShop 8.1 decides in
 * Controller::__construct() whether a request is "ajax" (an ajax parameter, or an Accept header
 * naming application/json); without it the theme's page would be rendered around a template this
 * controller does not have, a Smarty fatal error. So init() turns ajax on itself, before
 * FrontController::init(), which then leaves out the page header and footer.
 */
abstract class JsonFrontController extends \ModuleFrontController
{
    /** @var HttpReply|null */
    private $reply;

    /** The answer to this request. */
    abstract protected function reply(): HttpReply;

    public function init()
    {
        $this->ajax = true;
        parent::init();
    }

    /**
     * Nothing runs on tables this version does not have: the first request after new files
     * brings them up (SchemaUpgrade); while they cannot be, and on any failure of the request,
     * the answer is 503 with Retry-After, never a 500 page: the service (when it retries), the
     * cron line and the status box try again.
     */
    public function postProcess()
    {
        /** @var \Cryptocheckout $module */
        $module = $this->module;
        if (!$module->storageReady()) {
            $this->reply = self::unavailable('The module is bringing its database tables up to date; try again later.');

            return;
        }
        try {
            $this->reply = $this->reply();
        } catch (\Throwable $failure) {
            $module->kernel()->orders()->log('error', sprintf('The %s request failed: %s', (string) \Tools::getValue('controller'), $failure->getMessage()));
            $this->reply = self::unavailable('The request could not be processed now; try again later.');
        }
    }

    private static function unavailable(string $message): HttpReply
    {
        return HttpReply::error(503, 'unavailable', $message, null, ['Retry-After' => (string) SchemaUpgrade::RETRY_SECONDS]);
    }

    /** A JSON answer needs none of the page's variables, nor the theme's header hooks. */
    public function initContent()
    {
    }

    public function displayAjax()
    {
        $reply = $this->reply ?? HttpReply::error(500, 'internal_error', 'The request was not processed.');
        http_response_code($reply->status);
        foreach ($reply->headers as $name => $value) {
            header($name . ': ' . $value);
        }
        $this->ajaxRender($reply->json());
    }
}
