<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Kernel;

use CryptoCheckout\Client\Client;
use CryptoCheckout\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Client\Exception\NoRailAvailableException;
use CryptoCheckout\Client\Exception\SettlementUnavailableException;
use CryptoCheckout\Client\Kernel\Ledger\Ledger;
use CryptoCheckout\Client\Money;
use CryptoCheckout\Client\Reconciler;

/**
 * One checkout per order: "Place order" pressed twice, a buyer back from the payment page, or two
 * tabs at once all end on the same open checkout. Under the order's claim, the newest checkout is
 * reused when it still describes the order (same amount, currency, wallet and service) and can
 * still be paid; a new one is created only otherwise, and the order keeps the old one too.
 */
final class CheckoutOpener
{
    public const RESULT_CREATED = 'created';
    public const RESULT_REUSED = 'reused';
    /** The order is paid already (a checkout of it settled): send the buyer to the order page. */
    public const RESULT_PAID = 'paid';
    /** Money arrived on a checkout that can no longer be paid: another checkout would make the buyer pay twice. */
    public const RESULT_HELD = 'held';
    /** Another request is preparing this order's checkout right now. */
    public const RESULT_BUSY = 'busy';
    /**
     * The order takes no payment any more (cancelled, or a late payment held for review), as it
     * stood under the claim: send the buyer to the order page, which says where it stands.
     */
    public const RESULT_CLOSED = 'closed';

    /** How long a second press waits for the first one's checkout. */
    public const CLAIM_WAIT_SECONDS = 8;

    private OrderPort $orders;
    private Ledger $ledger;
    private Runner $runner;
    /** @var callable(string): Client */
    private $clientFor;
    private Clock $clock;

    /** @param callable(string): Client $clientFor */
    public function __construct(OrderPort $orders, Ledger $ledger, Runner $runner, callable $clientFor, ?Clock $clock = null)
    {
        $this->orders = $orders;
        $this->ledger = $ledger;
        $this->runner = $runner;
        $this->clientFor = $clientFor;
        $this->clock = $clock ?? new SystemClock();
    }

    /**
     * @param array{fiat_amount: string, fiat_currency: string, external_reference: string, service_url: string,
     *     wallet_address: string, wallet_currency: string, wallet_network: string,
     *     webhook_url?: string, success_url?: string, cancel_url?: string,
     *     order_amount?: string, order_currency?: string} $terms order_amount/order_currency: what a
     *     payment books on the order when it differs from the checkout's amount (StoredCheckout)
     * @return array{result: string, checkout: StoredCheckout|null}
     * @throws NoRailAvailableException when the option of the merchant's settlement does not take the amount (nothing is created)
     * @throws SettlementUnavailableException when the service does not offer the merchant's settlement for
     *     another reason, or lists no option for it (nothing is recorded)
     * @throws CryptoCheckoutException when the service cannot be reached or refuses the checkout
     */
    public function open(string $orderId, array $terms): array
    {
        $terms['fiat_amount'] = Money::normalizeFiatAmount((string) $terms['fiat_amount'], (string) $terms['fiat_currency']);
        // Bring the order up to date first: a checkout of it may have been paid meanwhile.
        $this->runner->run($orderId, 'return', null, self::CLAIM_WAIT_SECONDS);
        $claim = $this->ledger->claimWaiting($orderId, 'open_checkout', '-', self::CLAIM_WAIT_SECONDS, $this->clock);
        if ($claim === null) {
            return ['result' => self::RESULT_BUSY, 'checkout' => null];
        }
        try {
            // Read under the claim: a cancel of the unpaid order (which holds the claim while the
            // platform sends its e-mails) ends before this, and the order it left is what counts.
            $state = $this->orders->orderState($orderId, $this->ledger->recordedState($orderId));
            if ($state === OrderState::PAID) {
                return ['result' => self::RESULT_PAID, 'checkout' => null];
            }
            if (!in_array($state, OrderState::OPEN, true)) {
                return ['result' => self::RESULT_CLOSED, 'checkout' => null];
            }
            $newest = $this->ledger->checkouts($orderId)[0] ?? null;
            if ($newest !== null && $this->describesOrder($newest, $terms)) {
                if ($newest->isPayable($this->clock->now())) {
                    return ['result' => self::RESULT_REUSED, 'checkout' => $newest];
                }
                if ($newest->resolution === null && $newest->receivedUsd !== null && Money::compare($newest->receivedUsd, '0') > 0) {
                    return ['result' => self::RESULT_HELD, 'checkout' => $newest];
                }
            }
            $created = $this->create($orderId, $terms);
            return ['result' => self::RESULT_CREATED, 'checkout' => $created];
        } finally {
            $this->ledger->release($claim);
        }
    }

    /** @param array<string, string> $terms */
    private function create(string $orderId, array $terms): StoredCheckout
    {
        $request = [
            'fiat_amount' => $terms['fiat_amount'],
            'fiat_currency' => $terms['fiat_currency'],
            'external_reference' => $terms['external_reference'],
            'customer' => [
                'wallet_address' => $terms['wallet_address'],
                'crypto_currency' => $terms['wallet_currency'],
                'crypto_currency_network' => $terms['wallet_network'],
            ],
        ];
        foreach (['webhook_url', 'success_url', 'cancel_url'] as $url) {
            if (isset($terms[$url]) && $terms[$url] !== '') {
                $request[$url] = $terms[$url];
            }
        }
        $client = ($this->clientFor)($terms['service_url']);
        // The service accepts a checkout its payment page cannot take; refuse it here instead, by the
        // option of the merchant's own settlement (another rail being available pays nothing).
        RailAvailability::assertPayable(
            $client->getPaymentOptions($terms['fiat_amount'], $terms['fiat_currency']),
            $terms['fiat_amount'],
            $terms['fiat_currency'],
            $terms['wallet_currency'],
            $terms['wallet_network']
        );
        $created = $client->createCheckout($request);
        $this->assertCreatedPayable($created, $terms);
        $checkout = StoredCheckout::fromCreated($created, $terms, $this->clock->now());
        $this->ledger->add($orderId, $checkout);
        $this->orders->log('info', sprintf('Checkout %s created for %s %s.', $checkout->transactionCode, $checkout->fiatAmount, $checkout->fiatCurrency), ['order' => $orderId, 'transaction' => $checkout->transactionCode]);
        return $checkout;
    }

    /**
     * The created checkout's options are priced for the merchant's wallet, which the price check
     * does not send: a reason only the wallet gives (a Solana token account entered as the wallet)
     * shows here. Such a checkout is not recorded; unpaid, it expires at the service.
     *
     * @param array<string, mixed> $created
     * @param array<string, string> $terms
     * @throws SettlementUnavailableException naming the created checkout
     */
    private function assertCreatedPayable(array $created, array $terms): void
    {
        if (RailAvailability::settlementOption($created, $terms['wallet_currency'], $terms['wallet_network']) === null) {
            return; // A service that does not price the created checkout's options.
        }
        try {
            RailAvailability::assertPayable($created, $terms['fiat_amount'], $terms['fiat_currency'], $terms['wallet_currency'], $terms['wallet_network']);
        } catch (SettlementUnavailableException $unavailable) {
            throw new SettlementUnavailableException(
                $terms['fiat_amount'],
                $terms['fiat_currency'],
                $terms['wallet_currency'],
                $terms['wallet_network'],
                $unavailable->getServiceReason(),
                (string) ($created['transaction_code'] ?? '')
            );
        }
    }

    /** @param array<string, string> $terms */
    private function describesOrder(StoredCheckout $checkout, array $terms): bool
    {
        return $checkout->fiatCurrency === $terms['fiat_currency']
            && Money::compare($checkout->fiatAmount, $terms['fiat_amount']) === 0
            && Reconciler::sameAddress($checkout->walletAddress, $terms['wallet_address'], $terms['wallet_network'])
            && $checkout->walletCurrency === $terms['wallet_currency']
            && $checkout->walletNetwork === $terms['wallet_network']
            && rtrim($checkout->serviceUrl, '/') === rtrim($terms['service_url'], '/');
    }
}
