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

/**
 * What the service makes of the merchant's Bitcoin wallet, asked when the settings are saved
 * (GET /api/wallet_check, docs/bitcoin.md): for an extended public key, the first receive addresses
 * it derives, for the merchant to compare with their wallet software before a buyer pays to a key
 * that is not theirs; for a plain address, that buyers pay it exact amounts.
 *
 * The result is {result, problem, field, message, description, addresses}:
 *   - extended_key / address: the service takes the wallet; message is the notice to show.
 *   - refused: the service refuses the wallet (HTTP 400): a settings error for field (the kernel's
 *     SettingsRules::WALLET), which must not be saved, as any other validation error.
 *   - unavailable: the service could not be asked (no connection, no answer in time, an older
 *     service without the check: HTTP 404, a failing one); problem names why, message says the
 *     addresses could not be shown and why. The wallet is saved all the same.
 *   - not_checked: not a Bitcoin wallet; nothing is asked, message is ''.
 * Messages are English with %placeholders%, passed through the platform's translate callable (as
 * ServiceProbe does); the service's words (its description, its reason for a refusal) are inserted
 * as they are. Every message is plain text: the platform escapes it where it prints it.
 */
final class WalletCheck
{
    /** The longest a settings page waits for the answer (as ServiceProbe). */
    public const TIMEOUT_SECONDS = ServiceProbe::TIMEOUT_SECONDS;

    /** The one network whose wallets the service describes (extended keys). */
    public const NETWORK = 'BITCOIN';

    public const PATH = '/api/wallet_check';

    public const RESULT_EXTENDED_KEY = 'extended_key';
    public const RESULT_ADDRESS = 'address';
    public const RESULT_REFUSED = 'refused';
    public const RESULT_UNAVAILABLE = 'unavailable';
    public const RESULT_NOT_CHECKED = 'not_checked';

    public const PROBLEM_INVALID_URL = ServiceProbe::PROBLEM_INVALID_URL;
    public const PROBLEM_CONNECTION = ServiceProbe::PROBLEM_CONNECTION;
    public const PROBLEM_TIMEOUT = ServiceProbe::PROBLEM_TIMEOUT;
    /** A service from before the check: it answers 404 for its path. */
    public const PROBLEM_OLD_SERVICE = 'old_service';
    /** Any other HTTP status: the service's error envelope (5xx, 429 …) or a page (502 …). */
    public const PROBLEM_HTTP_STATUS = ServiceProbe::PROBLEM_HTTP_STATUS;
    /** A 2xx answer that is not the service's check (another JSON shape, an HTML page). */
    public const PROBLEM_NOT_SERVICE = ServiceProbe::PROBLEM_NOT_SERVICE;

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

    /** True when the wallet of $network is one the service is asked about (Bitcoin). */
    public static function applies(string $network): bool
    {
        return strtoupper(SettingsRules::text($network)) === self::NETWORK;
    }

    /**
     * True when $wallet is written as an extended public key or a descriptor rather than an
     * address (what the notice says when the service cannot be asked).
     */
    public static function looksLikeKey(string $wallet): bool
    {
        return preg_match('/\A[a-z]pub|[()]/i', SettingsRules::text($wallet)) === 1;
    }

    /**
     * @param string $serviceUrl the service URL being saved (SettingsRules::serviceUrl() applies)
     * @param string $network the network being saved ("BITCOIN"); any other: not_checked
     * @param string $walletAddress the wallet being saved, as SettingsRules cleaned it
     * @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>}
     */
    public function check(string $serviceUrl, string $network, string $walletAddress): array
    {
        $network = strtoupper(SettingsRules::text($network));
        $wallet = SettingsRules::text($walletAddress);
        if (!self::applies($network) || $wallet === '') {
            return self::result(self::RESULT_NOT_CHECKED, '');
        }
        try {
            $url = SettingsRules::serviceUrl($serviceUrl, $this->translate);
        } catch (SettingsException $exception) {
            return $this->unavailable($wallet, self::PROBLEM_INVALID_URL, $exception->getMessage());
        }
        $client = Client::forServiceOrigin($url, $this->transport, $this->timeoutSeconds);
        try {
            return $this->answered($client->checkWallet($network, $wallet), $wallet);
        } catch (ApiException $exception) {
            $status = $exception->getHttpStatus();
            if ($status === 400) {
                return $this->refused($network, $exception);
            }
            if ($status === 404) {
                return $this->olderService($url, $wallet);
            }
            return $this->unavailable($wallet, self::PROBLEM_HTTP_STATUS, $this->say('the service at %url% answered HTTP %status% (%error%).', [
                '%url%' => $url,
                '%status%' => (string) $status,
                '%error%' => $exception->getErrorCode() . ': ' . $exception->getMessage(),
            ]));
        } catch (NetworkException $exception) {
            if ($exception->isTimeout()) {
                return $this->unavailable($wallet, self::PROBLEM_TIMEOUT, $this->say('no answer from %url% within %seconds% seconds.', [
                    '%url%' => $url,
                    '%seconds%' => (string) $this->timeoutSeconds,
                ]));
            }
            return $this->unavailable($wallet, self::PROBLEM_CONNECTION, $this->say('no connection to %url% (%error%).', [
                '%url%' => $url,
                '%error%' => $exception->getMessage(),
            ]));
        } catch (UnexpectedResponseException $exception) {
            $status = $exception->getHttpStatus();
            if ($status === 404) {
                return $this->olderService($url, $wallet);
            }
            if ($status < 200 || $status > 299) {
                return $this->unavailable($wallet, self::PROBLEM_HTTP_STATUS, $this->say('the service at %url% answered HTTP %status%.', [
                    '%url%' => $url,
                    '%status%' => (string) $status,
                ]));
            }
            return $this->unavailable($wallet, self::PROBLEM_NOT_SERVICE, $this->say('the answer from %url% is not a Crypto Checkout wallet check (%error%).', [
                '%url%' => $url,
                '%error%' => $exception->getMessage(),
            ]));
        } catch (CryptoCheckoutException $exception) {
            return $this->unavailable($wallet, self::PROBLEM_NOT_SERVICE, $this->say('the answer from %url% is not a Crypto Checkout wallet check (%error%).', [
                '%url%' => $url,
                '%error%' => $exception->getMessage(),
            ]));
        }
    }

    /**
     * @param array<string, mixed> $answer the data of GET /wallet_check
     * @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>}
     */
    private function answered(array $answer, string $wallet): array
    {
        /** @var list<string> $addresses */
        $addresses = $answer['first_addresses'];
        $description = (string) $answer['description'];
        if ($answer['kind'] === self::RESULT_ADDRESS) {
            $result = self::result(self::RESULT_ADDRESS, $this->say('Buyers pay this Bitcoin address exact amounts, with a few satoshis added to each so that every payment is matched to its order. An extended public key (zpub) also takes part payments and top-ups.', []));
            $result['description'] = $description;
            return $result;
        }
        if ($addresses === []) {
            $result = $this->unavailable($wallet, self::PROBLEM_NOT_SERVICE, $this->say('the service listed no addresses for this key.', []));
            $result['description'] = $description;
            return $result;
        }
        $result = self::result(self::RESULT_EXTENDED_KEY, $this->say('Crypto Checkout derives a new address for each order from this key (%description%). Check that your wallet shows these as its first receive addresses: %addresses%. If they differ, the key is not the one your wallet receives on.', [
            '%description%' => $description,
            '%addresses%' => implode(', ', $addresses),
        ]));
        $result['description'] = $description;
        $result['addresses'] = $addresses;
        return $result;
    }

    /** @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>} */
    private function refused(string $network, ApiException $exception): array
    {
        $field = $exception->getField();
        $problem = trim($exception->getMessage());
        // The service names the field before its reason ("wallet_address: …"); the message says it once.
        if ($field !== null && $field !== '' && strpos($problem, $field . ':') === 0) {
            $problem = trim(substr($problem, strlen($field) + 1));
        }
        $result = self::result(self::RESULT_REFUSED, $this->say('Wallet address (%network%): the Crypto Checkout service refuses it: %problem%', [
            '%network%' => $network,
            '%problem%' => $problem === '' ? $exception->getErrorCode() : $problem,
        ]));
        $result['field'] = $field === 'network' ? SettingsRules::NETWORK : SettingsRules::WALLET;
        return $result;
    }

    /** @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>} */
    private function olderService(string $url, string $wallet): array
    {
        return $this->unavailable($wallet, self::PROBLEM_OLD_SERVICE, $this->say('the service at %url% does not know this check (HTTP 404): it runs a version from before Bitcoin extended public keys.', [
            '%url%' => $url,
        ]));
    }

    /**
     * The wallet is saved, but the service could not say what it makes of it: $reason is why.
     *
     * @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>}
     */
    private function unavailable(string $wallet, string $problem, string $reason): array
    {
        $message = self::looksLikeKey($wallet)
            ? $this->say('The first receive addresses of this key could not be shown: %reason% The key is saved; save the settings again once the service answers, to compare the addresses with your wallet.', ['%reason%' => $reason])
            : $this->say('The Crypto Checkout service could not check this Bitcoin address: %reason% The address is saved.', ['%reason%' => $reason]);
        $result = self::result(self::RESULT_UNAVAILABLE, $message);
        $result['problem'] = $problem;
        return $result;
    }

    /** @return array{result: string, problem: string|null, field: string|null, message: string, description: string, addresses: list<string>} */
    private static function result(string $result, string $message): array
    {
        return ['result' => $result, 'problem' => null, 'field' => null, 'message' => $message, 'description' => '', 'addresses' => []];
    }

    /** @param array<string, string> $parameters */
    private function say(string $text, array $parameters): string
    {
        return $this->translate === null ? strtr($text, $parameters) : (string) ($this->translate)($text, $parameters);
    }
}
