<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Wallet;

/**
 * The networks the service settles to, with the assets each offers. Mirrors the catalog of
 * @cryptocheckout/core (packages/core/src/wallets/networks.ts); a test keeps the two equal.
 */
final class Networks
{
    public const FAMILY_EVM = 'evm';
    public const FAMILY_TRON = 'tron';
    public const FAMILY_SOLANA = 'solana';
    public const FAMILY_BITCOIN = 'bitcoin';

    /** The settlement asset the service recommends to merchants. */
    public const RECOMMENDED_ASSET = 'USDC';

    /** The settlement a new merchant starts with. */
    public const DEFAULT_SETTLEMENT = ['crypto_currency' => 'USDC', 'crypto_currency_network' => 'POLYGON'];

    // Mainnet contracts only. On Polygon, Base and Arbitrum the listed USDC is Circle's native issue,
    // not the older bridged USDC.e / USDbC. On BNB Smart Chain both stablecoins have 18 decimals.
    private const CATALOG = [
        [
            'id' => 'POLYGON', 'name' => 'Polygon PoS', 'family' => self::FAMILY_EVM, 'chainId' => 137, 'nativeAsset' => 'POL',
            'assets' => [
                ['symbol' => 'USDC', 'name' => 'USD Coin', 'decimals' => 6, 'contract' => '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'],
                ['symbol' => 'USDT', 'name' => 'Tether USD', 'decimals' => 6, 'contract' => '0xc2132D05D31c914a87C6611C10748AEb04B58e8F'],
                ['symbol' => 'POL', 'name' => 'POL', 'decimals' => 18],
            ],
        ],
        [
            'id' => 'ETHEREUM', 'name' => 'Ethereum', 'family' => self::FAMILY_EVM, 'chainId' => 1, 'nativeAsset' => 'ETH',
            'assets' => [
                ['symbol' => 'USDC', 'name' => 'USD Coin', 'decimals' => 6, 'contract' => '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
                ['symbol' => 'USDT', 'name' => 'Tether USD', 'decimals' => 6, 'contract' => '0xdAC17F958D2ee523a2206206994597C13D831ec7'],
                ['symbol' => 'ETH', 'name' => 'Ether', 'decimals' => 18],
            ],
        ],
        [
            'id' => 'BASE', 'name' => 'Base', 'family' => self::FAMILY_EVM, 'chainId' => 8453, 'nativeAsset' => 'ETH',
            'assets' => [
                ['symbol' => 'USDC', 'name' => 'USD Coin', 'decimals' => 6, 'contract' => '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
                ['symbol' => 'ETH', 'name' => 'Ether', 'decimals' => 18],
            ],
        ],
        [
            'id' => 'ARBITRUM', 'name' => 'Arbitrum One', 'family' => self::FAMILY_EVM, 'chainId' => 42161, 'nativeAsset' => 'ETH',
            'assets' => [
                ['symbol' => 'USDC', 'name' => 'USD Coin', 'decimals' => 6, 'contract' => '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'],
                ['symbol' => 'USDT', 'name' => 'Tether USD', 'decimals' => 6, 'contract' => '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'],
                ['symbol' => 'ETH', 'name' => 'Ether', 'decimals' => 18],
            ],
        ],
        [
            'id' => 'BSC', 'name' => 'BNB Smart Chain', 'family' => self::FAMILY_EVM, 'chainId' => 56, 'nativeAsset' => 'BNB',
            'assets' => [
                ['symbol' => 'USDT', 'name' => 'Tether USD', 'decimals' => 18, 'contract' => '0x55d398326f99059fF775485246999027B3197955'],
                ['symbol' => 'USDC', 'name' => 'USD Coin', 'decimals' => 18, 'contract' => '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d'],
                ['symbol' => 'BNB', 'name' => 'BNB', 'decimals' => 18],
            ],
        ],
        [
            'id' => 'TRON', 'name' => 'TRON', 'family' => self::FAMILY_TRON, 'nativeAsset' => 'TRX',
            'assets' => [
                ['symbol' => 'USDT', 'name' => 'Tether USD', 'decimals' => 6, 'contract' => 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
                ['symbol' => 'TRX', 'name' => 'TRX', 'decimals' => 6],
            ],
        ],
        [
            'id' => 'SOLANA', 'name' => 'Solana', 'family' => self::FAMILY_SOLANA, 'nativeAsset' => 'SOL',
            'assets' => [
                ['symbol' => 'USDC', 'name' => 'USD Coin', 'decimals' => 6, 'contract' => 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
                ['symbol' => 'USDT', 'name' => 'Tether USD', 'decimals' => 6, 'contract' => 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'],
                ['symbol' => 'SOL', 'name' => 'Solana', 'decimals' => 9],
            ],
        ],
        [
            'id' => 'BITCOIN', 'name' => 'Bitcoin', 'family' => self::FAMILY_BITCOIN, 'nativeAsset' => 'BTC',
            'assets' => [
                ['symbol' => 'BTC', 'name' => 'Bitcoin', 'decimals' => 8],
            ],
        ],
    ];

    private function __construct()
    {
    }

    /**
     * Every network, in display order: id, name, family, chainId (EVM only), nativeAsset, assets[]
     * {symbol, name, decimals, contract (absent for the native coin)}.
     *
     * @return list<array<string, mixed>>
     */
    public static function all(): array
    {
        return self::CATALOG;
    }

    /**
     * Every network id, as sent in crypto_currency_network.
     *
     * @return list<string>
     */
    public static function ids(): array
    {
        return array_column(self::CATALOG, 'id');
    }

    /**
     * The network with this exact uppercase id ("POLYGON"), or null.
     *
     * @return array<string, mixed>|null
     */
    public static function get(string $id): ?array
    {
        foreach (self::CATALOG as $network) {
            if ($network['id'] === $id) {
                return $network;
            }
        }
        return null;
    }

    /**
     * The asset $symbol (exact, uppercase) as settled on $network, or null when the network does not offer it.
     *
     * @return array<string, mixed>|null
     */
    public static function asset(string $network, string $symbol): ?array
    {
        $info = self::get($network);
        foreach ($info['assets'] ?? [] as $asset) {
            if ($asset['symbol'] === $symbol) {
                return $asset;
            }
        }
        return null;
    }

    public static function isAssetOnNetwork(string $symbol, string $network): bool
    {
        return self::asset($network, $symbol) !== null;
    }
}
