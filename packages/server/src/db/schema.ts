import type { Generated } from 'kysely';

/** Tables of the service. Amounts are decimal strings, times ISO 8601 UTC strings (sortable as text). */
export interface DatabaseSchema {
  transactions: TransactionsTable;
  payments: PaymentsTable;
  deposit_addresses: DepositAddressesTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_attempts: WebhookAttemptsTable;
  amount_holds: AmountHoldsTable;
  chain_cursors: ChainCursorsTable;
  chain_transfers: ChainTransfersTable;
  transaction_events: TransactionEventsTable;
  deposit_forwarders: DepositForwardersTable;
  forwards: ForwardsTable;
  forward_attempts: ForwardAttemptsTable;
  forwarder_leases: ForwarderLeasesTable;
  refunds: RefundsTable;
  refund_events: RefundEventsTable;
  merchant_keys: MerchantKeysTable;
  refund_transfers: RefundTransfersTable;
  rate_quotes: RateQuotesTable;
  rate_source_status: RateSourceStatusTable;
  solana_references: SolanaReferencesTable;
  solana_cursors: SolanaCursorsTable;
  solana_watched_wallets: SolanaWatchedWalletsTable;
  bitcoin_wallets: BitcoinWalletsTable;
  bitcoin_scripts: BitcoinScriptsTable;
  bitcoin_blocks: BitcoinBlocksTable;
  asset_rate_locks: AssetRateLocksTable;
}

export interface TransactionsTable {
  transaction_code: string;
  status: string;
  external_reference: string;
  fiat_amount: string;
  fiat_currency: string;
  usd_rate: string;
  rate_source: string;
  amount_in_usd: string;
  received_usd: string;
  webhook_url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  wallet_address: string;
  wallet_currency: string;
  wallet_network: string;
  payout_dispatched: number;
  payment_method: string | null;
  late: number;
  created_at: string;
  expires_at: string;
  monitor_until: string;
  settled_at: string | null;
  /** Optimistic concurrency: every update must name the version it read. */
  version: number;
  /** 1 in deposit mode: payout_dispatched follows the forwards of the checkout's deposits. */
  payout_by_forward: Generated<number>;
  /** The locked rate's sources by name, comma-separated; null for checkouts made before live prices. */
  rate_sources: string | null;
  /** The oldest publication time among those sources. */
  rate_as_of: string | null;
  /** The spread included in `usd_rate`, in percent. */
  rate_spread_percent: string | null;
  /** How far short of `amount_in_usd` confirmed payments may be and still settle, in percent (docs/rates.md "Payment tolerance"). */
  payment_tolerance_percent: Generated<string>;
}

export interface PaymentsTable {
  payment_id: string;
  transaction_code: string;
  payment_method: string;
  asset: string;
  network: string | null;
  amount: string;
  amount_usd: string;
  tx_id: string;
  seen_at: string;
  /** When the payment becomes final; unconfirmed payments only move the status to `processing`. */
  confirm_at: string;
  confirmed: number;
}

export interface DepositAddressesTable {
  transaction_code: string;
  payment_method: string;
  address: string;
  created_at: string;
}

export interface WebhookOutboxTable {
  delivery_id: string;
  transaction_code: string;
  url: string;
  body: string;
  state: string;
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  created_at: string;
  finished_at: string | null;
  /** The delivery this row resends (an operator's request), else null. */
  resend_of: string | null;
  /** Unique while set: `<resend_of>#<resends of it finished before>`, so one resend of a delivery is pending at a time. */
  resend_key: string | null;
}

export interface WebhookAttemptsTable {
  attempt_id: string;
  delivery_id: string;
  attempt_number: number;
  attempted_at: string;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
}

/** Live mode: the exact amount a checkout asks for by one rail, unique per wallet while held. */
export interface AmountHoldsTable {
  network: string;
  asset: string;
  /** Lowercase hex, as chain logs carry it. */
  wallet_address: string;
  /** The amount in the token's base units; bigint comes back as a string from PostgreSQL. */
  amount_base_units: number | string | bigint;
  amount: string;
  transaction_code: string;
  payment_method: string;
  /** The end of the checkout's late-payment window. */
  held_until: string;
}

/** Live mode: the last block each network's watcher has scanned. */
export interface ChainCursorsTable {
  network: string;
  block_number: number | string | bigint;
  block_hash: string;
  block_time: string;
  updated_at: string;
}

/** Live mode: token transfers to watched wallets, matched to a checkout or not. */
export interface ChainTransfersTable {
  network: string;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  block_hash: string;
  block_time: string;
  token_contract: string;
  asset: string;
  from_address: string;
  to_address: string;
  /** Decimal string in the token's units. */
  amount: string;
  transaction_code: string | null;
  payment_id: string | null;
  /** Why a transfer matched no checkout; null when it did. */
  unmatched_reason: string | null;
  confirmed: number;
  recorded_at: string;
  /** 1 for a transfer into a deposit address (it is forwarded to the merchant). */
  deposit: Generated<number>;
  /** 1 once the transfer may be forwarded: the asked asset at once, another token on an operator's approval. */
  forward_approved: Generated<number>;
  /** The forward carrying this deposit to the merchant, once one does. */
  forward_id: string | null;
  /** An operator's decision on the transfer: `attached` to a checkout, `handled` outside, `forward`. */
  resolution: string | null;
  resolved_at: string | null;
  resolution_note: string | null;
}

/** One status change of a transaction, written in the same database transaction as the change. */
export interface TransactionEventsTable {
  transaction_code: string;
  /** The row version the change wrote; unique per transaction. */
  version: number;
  at: string;
  from_status: string;
  to_status: string;
  late: number;
}

/** Deposit mode: a checkout's forwarder address on a network (docs/deposit-mode.md). */
export interface DepositForwardersTable {
  network: string;
  /** Lowercase hex, as chain logs carry it. */
  address: string;
  transaction_code: string;
  payment_method: string;
  /** The merchant's wallet the forwarder pays, lowercase hex. */
  merchant: string;
  /** The CREATE2 salt, 0x-prefixed 32 bytes. */
  salt: string;
  factory: string;
  created_at: string;
}

/** Deposit mode: one forward transaction of a sweeper nonce, with what it carries. */
export interface ForwardsTable {
  forward_id: string;
  network: string;
  sweeper: string;
  nonce: number | string | bigint;
  /** `sending` (signed, maybe sent), `mined`, `confirmed`, `failed`. */
  state: string;
  /** JSON: the deposits (address, token, merchant, salt, amount) the forward pays out. */
  items: string;
  created_at: string;
  updated_at: string;
  /** The attempt that was mined, once one is. */
  tx_hash: string | null;
  block_number: number | string | bigint | null;
  block_hash: string | null;
  gas_used: number | string | bigint | null;
  error: string | null;
}

/** Deposit mode: a signed version of a forward (the first, then each fee bump), stored before it is sent. */
export interface ForwardAttemptsTable {
  tx_hash: string;
  forward_id: string;
  raw_transaction: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  signed_at: string;
}

/** Deposit mode: the server node that sends forwards on a network, until when. */
export interface ForwarderLeasesTable {
  network: string;
  holder: string;
  until: string;
}

/** A refund of a settled transaction (docs/refunds.md). */
export interface RefundsTable {
  refund_id: string;
  transaction_code: string;
  /** 1, 2, … per transaction; unique, so concurrent creations are ordered. */
  sequence: number;
  reference: string | null;
  status: string;
  /** Decimal string in `asset` units. */
  amount: string;
  asset: string;
  network: string;
  fiat_amount: string | null;
  fiat_currency: string;
  reason: string | null;
  claim_code: string;
  claim_expires_at: string;
  address: string | null;
  address_confirmed_at: string | null;
  tx_id: string | null;
  paid_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  created_by: string;
  cancelled_by: string | null;
  /** Optimistic concurrency: every status change names the version it read. */
  version: number;
}

/** Each status a refund entered, once, with when and why. */
export interface RefundEventsTable {
  refund_id: string;
  status: string;
  at: string;
  note: string | null;
}

/** A key the operator issued to a shop: it may create and cancel refunds of orders paid to its wallets. */
export interface MerchantKeysTable {
  key_id: string;
  label: string;
  /** SHA-256 (hex) of the key; the key itself is shown once. */
  key_hash: string;
  /** JSON array of wallet addresses as given (canonical form). */
  wallet_addresses: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** Live mode: a token transfer to a refund's confirmed address. */
export interface RefundTransfersTable {
  network: string;
  tx_hash: string;
  log_index: number;
  block_number: number | string | bigint;
  block_hash: string;
  block_time: string;
  refund_id: string;
  from_address: string;
  amount: string;
  exact: number;
  confirmed: number;
  recorded_at: string;
}

/** Live prices: a source's newest value for one currency or asset (docs/rates.md). */
export interface RateQuotesTable {
  source: string;
  code: string;
  kind: 'fiat' | 'asset';
  usd_per_unit: string;
  /** When the source published it. */
  as_of: string;
  /** Until when the source's own rhythm lets it be used. */
  fresh_until: string;
  fetched_at: string;
}

/** Live prices: how a source's last attempts went, as the node that made them saw it. */
export interface RateSourceStatusTable {
  source: string;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
}

/** A Solana Pay reference handed out for a checkout's rail (docs/solana.md). */
export interface SolanaReferencesTable {
  reference: string;
  transaction_code: string;
  payment_method: string;
  wallet_address: string;
  created_at: string;
  /** The checkout's monitor_until: the wallet is watched for it until then. */
  monitor_until: string;
}

/** The newest finalized signature the Solana watcher read for an address. */
export interface SolanaCursorsTable {
  address: string;
  signature: string;
  slot: number | string | bigint;
  updated_at: string;
}

/** A merchant wallet and rail the Solana watcher follows until `monitor_until`, since `since`. */
export interface SolanaWatchedWalletsTable {
  wallet_address: string;
  payment_method: string;
  /** When the oldest reference of the current watch was handed out: no payment is older. */
  since: string;
  /** The latest monitor_until of its checkouts. */
  monitor_until: string;
}

/** A merchant's Bitcoin extended public key and the next receive index to derive (docs/bitcoin.md). */
export interface BitcoinWalletsTable {
  wallet_id: string;
  /** The key or descriptor as the merchant entered it. */
  wallet: string;
  scheme: string;
  next_index: number;
  highest_paid_index: number | null;
  created_at: string;
}

/** An output script the Bitcoin watcher looks for in blocks and the mempool. */
export interface BitcoinScriptsTable {
  script_hex: string;
  address: string;
  /** The extended key's id, or the plain address itself. */
  wallet_id: string;
  /** The receive index derived for a checkout; null for a plain merchant address. */
  derivation_index: number | null;
  /** The checkout it was derived for; null for a plain merchant address (matched by amount holds). */
  transaction_code: string | null;
  payment_method: string | null;
  created_at: string;
  /** The latest monitor_until of the checkouts it was handed out for. */
  monitor_until: string;
}

/** A block the Bitcoin watcher scanned, to tell a reorganisation by its hash. */
export interface BitcoinBlocksTable {
  height: number;
  hash: string;
  scanned_at: string;
}

/** The USD price of a volatile asset a checkout was quoted at by one rail, held for its window (docs/rates.md). */
export interface AssetRateLocksTable {
  transaction_code: string;
  payment_method: string;
  asset: string;
  usd_per_unit: string;
  locked_at: string;
}
