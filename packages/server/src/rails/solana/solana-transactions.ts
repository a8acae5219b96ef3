import type { SolanaTransaction, TokenBalance } from './solana-rpc.js';

/** Every account key of a transaction: the message's own, then those loaded from lookup tables (v0). */
export function accountKeysOf(transaction: SolanaTransaction): string[] {
  const loaded = transaction.meta?.loadedAddresses;
  return [
    ...transaction.transaction.message.accountKeys,
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? []),
  ];
}

/** Whether the transaction executed: a failed one is in the ledger, but moved nothing but its fee. */
export function succeeded(transaction: SolanaTransaction): boolean {
  return transaction.meta !== null && (transaction.meta.err === null || transaction.meta.err === undefined);
}

/** The fee payer, who signed first: the buyer's wallet in a Solana Pay transfer. */
export function feePayerOf(transaction: SolanaTransaction): string {
  return transaction.transaction.message.accountKeys[0] ?? '';
}

/** Lamports `account` gained in the transaction (0 when it paid or is absent). */
export function lamportsReceived(transaction: SolanaTransaction, account: string): bigint {
  const index = accountKeysOf(transaction).indexOf(account);
  const meta = transaction.meta;
  if (index < 0 || !meta) return 0n;
  const gained = BigInt(meta.postBalances[index] ?? 0) - BigInt(meta.preBalances[index] ?? 0);
  return gained > 0n ? gained : 0n;
}

/** Base units of `mint` that the token account `account` gained (0 when it lost, is absent or holds another mint). */
export function tokensReceived(transaction: SolanaTransaction, account: string, mint: string): bigint {
  const index = accountKeysOf(transaction).indexOf(account);
  if (index < 0 || !transaction.meta) return 0n;
  const gained =
    balanceAt(transaction.meta.postTokenBalances, index, mint) -
    balanceAt(transaction.meta.preTokenBalances, index, mint);
  return gained > 0n ? gained : 0n;
}

/** A token arrival at an account `owner` owns, whatever the mint: what a wrong-mint transfer brought. */
export interface TokenArrival {
  account: string;
  mint: string;
  amount: bigint;
  decimals: number;
}

/** Every token account owned by `owner` that gained tokens in the transaction, any mint. */
export function tokenArrivalsOf(transaction: SolanaTransaction, owner: string): TokenArrival[] {
  const meta = transaction.meta;
  if (!meta) return [];
  const keys = accountKeysOf(transaction);
  return (meta.postTokenBalances ?? []).flatMap((after) => {
    if (after.owner !== owner) return [];
    const amount =
      BigInt(after.uiTokenAmount.amount) - balanceAt(meta.preTokenBalances, after.accountIndex, after.mint);
    if (amount <= 0n) return [];
    return [
      {
        account: keys[after.accountIndex] ?? '',
        mint: after.mint,
        amount,
        decimals: after.uiTokenAmount.decimals,
      },
    ];
  });
}

function balanceAt(balances: readonly TokenBalance[] | undefined, index: number, mint: string): bigint {
  const entry = balances?.find((each) => each.accountIndex === index && each.mint === mint);
  return entry ? BigInt(entry.uiTokenAmount.amount) : 0n;
}
