import { getNetwork, validateWalletAddress } from '@cryptocheckout/core';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58, bech32, createBase58check } from '@scure/base';

const base58check = createBase58check(sha256);

/**
 * A well-formed address for the network, derived deterministically from a seed. Sandbox deposit
 * addresses are made this way: they validate like real ones but nobody holds their keys, so they
 * must never be shown outside sandbox mode.
 */
export function derivedAddress(network: string, seed: string): string {
  const family = getNetwork(network)?.family;
  const digest = sha256(utf8ToBytes(`cryptocheckout-sandbox:${network}:${seed}`));
  switch (family) {
    case 'evm': {
      const check = validateWalletAddress(network, `0x${bytesToHex(digest.slice(0, 20))}`);
      if (!check.valid) throw new Error(check.message);
      return check.address;
    }
    case 'bitcoin':
      return bech32.encode('bc', [0, ...bech32.toWords(digest.slice(0, 20))]);
    case 'tron':
      return base58check.encode(Uint8Array.from([0x41, ...digest.slice(0, 20)]));
    case 'solana':
      return base58.encode(digest);
    default:
      throw new Error(`Unknown network ${network}`);
  }
}
