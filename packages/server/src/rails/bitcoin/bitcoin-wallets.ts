import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.js';
import { addressOfScript, type BitcoinChain, parseBitcoinReceiver } from './bitcoin-keys.js';

/** The id a merchant's Bitcoin wallet is stored under: its extended key's id, or the address itself. */
export function bitcoinWalletId(wallet: string): string {
  const receiver = parseBitcoinReceiver(wallet);
  return receiver.kind === 'extended_key' ? receiver.id : wallet;
}

/**
 * Whether `address` (as the watcher stored it: encoded for the node's chain) was handed out for the
 * merchant wallet `wallet`: derived from its key, or the plain address itself.
 */
export async function bitcoinAddressOfWallet(
  db: Kysely<DatabaseSchema>,
  address: string,
  wallet: string,
): Promise<boolean> {
  let walletId: string;
  try {
    walletId = bitcoinWalletId(wallet);
  } catch {
    return false;
  }
  const found = await db
    .selectFrom('bitcoin_scripts')
    .select('wallet_id')
    .where('address', '=', address)
    .where('wallet_id', '=', walletId)
    .executeTakeFirst();
  return found !== undefined;
}

/** Receive addresses shown for an extended key, to check against the wallet software's own list. */
const ADDRESSES_SHOWN = 3;

/**
 * What a Bitcoin wallet entry is, in words, and for an extended key its first receive addresses on
 * `chain`; `problem` when it cannot be used (a key that is not a point on the curve).
 */
export function describeBitcoinWallet(
  wallet: string,
  chain: BitcoinChain,
):
  | { kind: 'address' | 'extended_key'; description: string; first_addresses: string[] }
  | { problem: string } {
  let receiver: ReturnType<typeof parseBitcoinReceiver>;
  try {
    receiver = parseBitcoinReceiver(wallet);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  if (receiver.kind === 'address') {
    return {
      kind: 'address',
      description: 'a Bitcoin address: buyers pay exact amounts',
      first_addresses: [],
    };
  }
  return {
    kind: 'extended_key',
    description: `${receiver.description}: each checkout gets the next receive address`,
    first_addresses: Array.from({ length: ADDRESSES_SHOWN }, (_, index) =>
      addressOfScript(receiver.scriptAt(index), chain),
    ),
  };
}
