import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateWalletAddress } from '@cryptocheckout/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ResolvedConfig, resolveConfig } from '../config.js';
import { closeDatabase, type Database, openDatabase } from '../db/database.js';
import { DepositRepository } from '../db/deposit-repository.js';
import type { EvmNetworkConfig } from '../rails/evm/evm-networks.js';
import { RefundAddressCheck } from './refund-addresses.js';

/** EIP-55 examples from the EIP itself: a buyer's wallet and the shop's. */
const BUYER = '0x52908400098527886E0F7030069857D2E4169EE7';
const SHOP = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const FACTORY = '0xde709f2102306220921060314715629080e2fb77';
const FORWARDER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const CONFIGURED_TOKEN = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const POLYGON = { network: 'POLYGON', shopWallet: SHOP };

const canonical = (network: string, address: string) => {
  const checked = validateWalletAddress(network, address);
  if (!checked.valid) throw new Error(`${address}: ${checked.message}`);
  return checked.address;
};

describe('RefundAddressCheck', () => {
  let dataDir: string;
  let db: Database;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-refund-addresses-'));
    db = await openDatabase({ kind: 'sqlite', dataDir });
  });
  afterEach(async () => {
    await closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Live deposit mode on Polygon: a factory and a configured token beside the catalogue's. */
  function liveConfig(): ResolvedConfig {
    const polygon = {
      network: 'POLYGON',
      tokens: [{ asset: 'USDC', contract: CONFIGURED_TOKEN, decimals: 6 }],
      depositFactory: FACTORY,
    } as unknown as EvmNetworkConfig;
    return { ...resolveConfig({ dataDir }), mode: 'live', liveNetworks: [polygon] };
  }

  it('refuses the zero address of every family, in any letter case on EVM networks', async () => {
    const check = new RefundAddressCheck(db, resolveConfig({ dataDir }));
    expect(await check.refusal(POLYGON, `0x${'0'.repeat(40)}`)).toBe('zero_address');
    expect(
      await check.refusal({ network: 'TRON', shopWallet: SHOP }, 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb'),
    ).toBe('zero_address');
    expect(
      await check.refusal({ network: 'SOLANA', shopWallet: SHOP }, '11111111111111111111111111111111'),
    ).toBe('zero_address');
    expect(await check.refusal(POLYGON, BUYER)).toBeUndefined();
  });

  it('refuses every token contract of the network, the catalogue’s and the configured ones, and the shop’s own wallet', async () => {
    const check = new RefundAddressCheck(db, liveConfig());
    // USDC and USDT on Polygon, in their EIP-55 form and lowercase.
    expect(await check.refusal(POLYGON, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359')).toBe('token_contract');
    expect(await check.refusal(POLYGON, '0xc2132d05d31c914a87c6611c10748aeb04b58e8f')).toBe('token_contract');
    expect(await check.refusal(POLYGON, canonical('POLYGON', CONFIGURED_TOKEN))).toBe('token_contract');
    expect(
      await check.refusal({ network: 'TRON', shopWallet: SHOP }, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'),
    ).toBe('token_contract');
    expect(await check.refusal(POLYGON, SHOP.toLowerCase())).toBe('shop_wallet');
    expect(await check.refusal(POLYGON, BUYER)).toBeUndefined();
  });

  it('refuses the deposit factory and every forwarder the service issued (live deposit mode)', async () => {
    const check = new RefundAddressCheck(db, liveConfig());
    expect(await check.refusal(POLYGON, canonical('POLYGON', FACTORY))).toBe('service_address');
    expect(await check.refusal(POLYGON, FORWARDER)).toBeUndefined();
    await new DepositRepository(db).saveForwarder({
      network: 'POLYGON',
      address: FORWARDER.toLowerCase(),
      transaction_code: '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
      payment_method: 'usdc_polygon',
      merchant: SHOP.toLowerCase(),
      salt: `0x${'1'.repeat(64)}`,
      factory: FACTORY,
      created_at: '2026-11-01T10:00:00.000Z',
    });
    expect(await check.refusal(POLYGON, FORWARDER)).toBe('service_address');
    // A forwarder on another network is another address.
    expect(await check.refusal({ network: 'BASE', shopWallet: SHOP }, FORWARDER)).toBeUndefined();
  });

  it('refuses the derived deposit addresses of sandbox mode, owned by nobody', async () => {
    const check = new RefundAddressCheck(db, resolveConfig({ dataDir }));
    expect(await check.refusal(POLYGON, FORWARDER)).toBeUndefined();
    await db
      .insertInto('deposit_addresses')
      .values({
        transaction_code: '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
        payment_method: 'usdc_polygon',
        address: FORWARDER,
        created_at: '2026-11-01T10:00:00.000Z',
      })
      .execute();
    expect(await check.refusal(POLYGON, FORWARDER)).toBe('service_address');
  });
});
