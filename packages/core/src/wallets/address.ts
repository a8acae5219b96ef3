/**
 * Wallet address validation, shared with the PHP port through `vectors/addresses.json`.
 *
 * Checks run in this order and the first failure wins:
 * 1. `unknown_network`: the network is not an id of the catalog (exact, uppercase).
 * 2. `empty`: the address is the empty string.
 * 3. `whitespace`: the address holds a space, tab, line break, no-break space, zero-width character
 *    or byte-order mark anywhere (see WHITESPACE). Nothing is trimmed here: callers trim user input.
 * 4. The address family of the network decides (EVM, TRON, Solana, Bitcoin; each check lists its own order).
 * 5. When that fails but the address is valid in another family, the answer is `wrong_network`
 *    with `detectedNetwork` ('EVM' for any EVM chain, else 'TRON', 'SOLANA' or 'BITCOIN').
 * An EVM address is valid on every EVM network; EVM testnets share mainnet addresses and cannot be told apart.
 * On BITCOIN a receiving key is valid too: an xpub, ypub or zpub, or a single-key descriptor of one
 * (bitcoin-keys.ts), kept as entered; a private key anywhere in the text is refused as `private_key`.
 */
import { checkBitcoinAddress } from './bitcoin.js';
import { checkEvmAddress } from './evm.js';
import type { AddressProblemCode, FamilyCheck } from './family-check.js';
import { getNetwork, NETWORK_IDS, type NetworkFamily } from './networks.js';
import { checkSolanaAddress } from './solana.js';
import { checkTronAddress } from './tron.js';

export type { AddressProblemCode } from './family-check.js';

/** Result of validating a wallet address; `address` is the canonical form to store (EIP-55 for EVM, lowercase bech32). */
export type AddressValidation =
  | { valid: true; address: string }
  | { valid: false; code: AddressProblemCode; message: string; detectedNetwork?: string };

// ASCII whitespace, Unicode spaces, and the invisible characters that copy-paste brings along
// (zero-width space/joiners, word joiner, byte-order mark). The PHP port uses the same list.
const WHITESPACE =
  /[\t\n\v\f\r \u0085\u00a0\u1680\u180e\u2000-\u200d\u2028\u2029\u202f\u205f\u2060\u3000\ufeff]/u;

interface FamilyProfile {
  readonly check: (address: string) => FamilyCheck;
  /** Value of `detectedNetwork` when an address of this family is given for another network. */
  readonly detected: string;
  /** How messages name an address of this family ("a TRON address"). */
  readonly described: string;
}

// The families' formats are disjoint, so at most one accepts a given address and the order never changes an answer.
const FAMILIES: Readonly<Record<NetworkFamily, FamilyProfile>> = {
  evm: {
    check: checkEvmAddress,
    detected: 'EVM',
    described: 'an EVM address (Ethereum, Polygon, Base, Arbitrum, BSC)',
  },
  tron: { check: checkTronAddress, detected: 'TRON', described: 'a TRON address' },
  solana: { check: checkSolanaAddress, detected: 'SOLANA', described: 'a Solana address' },
  bitcoin: { check: checkBitcoinAddress, detected: 'BITCOIN', described: 'a Bitcoin address' },
};
const FAMILY_ORDER: readonly NetworkFamily[] = ['evm', 'tron', 'solana', 'bitcoin'];

/**
 * Validates `address` as a mainnet receiving address on `network` (a catalog id such as "POLYGON").
 * Strict: no trimming, no case folding except what the address format itself allows.
 */
export function validateWalletAddress(network: string, address: string): AddressValidation {
  const info = getNetwork(network);
  if (info === undefined) {
    return {
      valid: false,
      code: 'unknown_network',
      message: `Unknown network ${JSON.stringify(String(network))}. Use one of: ${NETWORK_IDS.join(', ')}.`,
    };
  }
  if (typeof address !== 'string' || address === '') {
    return { valid: false, code: 'empty', message: 'Enter the wallet address.' };
  }
  if (WHITESPACE.test(address)) {
    return {
      valid: false,
      code: 'whitespace',
      message:
        'The address contains spaces or invisible characters. Remove them, or copy the address again from your wallet.',
    };
  }
  const own = FAMILIES[info.family].check(address);
  if (own.ok) return { valid: true, address: own.canonical };

  for (const family of FAMILY_ORDER) {
    if (family === info.family) continue;
    const profile = FAMILIES[family];
    if (profile.check(address).ok) {
      return {
        valid: false,
        code: 'wrong_network',
        message: `This is ${profile.described}, but the network is ${info.id}. Choose the network your wallet uses, or enter a ${info.name} address.`,
        detectedNetwork: profile.detected,
      };
    }
  }
  return { valid: false, code: own.code, message: own.message };
}
