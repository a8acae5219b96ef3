<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Exception\ApiException;
use CryptoCheckout\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Client\Exception\NetworkException;
use CryptoCheckout\Client\Exception\SettingsException;
use CryptoCheckout\Client\Exception\UnexpectedResponseException;
use CryptoCheckout\Client\Http\Transport;
use CryptoCheckout\Client\Wallet\Networks;

/**
 * Is a Crypto Checkout service answering at this service URL? A settings page asks when the URL is
 * saved and when the page is shown, so the owner learns of a wrong or dead address before a buyer
 * does.
 *
 * The probe is one price check, `GET /api/payment_options?fiat_amount=10.00&fiat_currency=USD`,
 * through the real Client: it changes nothing at the service, and only the service answers it in its
 * JSON envelope. The service's own error envelope for a refused request (4xx) still proves it is
 * there; a 5xx envelope means it is there but failing. Anything else names what went wrong.
 *
 * Given the merchant's settlement (asset and network), the same answer also says whether the service
 * offers it: the option whose asset and network are the merchant's must be listed and available
 * (RailAvailability::settlementOption), else buyers could not pay however well the service answers
 * (a server that does not watch that network, or cannot right now, a stablecoin under its floor).
 *
 * The result is {reachable, problem, message, offered}: problem is one of the PROBLEM_* codes (null
 * when reachable and nothing is wrong), message a sentence naming the URL and what failed (with the
 * service's reason when the settlement is not offered), English with %placeholders% passed through
 * the platform's translate callable (as SettingsRules does); offered is whether the service offers
 * the settlement, null when none was given or the service's answer did not say.
 */
final class ServiceProbe
{
    /** The longest a settings page waits for the answer. */
    public const TIMEOUT_SECONDS = 5;

    public const PROBE_AMOUNT = '10.00';
    public const PROBE_CURRENCY = 'USD';
    public const PROBE_PATH = '/api/payment_options';

    public const PROBLEM_INVALID_URL = 'invalid_url';
    /** No connection: refused, DNS or TLS failure. */
    public const PROBLEM_CONNECTION = 'connection_failed';
    public const PROBLEM_TIMEOUT = 'timeout';
    /** An HTTP answer other than the service's envelope, with a status outside 2xx (404, 502 …). */
    public const PROBLEM_HTTP_STATUS = 'http_status';
    /** A 2xx answer that is not the service's (an HTML page, other JSON). */
    public const PROBLEM_NOT_SERVICE = 'not_service';
    /** The service's own error envelope with a 5xx status: it is there, but failing. */
    public const PROBLEM_SERVICE_ERROR = 'service_error';
    /** The service answers, but does not offer the merchant's settlement (reachable stays true). */
    public const PROBLEM_NOT_OFFERED = 'settlement_not_offered';

    private Transport $transport;
    /** @var callable(string, array<string, string>): string|null */
    private $translate;
    private int $timeoutSeconds;

    /**
     * @param callable(string, array<string, string>): string|null $translate
     * @param int $timeoutSeconds cut off at 1 to TIMEOUT_SECONDS
     */
    public function __construct(Transport $transport, ?callable $translate = null, int $timeoutSeconds = self::TIMEOUT_SECONDS)
    {
        $this->transport = $transport;
        $this->translate = $translate;
        $this->timeoutSeconds = max(1, min(self::TIMEOUT_SECONDS, $timeoutSeconds));
    }

    /**
     * @param string $asset the merchant's settlement asset ("USDC"); '' (with $network ''): reachability only
     * @param string $network the merchant's network id ("POLYGON")
     * @return array{reachable: bool, problem: string|null, message: string, offered: bool|null}
     */
    public function probe(string $serviceUrl, string $asset = '', string $network = ''): array
    {
        try {
            $url = SettingsRules::serviceUrl($serviceUrl, $this->translate);
        } catch (SettingsException $exception) {
            return self::result(false, self::PROBLEM_INVALID_URL, $exception->getMessage());
        }
        $client = Client::forServiceOrigin($url, $this->transport, $this->timeoutSeconds);
        try {
            $options = $client->getPaymentOptions(self::PROBE_AMOUNT, self::PROBE_CURRENCY);
            if ($asset === '' || $network === '') {
                return $this->reachable($url);
            }
            return $this->settlement($url, $options, strtoupper($asset), strtoupper($network));
        } catch (ApiException $exception) {
            if ($exception->getHttpStatus() < 500) {
                return $this->reachable($url);
            }
            return $this->problem(self::PROBLEM_SERVICE_ERROR, 'Service URL %url%: the Crypto Checkout service answered HTTP %status% (%error%). It may be starting or failing; try again in a few minutes.', [
                '%url%' => $url,
                '%status%' => (string) $exception->getHttpStatus(),
                '%error%' => $exception->getErrorCode() . ': ' . $exception->getMessage(),
            ]);
        } catch (NetworkException $exception) {
            if ($exception->isTimeout()) {
                return $this->problem(self::PROBLEM_TIMEOUT, 'Service URL %url%: no answer within %seconds% seconds. Check the address, and that the service is running and reachable from this server.', [
                    '%url%' => $url,
                    '%seconds%' => (string) $this->timeoutSeconds,
                ]);
            }
            return $this->problem(self::PROBLEM_CONNECTION, 'Service URL %url%: no connection (%error%). Check the address, and that the service is running and reachable from this server.', [
                '%url%' => $url,
                '%error%' => $exception->getMessage(),
            ]);
        } catch (UnexpectedResponseException $exception) {
            $status = $exception->getHttpStatus();
            if ($status < 200 || $status > 299) {
                return $this->problem(self::PROBLEM_HTTP_STATUS, 'Service URL %url%: %path% answered HTTP %status%, not the Crypto Checkout API. Check the address (the service\'s address, not one of its pages) and that the service is running.', [
                    '%url%' => $url,
                    '%path%' => self::PROBE_PATH,
                    '%status%' => (string) $status,
                ]);
            }
            return $this->notService($url);
        } catch (CryptoCheckoutException $exception) {
            return $this->notService($url);
        }
    }

    /**
     * Whether the answer offers the merchant's settlement.
     *
     * @param array<string, mixed> $options the data of GET /payment_options
     * @return array{reachable: bool, problem: string|null, message: string, offered: bool|null}
     */
    private function settlement(string $url, array $options, string $asset, string $network): array
    {
        $option = RailAvailability::settlementOption($options, $asset, $network);
        if ($option !== null && ($option['available'] ?? false) === true) {
            $result = $this->reachable($url);
            $result['offered'] = true;
            return $result;
        }
        $info = Networks::get($network);
        $parameters = ['%url%' => $url, '%asset%' => $asset, '%network%' => $info === null ? $network : (string) $info['name']];
        if ($option === null) {
            $message = $this->say('Service URL %url%: the Crypto Checkout service answers, but lists no payment option for %asset% on %network%, the settlement you chose. Buyers cannot pay with crypto; choose an asset and network the service offers.', $parameters);
        } else {
            $reason = $option['unavailable_reason'] ?? null;
            $parameters['%reason%'] = is_string($reason) && trim($reason) !== '' ? trim($reason) : '-';
            $message = $this->say('Service URL %url%: the Crypto Checkout service answers, but does not offer payment in %asset% on %network%, the settlement you chose: %reason% Buyers cannot pay with crypto until it does.', $parameters);
        }
        return ['reachable' => true, 'problem' => self::PROBLEM_NOT_OFFERED, 'message' => $message, 'offered' => false];
    }

    /** @return array{reachable: bool, problem: string|null, message: string, offered: bool|null} */
    private function notService(string $url): array
    {
        return $this->problem(self::PROBLEM_NOT_SERVICE, 'Service URL %url%: something answers there, but it is not a Crypto Checkout service (%path% did not return the service\'s JSON). Check the address.', [
            '%url%' => $url,
            '%path%' => self::PROBE_PATH,
        ]);
    }

    /** @return array{reachable: bool, problem: string|null, message: string, offered: bool|null} */
    private function reachable(string $url): array
    {
        return self::result(true, null, $this->say('Service URL %url%: the Crypto Checkout service answers.', ['%url%' => $url]));
    }

    /**
     * @param array<string, string> $parameters
     * @return array{reachable: bool, problem: string|null, message: string, offered: bool|null}
     */
    private function problem(string $problem, string $text, array $parameters): array
    {
        return self::result(false, $problem, $this->say($text, $parameters));
    }

    /** @return array{reachable: bool, problem: string|null, message: string, offered: bool|null} */
    private static function result(bool $reachable, ?string $problem, string $message): array
    {
        return ['reachable' => $reachable, 'problem' => $problem, 'message' => $message, 'offered' => null];
    }

    /** @param array<string, string> $parameters */
    private function say(string $text, array $parameters): string
    {
        return $this->translate === null ? strtr($text, $parameters) : (string) ($this->translate)($text, $parameters);
    }
}
