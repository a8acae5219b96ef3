<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Exception;

use CryptoCheckout\Client\Wallet\Networks;

/**
 * The service does not offer payment in the merchant's own settlement (its asset on its network)
 * for a reason other than the order's amount: its option for them is not available (the service's
 * unavailable_reason says why: a network it does not watch or cannot watch right now, a stablecoin
 * under its price floor, a wallet it refuses …), or it lists no option for them at all. A checkout
 * for the order would give the buyer a payment page that offers nothing, so none is opened. Thrown
 * by the kernel's CheckoutOpener; the buyer reads a short sentence (StartProblem), the shop owner
 * the service's reason (getMessage(), getReason()).
 */
final class SettlementUnavailableException extends CryptoCheckoutException
{
    private string $fiatAmount;
    private string $fiatCurrency;
    private string $asset;
    private string $network;
    private ?string $serviceReason;
    private ?string $transactionCode;

    /**
     * @param string $asset the merchant's settlement asset ("USDC")
     * @param string $network the merchant's network id ("POLYGON")
     * @param string|null $serviceReason the service's unavailable_reason, or null when it lists no option for the settlement
     * @param string|null $transactionCode the checkout the service created before its answer said so (left unused to expire)
     */
    public function __construct(string $fiatAmount, string $fiatCurrency, string $asset, string $network, ?string $serviceReason, ?string $transactionCode = null)
    {
        $this->fiatAmount = $fiatAmount;
        $this->fiatCurrency = $fiatCurrency;
        $this->asset = $asset;
        $this->network = $network;
        $this->serviceReason = $serviceReason === null || trim($serviceReason) === '' ? null : trim($serviceReason);
        $this->transactionCode = $transactionCode;
        parent::__construct(sprintf(
            'The service does not offer payment in %s on %s for %s %s: %s%s',
            $asset,
            $this->getNetworkName(),
            $fiatAmount,
            $fiatCurrency,
            $this->getReason(),
            $transactionCode === null ? '' : sprintf(' (Checkout %s was created before the service said so; it is left unused to expire.)', $transactionCode)
        ));
    }

    public function getFiatAmount(): string
    {
        return $this->fiatAmount;
    }

    public function getFiatCurrency(): string
    {
        return $this->fiatCurrency;
    }

    /** The settlement asset ("USDC"). */
    public function getAsset(): string
    {
        return $this->asset;
    }

    /** The settlement network's id ("POLYGON"). */
    public function getNetwork(): string
    {
        return $this->network;
    }

    /** The settlement network's name ("Polygon PoS"), or its id when the catalog does not know it. */
    public function getNetworkName(): string
    {
        $network = Networks::get($this->network);
        return $network === null ? $this->network : (string) $network['name'];
    }

    /** The service's unavailable_reason as it sent it, or null when it lists no option for the settlement. */
    public function getServiceReason(): ?string
    {
        return $this->serviceReason;
    }

    /** Why, in one sentence for the shop owner: the service's own reason, or that it lists no option for the settlement. */
    public function getReason(): string
    {
        if ($this->serviceReason !== null) {
            return $this->serviceReason;
        }
        return sprintf('The service lists no payment option for %s on %s.', $this->asset, $this->getNetworkName());
    }

    /** The checkout the service created before its answer showed the settlement unavailable, if any. */
    public function getTransactionCode(): ?string
    {
        return $this->transactionCode;
    }
}
