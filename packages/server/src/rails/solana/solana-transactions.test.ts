import { describe, expect, it } from 'vitest';
import type { SolanaTransaction } from './solana-rpc.js';
import {
  accountKeysOf,
  lamportsReceived,
  succeeded,
  tokenArrivalsOf,
  tokensReceived,
} from './solana-transactions.js';

const MINT = 'MintA1111111111111111111111111111111111111';
const OTHER_MINT = 'MintB1111111111111111111111111111111111111';

/** A transfer of 5 tokens from the buyer's account (index 1) to the merchant's (index 2), and 0.1 SOL to the merchant wallet (index 3). */
function transaction(overrides: Partial<NonNullable<SolanaTransaction['meta']>> = {}): SolanaTransaction {
  return {
    slot: 10,
    blockTime: 1_800_000_000,
    meta: {
      err: null,
      preBalances: [10_000_000_000, 2_039_280, 2_039_280, 1_000_000_000],
      postBalances: [9_899_995_000, 2_039_280, 2_039_280, 1_100_000_000],
      preTokenBalances: [
        { accountIndex: 1, mint: MINT, owner: 'Buyer', uiTokenAmount: { amount: '9000000', decimals: 6 } },
        { accountIndex: 2, mint: MINT, owner: 'Merchant', uiTokenAmount: { amount: '1000000', decimals: 6 } },
      ],
      postTokenBalances: [
        { accountIndex: 1, mint: MINT, owner: 'Buyer', uiTokenAmount: { amount: '4000000', decimals: 6 } },
        { accountIndex: 2, mint: MINT, owner: 'Merchant', uiTokenAmount: { amount: '6000000', decimals: 6 } },
      ],
      loadedAddresses: { writable: [], readonly: ['LoadedReference'] },
      ...overrides,
    },
    transaction: {
      signatures: ['sig'],
      message: { accountKeys: ['Buyer', 'BuyerAta', 'MerchantAta', 'Merchant'] },
    },
  };
}

describe('reading a Solana transaction', () => {
  it('counts what an account gained from the balances, not what an instruction claims', () => {
    const paid = transaction();
    expect(tokensReceived(paid, 'MerchantAta', MINT)).toBe(5_000_000n);
    expect(tokensReceived(paid, 'MerchantAta', OTHER_MINT)).toBe(0n);
    expect(tokensReceived(paid, 'BuyerAta', MINT)).toBe(0n); // a loss is not a receipt
    expect(lamportsReceived(paid, 'Merchant')).toBe(100_000_000n);
    expect(lamportsReceived(paid, 'Buyer')).toBe(0n);
    expect(lamportsReceived(paid, 'Stranger')).toBe(0n);
  });

  it('counts a token account created in the transaction from zero', () => {
    const created = transaction({
      preTokenBalances: [
        { accountIndex: 1, mint: MINT, owner: 'Buyer', uiTokenAmount: { amount: '9000000', decimals: 6 } },
      ],
    });
    expect(tokensReceived(created, 'MerchantAta', MINT)).toBe(6_000_000n);
    expect(tokenArrivalsOf(created, 'Merchant')).toEqual([
      { account: 'MerchantAta', mint: MINT, amount: 6_000_000n, decimals: 6 },
    ]);
  });

  it('includes keys loaded from lookup tables, and tells a failed transaction', () => {
    expect(accountKeysOf(transaction())).toContain('LoadedReference');
    expect(succeeded(transaction())).toBe(true);
    expect(succeeded(transaction({ err: { InstructionError: [0, { Custom: 1 }] } }))).toBe(false);
  });
});
