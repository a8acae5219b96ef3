import { getNetwork } from '@cryptocheckout/core';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, createBase58check } from '@scure/base';
import type { Kysely } from 'kysely';
import type { ResolvedConfig } from '../config.js';
import { DepositRepository } from '../db/deposit-repository.js';
import type { DatabaseSchema } from '../db/schema.js';
import { isBitcoinExtendedKey } from '../rails/bitcoin/bitcoin-keys.js';
import type { PaymentRailProvider } from '../rails/payment-rail-provider.js';

/**
 * Why a well-formed address cannot take a refund (docs/refunds.md "The buyer's claim page"): the
 * zero (burn) address, a token contract, a Solana token account (live mode asks the chain), an address of this service (a deposit factory or a
 * deposit address it issued), or the shop's own wallet. Money sent to any of them never reaches
 * the buyer, and the merchant's transfer cannot be taken back.
 */
export type RefundAddressRefusal =
  | 'zero_address'
  | 'token_contract'
  | 'token_account'
  | 'extended_key'
  | 'service_address'
  | 'shop_wallet';

const ZERO_20 = new Uint8Array(20);
const base58check = createBase58check(sha256);

/** The zero (burn) address of each family, in the canonical form `validateWalletAddress` gives. */
const ZERO_ADDRESSES: ReadonlySet<string> = new Set([
  `0x${'0'.repeat(40)}`,
  base58check.encode(Uint8Array.from([0x41, ...ZERO_20])),
  // Solana's system program (32 zero bytes): a program, not a wallet.
  base58.encode(new Uint8Array(32)),
  base58check.encode(Uint8Array.from([0x00, ...ZERO_20])),
  base58check.encode(Uint8Array.from([0x05, ...ZERO_20])),
  bech32.encode('bc', [0, ...bech32.toWords(ZERO_20)]),
  bech32.encode('bc', [0, ...bech32.toWords(new Uint8Array(32))]),
]);

/** What the check needs to know of the refund. */
export interface RefundAddressContext {
  network: string;
  /** The order's wallet: the shop's own. */
  shopWallet: string;
}

/**
 * Checks addresses buyers confirm for refunds against what the service knows cannot receive one.
 * Takes the canonical address (`validateWalletAddress`'s `address`).
 */
export class RefundAddressCheck {
  private readonly deposits: DepositRepository;

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly config: ResolvedConfig,
    /** Live mode's rails, which can tell a Solana token account from a wallet. */
    private readonly rails?: Pick<PaymentRailProvider, 'isTokenAccount'>,
  ) {
    this.deposits = new DepositRepository(db);
  }

  /** Why `address` cannot take the refund, or undefined when nothing the service knows refuses it. */
  async refusal(context: RefundAddressContext, address: string): Promise<RefundAddressRefusal | undefined> {
    const family = getNetwork(context.network)?.family;
    // EVM addresses are one address whatever their letter case; the others are case-sensitive.
    const key = (value: string) => (family === 'evm' ? value.toLowerCase() : value);
    const wanted = key(address);
    if (ZERO_ADDRESSES.has(wanted)) return 'zero_address';
    // A merchant's receiving key is valid as a wallet, but a refund goes to one address.
    if (family === 'bitcoin' && isBitcoinExtendedKey(address)) return 'extended_key';
    if (this.tokenContracts(context.network).some((contract) => key(contract) === wanted)) {
      return 'token_contract';
    }
    if (key(context.shopWallet) === wanted) return 'shop_wallet';
    if (await this.isServiceAddress(context.network, address, family === 'evm')) return 'service_address';
    if (this.config.mode === 'live' && (await this.rails?.isTokenAccount?.(context.network, address))) {
      return 'token_account';
    }
    return undefined;
  }

  /** Every token contract (or mint) the network is known to have: the catalogue's and the configured ones. */
  private tokenContracts(network: string): string[] {
    const catalogue = (getNetwork(network)?.assets ?? []).flatMap((asset) =>
      asset.contract ? [asset.contract] : [],
    );
    const live = this.config.liveNetworks.find((each) => each.network === network);
    const solanaMints =
      network === 'SOLANA' ? (this.config.solana?.assets.flatMap((asset) => asset.mint ?? []) ?? []) : [];
    return [...catalogue, ...(live?.tokens.map((token) => token.contract) ?? []), ...solanaMints];
  }

  /**
   * The deposit factory of the network, a forwarder issued to a checkout (live deposit mode), or a
   * sandbox deposit address (derived, owned by nobody).
   */
  private async isServiceAddress(network: string, address: string, evm: boolean): Promise<boolean> {
    const lower = address.toLowerCase();
    const live = this.config.liveNetworks.find((each) => each.network === network);
    if (evm && live?.depositFactory === lower) return true;
    if (evm && (await this.deposits.forwardersAt(network, [lower])).size > 0) return true;
    if (this.config.mode !== 'sandbox') return false;
    // Stored as the rail gave it: EIP-55 on EVM networks, canonical elsewhere.
    const found = await this.db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('address', 'in', evm ? [address, lower] : [address])
      .limit(1)
      .executeTakeFirst();
    return found !== undefined;
  }
}
