import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  NETWORK_IDS,
  type OperatorIssuedMerchantKey,
  type OperatorMerchantKey,
  validateWalletAddress,
} from '@cryptocheckout/core';
import type { MerchantKeyRepository, MerchantKeyRow } from '../db/merchant-key-repository.js';
import { bearerMatches } from '../operator-token.js';
import type { FailedCredentials } from './failed-credentials.js';
import { ServiceProblem } from './service-problem.js';

/** Who asks to create or cancel a refund: the operator, or a shop through the key it was issued. */
export type RefundActor =
  | { kind: 'operator' }
  | { kind: 'merchant'; keyId: string; label: string; wallets: ReadonlySet<string> };

/** How an actor is written in a refund's record ("operator token", "merchant key <label>"). */
export function actorName(actor: RefundActor): string {
  return actor.kind === 'operator' ? 'operator token' : `merchant key ${actor.label}`;
}

/** True when `actor` may refund an order paid to `walletAddress`. */
export function actorMayRefund(actor: RefundActor, walletAddress: string): boolean {
  return actor.kind === 'operator' || actor.wallets.has(walletKey(walletAddress));
}

/** Most wallets one key may name. */
const MAXIMUM_WALLETS = 20;

/**
 * Merchant keys (docs/refunds.md): issued by the operator for a shop's wallets, shown once, stored
 * as their SHA-256; they allow creating and cancelling refunds of orders paid to those wallets only.
 */
export class MerchantKeys {
  constructor(
    private readonly repository: MerchantKeyRepository,
    private readonly operatorToken: string,
    private readonly clock: () => Date,
    private readonly failedCredentials: FailedCredentials,
  ) {}

  /**
   * The actor an `Authorization` header names.
   * @throws ServiceProblem `unauthorized` without a header, or with a token that is neither the
   *   operator token nor a live merchant key.
   */
  async authenticate(header: string | undefined, clientIp: string): Promise<RefundActor> {
    this.failedCredentials.assertMayTry(clientIp);
    if (bearerMatches(header, this.operatorToken)) return { kind: 'operator' };
    const offered = /^Bearer\s+(ccm_[A-Za-z0-9_-]{20,100})\s*$/i.exec(header ?? '')?.[1];
    const row = offered ? await this.repository.byHash(hashOf(offered)) : undefined;
    if (!row || row.revoked_at !== null) {
      if (header) this.failedCredentials.failed(clientIp, offered ? 'merchant key' : 'operator token');
      throw new ServiceProblem(
        'unauthorized',
        header
          ? 'This credential is not accepted: use the operator token or a merchant key the operator issued (and has not revoked).'
          : 'Creating or cancelling a refund needs the header Authorization: Bearer <merchant key or operator token>.',
      );
    }
    await this.repository.touch(row.key_id, this.clock().toISOString());
    return {
      kind: 'merchant',
      keyId: row.key_id,
      label: row.label,
      wallets: new Set(walletsOf(row).map(walletKey)),
    };
  }

  /**
   * Issues a key for `walletAddresses`; the answer is the only place the key is ever shown.
   * @throws ServiceProblem `invalid_request` naming `label` or `wallet_addresses`.
   */
  async issue(label: unknown, walletAddresses: unknown): Promise<OperatorIssuedMerchantKey> {
    if (typeof label !== 'string' || label.trim() === '' || label.length > 80 || /[\p{Cc}]/u.test(label)) {
      throw new ServiceProblem(
        'invalid_request',
        'label must be 1 to 80 printable characters naming the shop, such as "example.com".',
        'label',
      );
    }
    const wallets = checkedWallets(walletAddresses);
    const key = `ccm_${randomBytes(32).toString('base64url')}`;
    const row: MerchantKeyRow = {
      key_id: randomUUID(),
      label: label.trim(),
      key_hash: hashOf(key),
      wallet_addresses: JSON.stringify(wallets),
      created_at: this.clock().toISOString(),
      revoked_at: null,
      last_used_at: null,
    };
    await this.repository.insert(row);
    return { ...keyView(row), key };
  }

  async list(): Promise<OperatorMerchantKey[]> {
    return (await this.repository.all()).map(keyView);
  }

  /** @throws ServiceProblem `not_found` for an unknown key id. */
  async revoke(keyId: string): Promise<OperatorMerchantKey> {
    await this.repository.revoke(keyId, this.clock().toISOString());
    const row = await this.repository.find(keyId);
    if (!row) throw new ServiceProblem('not_found', `No merchant key ${keyId}.`);
    return keyView(row);
  }
}

function checkedWallets(walletAddresses: unknown): string[] {
  const problem = (message: string) => new ServiceProblem('invalid_request', message, 'wallet_addresses');
  if (
    !Array.isArray(walletAddresses) ||
    walletAddresses.length === 0 ||
    walletAddresses.length > MAXIMUM_WALLETS
  ) {
    throw problem(
      `wallet_addresses must list 1 to ${MAXIMUM_WALLETS} wallet addresses the shop is paid to (the key may refund only orders paid to them).`,
    );
  }
  return walletAddresses.map((address, index) => {
    const text = typeof address === 'string' ? address.trim() : '';
    // Any network's format: a key names wallets, not networks.
    for (const network of NETWORK_IDS) {
      const validation = validateWalletAddress(network, text);
      if (validation.valid) return validation.address;
    }
    throw problem(`wallet_addresses[${index}] is not a wallet address of any supported network.`);
  });
}

function walletsOf(row: MerchantKeyRow): string[] {
  return JSON.parse(row.wallet_addresses) as string[];
}

/** EVM addresses compare without their checksum case; other formats exactly. */
function walletKey(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;
}

function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function keyView(row: MerchantKeyRow): OperatorMerchantKey {
  return {
    key_id: row.key_id,
    label: row.label,
    wallet_addresses: walletsOf(row),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}
