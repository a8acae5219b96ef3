import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getNetwork } from '@cryptocheckout/core';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, type Database, openDatabase } from '../../db/database.js';
import { findRail, type Rail } from '../catalog.js';
import type { MerchantWallet } from '../payment-rail-provider.js';
import { resolveEvmNetworks } from './evm-networks.js';
import { evmRailProvider } from './evm-rail-provider.js';

// The merchant's wallet as the checkout carries it: checksummed, USDC on POLYGON.
const MERCHANT: MerchantWallet = {
  address: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F',
  asset: 'USDC',
  network: 'POLYGON',
};
const NOW = new Date('2026-11-01T10:00:00.000Z');
const HOLD_UNTIL = '2026-11-02T10:15:00.000Z';
// A token a local chain deployed, given lowercase the way an operator may paste it.
const TEST_TOKEN_CHECKSUMMED = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

function rail(slug: string): Rail {
  const found = findRail(slug);
  if (!found) throw new Error(`no rail ${slug} in the catalogue`);
  return found;
}

describe('evmRailProvider', () => {
  let dataDir: string;
  let db: Database;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cryptocheckout-evm-rail-'));
    db = await openDatabase({ kind: 'sqlite', dataDir });
  });

  afterEach(async () => {
    await closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A provider watching POLYGON only, with the catalogue's contracts unless told otherwise. */
  const polygonProvider = (options: Parameters<typeof resolveEvmNetworks>[0] = { rpcUrls: {} }) =>
    evmRailProvider({
      db,
      networks: resolveEvmNetworks({ ...options, rpcUrls: { POLYGON: 'https://polygon-rpc.example' } }),
      clock: () => NOW,
      logger: pino({ level: 'silent' }),
    });

  describe('availability', () => {
    it('offers no fiat rail in live mode, saying a payment processor is needed', () => {
      const provider = polygonProvider();
      for (const slug of ['card', 'bank_transfer']) {
        const answer = provider.availability(rail(slug));
        expect(answer.available).toBe(false);
        expect(answer.available === false && answer.reason).toMatch(/live mode.*payment processor/);
        // For a checkout, the buyer is told the one thing that matters: how the merchant is paid.
        expect(provider.availability(rail(slug), MERCHANT)).toEqual({
          available: false,
          reason: `Not offered: this merchant is paid in USDC on ${getNetwork('POLYGON')!.name} only.`,
        });
      }
    });

    it('does not offer a network the server does not watch, naming the asset and the network', () => {
      const answer = polygonProvider().availability(rail('usdc_ethereum'));
      expect(answer).toEqual({
        available: false,
        reason: `Not offered: this server does not watch USDC on ${getNetwork('ETHEREUM')!.name}.`,
      });
    });

    it('does not offer another asset on a watched network to a merchant paid in USDC there', () => {
      const answer = polygonProvider().availability(rail('usdt_polygon'), MERCHANT);
      expect(answer.available).toBe(false);
      const reason = answer.available === false ? answer.reason : '';
      expect(reason).toBe(
        `Not offered: this merchant is paid in USDC on ${getNetwork('POLYGON')!.name} only.`,
      );
    });

    it('does not offer the merchant’s asset on another watched network either', () => {
      const provider = evmRailProvider({
        db,
        networks: resolveEvmNetworks({
          rpcUrls: { POLYGON: 'https://polygon-rpc.example', BASE: 'https://base-rpc.example' },
        }),
        clock: () => NOW,
        logger: pino({ level: 'silent' }),
      });
      const answer = provider.availability(rail('usdc_base'), MERCHANT);
      expect(answer.available).toBe(false);
      expect(answer.available === false && answer.reason).toContain(
        `paid in USDC on ${getNetwork('POLYGON')!.name}`,
      );
      expect(provider.availability(rail('usdc_base'))).toEqual({ available: true });
    });

    it('offers the merchant’s own asset and network, whatever case the wallet names them in', () => {
      const provider = polygonProvider();
      expect(provider.availability(rail('usdc_polygon'), MERCHANT)).toEqual({ available: true });
      expect(
        provider.availability(rail('usdc_polygon'), { ...MERCHANT, asset: 'usdc', network: 'polygon' }),
      ).toEqual({ available: true });
      // Without a wallet (the catalogue listing) every watched token is offered.
      expect(provider.availability(rail('usdt_polygon'))).toEqual({ available: true });
    });

    it('does not offer an asset whose contract a test chain was not given', () => {
      const provider = polygonProvider({
        rpcUrls: {},
        chainIds: { POLYGON: 1337 },
        tokens: { 'POLYGON:USDC': TEST_TOKEN_CHECKSUMMED.toLowerCase() },
      });
      expect(provider.availability(rail('usdc_polygon'), MERCHANT)).toEqual({ available: true });
      expect(provider.availability(rail('usdt_polygon')).available).toBe(false);
    });
  });

  describe('paymentRequest', () => {
    it('asks for the due amount plus a tag, paid to the merchant’s own wallet', async () => {
      const provider = polygonProvider();
      const request = (transactionCode: string, wallet = MERCHANT) =>
        provider.paymentRequest({
          transactionCode,
          rail: rail('usdc_polygon'),
          wallet,
          dueAmount: '25.00',
          holdUntil: HOLD_UNTIL,
        });
      expect(await request('tx-a')).toEqual({ address: MERCHANT.address, amount: '25.000001' });
      expect(await request('tx-a')).toEqual({ address: MERCHANT.address, amount: '25.000001' });
      // The same wallet written in lowercase is the same wallet: the next checkout gets the next tag.
      const lowercase = { ...MERCHANT, address: MERCHANT.address.toLowerCase() };
      expect(await request('tx-b', lowercase)).toEqual({ address: lowercase.address, amount: '25.000002' });

      const stored = await db
        .selectFrom('amount_holds')
        .select(['wallet_address', 'transaction_code', 'payment_method', 'amount', 'held_until'])
        .orderBy('transaction_code')
        .execute();
      expect(stored).toEqual([
        {
          wallet_address: MERCHANT.address.toLowerCase(),
          transaction_code: 'tx-a',
          payment_method: 'usdc_polygon',
          amount: '25.000001',
          held_until: HOLD_UNTIL,
        },
        {
          wallet_address: MERCHANT.address.toLowerCase(),
          transaction_code: 'tx-b',
          payment_method: 'usdc_polygon',
          amount: '25.000002',
          held_until: HOLD_UNTIL,
        },
      ]);
    });

    it('refuses a rail that is not payable for this merchant, holding nothing', async () => {
      const provider = polygonProvider();
      for (const slug of ['usdt_polygon', 'usdc_ethereum', 'card']) {
        await expect(
          provider.paymentRequest({
            transactionCode: 'tx-a',
            rail: rail(slug),
            wallet: MERCHANT,
            dueAmount: '25.00',
            holdUntil: HOLD_UNTIL,
          }),
        ).rejects.toThrow(`${slug} is not payable`);
      }
      expect(await db.selectFrom('amount_holds').selectAll().execute()).toEqual([]);
    });
  });

  describe('tokenOverride', () => {
    it('gives the catalogue contract checksummed and the network’s chain id by default', () => {
      const provider = polygonProvider();
      const catalogue = getNetwork('POLYGON')!;
      expect(provider.tokenOverride!(rail('usdc_polygon'))).toEqual({
        contract: catalogue.assets.find((asset) => asset.symbol === 'USDC')!.contract,
        chainId: 137,
      });
    });

    it('gives a configured test chain contract checksummed, with the configured chain id', () => {
      const provider = polygonProvider({
        rpcUrls: {},
        chainIds: { POLYGON: 1337 },
        tokens: { 'POLYGON:USDC': TEST_TOKEN_CHECKSUMMED.toLowerCase() },
      });
      expect(provider.tokenOverride!(rail('usdc_polygon'))).toEqual({
        contract: TEST_TOKEN_CHECKSUMMED,
        chainId: 1337,
      });
    });

    it('has nothing for a rail it does not watch', () => {
      const provider = polygonProvider();
      expect(provider.tokenOverride!(rail('usdc_ethereum'))).toBeUndefined();
      expect(provider.tokenOverride!(rail('card'))).toBeUndefined();
    });
  });
});
