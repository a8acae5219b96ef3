import { getNetwork } from '@cryptocheckout/core';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONFIRMATIONS,
  defaultTokenTable,
  type LiveRailOptions,
  resolveEvmNetworks,
} from './evm-networks.js';

const POLYGON_RPC = 'https://polygon-rpc.example';
// A contract a local test chain deployed; mixed case on purpose, the resolved config keeps it lowercase.
const TEST_TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const OTHER_TEST_TOKEN = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

/** The catalogue's contract of an asset on a network, as the core package lists it. */
function catalogueContract(network: string, asset: string): string {
  const contract = getNetwork(network)?.assets.find((each) => each.symbol === asset)?.contract;
  if (!contract) throw new Error(`the core catalogue has no ${asset} on ${network}`);
  return contract;
}

/** The message `resolveEvmNetworks` throws for these options (fails the test when it does not throw). */
function errorOf(options: LiveRailOptions): string {
  try {
    resolveEvmNetworks(options);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be refused`);
}

describe('resolveEvmNetworks defaults', () => {
  it('completes a bare POLYGON URL with its confirmations, chain id, catalogue contracts and scan settings', () => {
    const [polygon, ...rest] = resolveEvmNetworks({ rpcUrls: { POLYGON: POLYGON_RPC } });
    expect(rest).toEqual([]);
    expect(polygon).toEqual({
      network: 'POLYGON',
      rpcUrl: POLYGON_RPC,
      chainId: 137,
      confirmations: 64,
      tokens: [
        { asset: 'USDC', contract: catalogueContract('POLYGON', 'USDC').toLowerCase(), decimals: 6 },
        { asset: 'USDT', contract: catalogueContract('POLYGON', 'USDT').toLowerCase(), decimals: 6 },
      ],
      maxBlockRange: 500,
      pollIntervalMs: 2000,
    });
    // Logs carry lowercase addresses; a mixed-case contract would never match one.
    for (const token of polygon!.tokens) expect(token.contract).toMatch(/^0x[0-9a-f]{40}$/);
  });

  it('gives each network its own default depth and watches only the catalogue assets it has (BASE: USDC only)', () => {
    const networks = resolveEvmNetworks({
      rpcUrls: {
        ETHEREUM: 'https://ethereum-rpc.example',
        BASE: 'http://127.0.0.1:8545',
        ARBITRUM: 'https://arbitrum-rpc.example',
      },
    });
    expect(networks.map((each) => [each.network, each.confirmations, each.chainId])).toEqual([
      ['ETHEREUM', DEFAULT_CONFIRMATIONS.ETHEREUM, 1],
      ['BASE', DEFAULT_CONFIRMATIONS.BASE, 8453],
      ['ARBITRUM', DEFAULT_CONFIRMATIONS.ARBITRUM, 42161],
    ]);
    expect(networks.map((each) => each.tokens.map((token) => token.asset))).toEqual([
      ['USDC', 'USDT'],
      ['USDC'],
      ['USDC', 'USDT'],
    ]);
  });

  it('watches no network when no URL is given', () => {
    expect(resolveEvmNetworks({ rpcUrls: {} })).toEqual([]);
  });
});

describe('resolveEvmNetworks overrides', () => {
  it('takes confirmations, poll interval and block range from the options', () => {
    const [polygon] = resolveEvmNetworks({
      rpcUrls: { POLYGON: POLYGON_RPC },
      confirmations: { POLYGON: 3 },
      pollIntervalMs: 250,
      maxBlockRange: 10,
    });
    expect(polygon).toMatchObject({ confirmations: 3, pollIntervalMs: 250, maxBlockRange: 10 });
  });

  it('watches a test chain token contract, lowercased, with the decimals of the asset it stands for', () => {
    const [polygon] = resolveEvmNetworks({
      rpcUrls: { POLYGON: 'http://127.0.0.1:8545' },
      chainIds: { POLYGON: 1337 },
      tokens: { 'POLYGON:USDC': TEST_TOKEN },
      confirmations: { POLYGON: 1 },
    });
    expect(polygon).toMatchObject({ chainId: 1337, confirmations: 1 });
    expect(polygon!.tokens).toEqual([{ asset: 'USDC', contract: TEST_TOKEN.toLowerCase(), decimals: 6 }]);
  });

  it('replaces one default contract on the own chain and keeps the other', () => {
    const [polygon] = resolveEvmNetworks({
      rpcUrls: { POLYGON: POLYGON_RPC },
      tokens: { 'POLYGON:USDT': OTHER_TEST_TOKEN },
    });
    expect(polygon!.tokens).toEqual([
      { asset: 'USDC', contract: catalogueContract('POLYGON', 'USDC').toLowerCase(), decimals: 6 },
      { asset: 'USDT', contract: OTHER_TEST_TOKEN.toLowerCase(), decimals: 6 },
    ]);
  });

  it('on a chain id other than the network’s own, refuses to guess contracts and watches only the named ones', () => {
    const message = errorOf({ rpcUrls: { POLYGON: 'http://127.0.0.1:8545' }, chainIds: { POLYGON: 80002 } });
    expect(message).toContain('--rpc-url POLYGON');
    expect(message).toContain('80002');
    expect(message).toContain('--token POLYGON:USDC=0x');

    const [amoy] = resolveEvmNetworks({
      rpcUrls: { POLYGON: 'http://127.0.0.1:8545' },
      chainIds: { POLYGON: 80002 },
      tokens: { 'POLYGON:USDT': OTHER_TEST_TOKEN },
    });
    expect(amoy!.chainId).toBe(80002);
    expect(amoy!.tokens).toEqual([{ asset: 'USDT', contract: OTHER_TEST_TOKEN.toLowerCase(), decimals: 6 }]);
  });

  it('reads network and asset names in any case', () => {
    const [polygon] = resolveEvmNetworks({
      rpcUrls: { polygon: POLYGON_RPC },
      confirmations: { Polygon: 7 },
      chainIds: { polygon: 1337 },
      tokens: { 'polygon:usdc': TEST_TOKEN },
    });
    expect(polygon).toMatchObject({ network: 'POLYGON', confirmations: 7, chainId: 1337 });
    expect(polygon!.tokens).toEqual([{ asset: 'USDC', contract: TEST_TOKEN.toLowerCase(), decimals: 6 }]);
  });
});

describe('resolveEvmNetworks refuses wrong settings, naming the flag and the fix', () => {
  it('an unknown network in any flag: lists the networks live mode watches', () => {
    for (const [options, flag] of [
      [{ rpcUrls: { TRON: POLYGON_RPC } }, '--rpc-url TRON'],
      [{ rpcUrls: { POLYGON: POLYGON_RPC }, confirmations: { BSC: 15 } }, '--confirmations BSC'],
      [{ rpcUrls: { POLYGON: POLYGON_RPC }, chainIds: { TRON: 1 } }, '--chain-id TRON'],
      [{ rpcUrls: { POLYGON: POLYGON_RPC }, tokens: { 'BITCOIN:USDC': TEST_TOKEN } }, '--token BITCOIN'],
    ] as const) {
      const message = errorOf(options);
      expect(message).toContain(flag);
      expect(message).toContain('POLYGON, ETHEREUM, BASE, ARBITRUM and SOLANA');
    }
  });

  it('Solana in an EVM-only flag: says Solana counts by commitment instead', () => {
    // The server splits SOLANA off before these settings reach the EVM networks (config.ts).
    const message = errorOf({ rpcUrls: { POLYGON: POLYGON_RPC }, confirmations: { SOLANA: 32 } });
    expect(message).toContain('--confirmations SOLANA: Solana has no such setting');
    expect(message).toContain('--solana-commitment');
  });

  it('a URL that is not http(s)', () => {
    for (const url of ['ws://polygon-rpc.example', 'polygon-rpc.example', '', 'https://with space.example']) {
      const message = errorOf({ rpcUrls: { POLYGON: url } });
      expect(message).toContain('--rpc-url POLYGON');
      expect(message).toContain('http(s) JSON-RPC URL');
    }
  });

  it('confirmations that are not a whole number from 1 to 10000', () => {
    for (const confirmations of [0, 1.5, -3, 10_001, Number.NaN]) {
      const message = errorOf({
        rpcUrls: { POLYGON: POLYGON_RPC },
        confirmations: { POLYGON: confirmations },
      });
      expect(message).toContain('--confirmations POLYGON');
      expect(message).toContain('whole number from 1 to 10000');
      expect(message).toContain(`not ${confirmations}`);
    }
  });

  it('a token of an asset live mode does not accept', () => {
    const message = errorOf({ rpcUrls: { POLYGON: POLYGON_RPC }, tokens: { 'POLYGON:DAI': TEST_TOKEN } });
    expect(message).toContain('--token POLYGON:DAI');
    expect(message).toContain('USDC, USDT');
    expect(message).toContain('POLYGON:USDC=0x');
  });

  it('a token contract that is not an address', () => {
    for (const contract of [
      '0x1234',
      TEST_TOKEN.slice(2),
      `${TEST_TOKEN}00`,
      '0xZZbDB2315678afecb367f032d93F642f64180aa3',
    ]) {
      const message = errorOf({ rpcUrls: { POLYGON: POLYGON_RPC }, tokens: { 'POLYGON:USDC': contract } });
      expect(message).toContain('--token POLYGON:USDC');
      expect(message).toContain(`"${contract}"`);
      expect(message).toContain('0x and 40 hex digits');
    }
  });

  it('a chain id that is not a positive whole number', () => {
    const message = errorOf({ rpcUrls: { POLYGON: POLYGON_RPC }, chainIds: { POLYGON: 0 } });
    expect(message).toContain('--chain-id POLYGON');
    expect(message).toContain('positive whole number');
  });

  it('a poll interval or block range out of range', () => {
    expect(errorOf({ rpcUrls: {}, pollIntervalMs: 5 })).toContain('from 10 to 600000 ms');
    expect(errorOf({ rpcUrls: {}, maxBlockRange: 0 })).toContain('whole number from 1 to 100000');
    expect(errorOf({ rpcUrls: {}, maxBlockRange: 2.5 })).toContain('whole number from 1 to 100000');
  });

  it('a forwarding lease out of range or shorter than two scans', () => {
    expect(errorOf({ rpcUrls: {}, forwarding: { leaseMs: 500 } })).toContain(
      '--forwarding-lease-ms must be a whole number from 1000 to 3600000 ms',
    );
    expect(errorOf({ rpcUrls: {}, pollIntervalMs: 2000, forwarding: { leaseMs: 3000 } })).toContain(
      'at least twice --poll-interval-ms (2000)',
    );
    expect(() => resolveEvmNetworks({ rpcUrls: {}, forwarding: { leaseMs: 4000 } })).not.toThrow();
  });
});

describe('defaultTokenTable', () => {
  it('lists the catalogue contracts live mode watches by default, one NETWORK:ASSET=contract line each', () => {
    const table = defaultTokenTable();
    expect(table).toHaveLength(7);
    const expected = [
      ['POLYGON', 'USDC'],
      ['POLYGON', 'USDT'],
      ['ETHEREUM', 'USDC'],
      ['ETHEREUM', 'USDT'],
      ['BASE', 'USDC'],
      ['ARBITRUM', 'USDC'],
      ['ARBITRUM', 'USDT'],
    ].map(([network, asset]) => `${network}:${asset}=${catalogueContract(network!, asset!)}`);
    expect(table).toEqual(expected);
  });
});
