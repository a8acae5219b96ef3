import { describe, expect, it } from 'vitest';
import { validateWalletAddress } from './address.js';
import {
  DEFAULT_SETTLEMENT,
  getAsset,
  getNetwork,
  isAssetOnNetwork,
  NETWORK_IDS,
  NETWORKS,
  type NetworkInfo,
  RECOMMENDED_ASSET,
} from './networks.js';

describe('network catalog', () => {
  it('lists every network id once, in the order of NETWORK_IDS', () => {
    expect(NETWORKS.map((n) => n.id)).toEqual([...NETWORK_IDS]);
    for (const id of NETWORK_IDS) expect(id).toBe(id.toUpperCase());
  });

  it('gives EVM networks their EIP-155 chain id and no chain id to the others', () => {
    const chainIds = Object.fromEntries(
      NETWORKS.filter((n) => n.family === 'evm').map((n) => [n.id, n.chainId]),
    );
    expect(chainIds).toEqual({ POLYGON: 137, ETHEREUM: 1, BASE: 8453, ARBITRUM: 42161, BSC: 56 });
    for (const network of NETWORKS.filter((n) => n.family !== 'evm')) expect(network.chainId).toBeUndefined();
    expect(
      Object.fromEntries(NETWORKS.filter((n) => n.family !== 'evm').map((n) => [n.id, n.family])),
    ).toEqual({
      TRON: 'tron',
      SOLANA: 'solana',
      BITCOIN: 'bitcoin',
    });
  });

  it.each(NETWORKS.map((n) => [n.id, n] as const))('%s: assets are consistent', (_id, network) => {
    const symbols = network.assets.map((a) => a.symbol);
    expect(new Set(symbols).size).toBe(symbols.length);
    expect(symbols).toContain(network.nativeAsset);
    expect(network.name.length).toBeGreaterThan(0);
    for (const asset of network.assets) {
      expect(asset.symbol).toBe(asset.symbol.toUpperCase());
      expect(Number.isInteger(asset.decimals) && asset.decimals >= 0 && asset.decimals <= 18).toBe(true);
      // The native coin is the only asset without a contract or mint.
      expect(asset.contract === undefined).toBe(asset.symbol === network.nativeAsset);
    }
  });

  it.each(
    NETWORKS.flatMap((n) =>
      n.assets.filter((a) => a.contract).map((a) => [`${n.id} ${a.symbol}`, n, a.contract!] as const),
    ),
  )('%s contract is a valid address of its own network, stored in canonical form', (_label, network, contract) => {
    expect(validateWalletAddress(network.id, contract)).toEqual({ valid: true, address: contract });
  });

  it('has no contract listed twice', () => {
    const contracts = NETWORKS.flatMap((n) =>
      n.assets.flatMap((a) => (a.contract ? [a.contract.toLowerCase()] : [])),
    );
    expect(new Set(contracts).size).toBe(contracts.length);
  });

  it('is frozen against accidental changes at run time', () => {
    expect(() => (NETWORKS as NetworkInfo[]).pop()).toThrow(TypeError);
    const polygon = getNetwork('POLYGON')!;
    expect(() => {
      (polygon as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (polygon.assets[0] as { decimals: number }).decimals = 18;
    }).toThrow(TypeError);
    expect(getAsset('POLYGON', 'USDC')?.decimals).toBe(6);
  });
});

describe('lookups', () => {
  it('finds networks by exact uppercase id only', () => {
    expect(getNetwork('POLYGON')?.name).toBe('Polygon PoS');
    expect(getNetwork('polygon')).toBeUndefined();
    expect(getNetwork(' POLYGON')).toBeUndefined();
    expect(getNetwork('')).toBeUndefined();
    // Inherited object keys must not be mistaken for networks.
    expect(getNetwork('constructor')).toBeUndefined();
  });

  it('finds the native USDC on Polygon and the 18-decimal USDC on BSC', () => {
    expect(getAsset('POLYGON', 'USDC')).toEqual({
      symbol: 'USDC',
      name: 'USD Coin',
      decimals: 6,
      contract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    });
    expect(getAsset('BSC', 'USDC')?.decimals).toBe(18);
    expect(getAsset('BITCOIN', 'BTC')?.decimals).toBe(8);
    expect(getAsset('TRON', 'USDT')?.contract).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  });

  it('tells which assets each network settles', () => {
    expect(isAssetOnNetwork('USDC', 'POLYGON')).toBe(true);
    expect(isAssetOnNetwork('USDT', 'TRON')).toBe(true);
    expect(isAssetOnNetwork('USDC', 'TRON')).toBe(false);
    expect(isAssetOnNetwork('USDT', 'BASE')).toBe(false);
    expect(isAssetOnNetwork('USDC', 'BITCOIN')).toBe(false);
    expect(isAssetOnNetwork('usdc', 'POLYGON')).toBe(false);
    expect(isAssetOnNetwork('USDC', 'NOWHERE')).toBe(false);
  });
});

describe('settlement defaults', () => {
  it('defaults to the recommended asset on a network that settles it', () => {
    expect(DEFAULT_SETTLEMENT).toEqual({ crypto_currency: 'USDC', crypto_currency_network: 'POLYGON' });
    expect(DEFAULT_SETTLEMENT.crypto_currency).toBe(RECOMMENDED_ASSET);
    expect(
      isAssetOnNetwork(DEFAULT_SETTLEMENT.crypto_currency, DEFAULT_SETTLEMENT.crypto_currency_network),
    ).toBe(true);
  });
});
