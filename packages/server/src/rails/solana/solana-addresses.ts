import { sha256 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';
import { type Address, address } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

const encoder = new TextEncoder();

/**
 * The Solana Pay reference of a checkout's rail: 32 bytes, shown as an address, that the buyer's
 * wallet adds to the transfer as a read-only key. Derived, not random, so every server node and a
 * restart hand out the same one, and a transfer names exactly one checkout and rail.
 */
export function checkoutReference(transactionCode: string, paymentMethod: string): string {
  return referenceOf(`cryptocheckout/solana-pay/checkout:${transactionCode}:${paymentMethod}`);
}

/** The Solana Pay reference of a refund's payment request (the merchant's wallet adds it). */
export function refundReference(refundId: string): string {
  return referenceOf(`cryptocheckout/solana-pay/refund:${refundId}`);
}

function referenceOf(text: string): string {
  return base58.encode(sha256(encoder.encode(text)));
}

const tokenAccounts = new Map<string, Promise<string>>();

/**
 * The associated token account of `owner` for `mint` under the SPL Token program: where Solana Pay
 * wallets send tokens to a wallet address (creating the account when it is missing).
 */
export function associatedTokenAccount(owner: string, mint: string): Promise<string> {
  const key = `${owner}:${mint}`;
  let found = tokenAccounts.get(key);
  if (!found) {
    found = findAssociatedTokenPda({
      owner: address(owner) as Address,
      mint: address(mint) as Address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    }).then(([account]) => account as string);
    tokenAccounts.set(key, found);
  }
  return found;
}
