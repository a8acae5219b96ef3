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

    public function postProcess()
    {
        $this->reply = $this->reply();
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
