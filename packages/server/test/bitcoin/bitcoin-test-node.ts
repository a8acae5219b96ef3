/**
 * A throw-away Bitcoin node for the Bitcoin watcher's tests: an in-process loopback HTTP server
 * answering the Bitcoin Core JSON-RPC calls the watcher makes, in Core's shapes, over a chain of
 * real blocks holding real transactions.
 *
 * Every transaction is built and signed with @scure/btc-signer (p2wpkh inputs, BIP143 signatures);
 * every block is a real serialized block: 80-byte header (version 0x20000000, previous block hash,
 * merkle root over the txids, time, bits 0x207fffff, nonce; no proof of work), the coinbase (BIP34
 * height in its scriptSig, BIP141 witness commitment) and the transactions in witness serialization.
 * Block hashes and txids are double-SHA256, shown byte-reversed as Core does. Height 0 is the
 * chain's real genesis block (regtest or main), so getblockhash(0) answers Core's genesis hash.
 *
 * Like Core without -txindex: getrawtransaction finds mempool transactions, and mined ones only
 * when given the block hash. Blocks of a branch a reorganisation left stay retrievable by hash
 * (getblockheader answers confirmations -1 for them). What the node does not check: proof of work,
 * coinbase maturity of the faucet's coins when none has matured yet, and standardness (dust, fee
 * rates) of what the test-side controls build.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  Address,
  CompactSize,
  NETWORK,
  OutScript,
  p2wpkh,
  RawTx,
  Script,
  SigHash,
  Transaction,
  WIF,
} from '@scure/btc-signer';
import {
  type BTC_NETWORK,
  concatBytes,
  pubECDSA,
  pubSchnorr,
  randomPrivateKeyBytes,
  sha256x2,
  signECDSA,
} from '@scure/btc-signer/utils.js';

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

export type BitcoinChain = 'regtest' | 'main';

/** Address parameters of regtest (Core's chainparams): bech32 'bcrt', P2PKH 0x6f, P2SH 0xc4, WIF 0xef. */
export const REGTEST_NETWORK: BTC_NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

/** btc-signer network parameters of `chain` (mainnet: btc-signer's NETWORK). */
export function networkOf(chain: BitcoinChain): BTC_NETWORK {
  return chain === 'main' ? NETWORK : REGTEST_NETWORK;
}

export interface BitcoinTestNodeOptions {
  /** What getblockchaininfo's `chain` says, the genesis block and the address prefixes (default 'regtest'). */
  chain?: BitcoinChain;
  /** HTTP Basic credentials the RPC endpoint requires (both or neither); without them any request is served. */
  user?: string;
  password?: string;
  /** Blocks mined at start on top of genesis (default 101: two coinbases are spendable). */
  startHeight?: number;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
}

/** A payer's wallet: one p2wpkh key. */
export interface Buyer {
  readonly address: string;
  /** Its output script (0014<hash160>). */
  readonly script: Uint8Array;
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
  /** The private key in WIF for the node's chain. */
  readonly wif: string;
  /** The transaction that funded it (mined in a block of its own by newBuyer). */
  readonly fundingTxid: string;
}

/** An output to pay: an output script, or an address of the node's chain. */
export interface PaymentOutput {
  script?: Uint8Array;
  address?: string;
  sats: bigint;
}

export type OutageMode = 'down' | 'error' | 'warmup' | 'slow';

export interface BitcoinTestNode {
  /** http://user:password@127.0.0.1:<port>/ (credentials in the URL when set). */
  readonly url: string;
  /** The same endpoint without credentials: http://127.0.0.1:<port>/. */
  readonly endpoint: string;
  /** The Authorization header value the endpoint requires, if any ('Basic …'). */
  readonly authorization: string | undefined;
  readonly port: number;
  readonly chain: BitcoinChain;
  /** btc-signer network parameters of the chain (addresses, WIF). */
  readonly network: BTC_NETWORK;
  tipHeight(): number;
  tipHash(): string;
  /** Txids in the mempool, in the order getrawmempool lists them (read directly: no RPC call counted). */
  mempool(): string[];
  /** Raw hex (witness serialization) of any transaction the node ever built, whatever its state. */
  transactionHex(txid: string): string | undefined;
  /** Raw hex of any block the node ever built, orphaned or not. */
  blockHex(hash: string): string | undefined;
  /** A fresh p2wpkh address of the node's chain nobody holds the key of (the node keeps none). */
  randomAddress(): string;
  /** Sats the buyer can spend: outputs in the active chain, plus mempool ones unless `confirmedOnly`. */
  balance(buyer: Buyer, options?: { confirmedOnly?: boolean }): bigint;
  /**
   * A buyer's wallet: a p2wpkh key funded with `sats` (default 1 BTC) by a transaction from the node's
   * miner wallet, mined at once in a block of its own (the tip moves by one; the mempool stays as it was).
   */
  newBuyer(sats?: bigint): Buyer;
  /**
   * Signs and puts into the mempool a transaction from `buyer` paying `outputs` (in that order), then
   * change back to the buyer when it is 294 sats or more (less goes to the fee), fee `feeSats`
   * (default 500). Spends the buyer's confirmed coins first, then its unconfirmed change.
   * `replaceable` sets nSequence 0xfffffffd on every input (BIP125), else 0xffffffff.
   * @throws when the buyer cannot pay, or an address is not one of the node's chain.
   */
  pay(
    buyer: Buyer,
    outputs: PaymentOutput[],
    options?: { feeSats?: bigint; replaceable?: boolean },
  ): TxResult;
  /**
   * RBF (full-RBF, as Core 28+ by default: the original need not signal): a transaction spending
   * exactly the inputs of mempool transaction `txid` (same nSequence), paying `outputs` then change
   * to the owner of the first input, fee `feeSats` (default: the original's + 1000). The original and
   * its mempool descendants leave the mempool.
   * @throws when `txid` is not in the mempool, or the fee does not exceed what the replaced pay.
   */
  replace(txid: string, outputs: PaymentOutput[], options?: { feeSats?: bigint }): TxResult;
  /**
   * A conflicting transaction spending the inputs of transaction `txid` (in the mempool, or one that
   * left it: evicted, dropped by a reorg) — by default everything minus the fee back to the owner of
   * its first input; fee `feeSats` (default: the original's + 1000). Unless `mine: false` it is mined
   * at once in a new block holding only it (never seen in the mempool, as from a miner's private
   * pool); otherwise it replaces the original in the mempool. Either way the original and its
   * descendants leave the mempool.
   * @throws when `txid` is mined in the active chain (use reorg) or its inputs are spent there.
   */
  doubleSpend(
    txid: string,
    options?: { outputs?: PaymentOutput[]; feeSats?: bigint; mine?: boolean },
  ): { txid: string; hex: string; blockHash?: string };
  /**
   * Mines `count` blocks (default 1). The first takes the whole mempool, or only `include` (with
   * their unconfirmed ancestors; a transaction that left the mempool may be named too), or the
   * mempool minus `exclude` and its descendants; the others hold only their coinbase.
   * Returns the block hashes.
   */
  mine(count?: number, options?: { include?: string[]; exclude?: string[] }): string[];
  /**
   * Reorganisation: disconnects the last `depth` blocks and mines `newBlocks` (default depth + 1) on the
   * fork point. The disconnected blocks' transactions return to the mempool (ahead of what it held),
   * except `dropTransactions` (gone, with their descendants) and `includeInNewBranch` (mined in the
   * first new block, with any unconfirmed ancestors); the other new blocks hold only their coinbase.
   * Returns the new blocks' hashes. `newBlocks` below depth + 1 is allowed (as invalidateblock would).
   */
  reorg(
    depth: number,
    options?: { newBlocks?: number; dropTransactions?: string[]; includeInNewBranch?: string[] },
  ): string[];
  /** Removes a mempool transaction and its descendants (evicted / never relayed). @throws when not in the mempool. */
  evict(txid: string): void;
  /**
   * 'down': connections are destroyed (socket hang up); 'error': HTTP 500 with JSON-RPC error -32603
   * "Internal error"; 'warmup': every call answers error -28 "Loading block index…" (Core's warmup);
   * 'slow': answers are delayed by `ms` (default 1000). null: back to normal.
   */
  setOutage(mode: OutageMode | null, ms?: number): void;
  /**
   * JSON-RPC calls answered (errors included; a batch counts each call; not counted: requests
   * refused by 'down', auth or a body that is not JSON), per method and in total.
   */
  calls(): { total: number; byMethod: Record<string, number> };
  resetCalls(): void;
  /**
   * Bulk load for benchmarks: mines one block holding the mempool, then a fan-out transaction from the
   * miner's wallet and `count` transactions each spending one of its outputs to a random address
   * (p2wpkh, p2tr, p2pkh or p2sh) with change to a throw-away key, all signed (about 1.2 ms each: 3,000 in 3.5 s).
   * Returns the block hash. @throws when the block would pass 4,000,000 weight units (about 6,500).
   */
  mineFiller(count: number): string;
  /** Calls the node over HTTP like a client (counted in calls()). @throws BitcoinRpcError on a JSON-RPC error. */
  rpc<T = unknown>(method: string, params?: unknown[] | Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

export interface TxResult {
  txid: string;
  hex: string;
}

/** A JSON-RPC error answered by the node (from rpc()). */
export class BitcoinRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'BitcoinRpcError';
  }
}

// ---------------------------------------------------------------------------------------------
// Block parsing (exported for the watcher's tests)
// ---------------------------------------------------------------------------------------------

export interface ParsedTransaction {
  /** Double-SHA256 of the non-witness serialization, byte-reversed. */
  txid: string;
  /** Double-SHA256 of the witness serialization, byte-reversed. */
  wtxid: string;
  hex: string;
  /** Decoded by btc-signer (unknown output scripts allowed). */
  tx: Transaction;
}

export interface ParsedBlock {
  /** Double-SHA256 of the 80-byte header, byte-reversed. */
  hash: string;
  header: string;
  version: number;
  previousblockhash: string;
  merkleroot: string;
  time: number;
  bits: number;
  nonce: number;
  transactions: ParsedTransaction[];
}

/** Parses a serialized block (getblock verbosity 0); every transaction is decoded by btc-signer. */
export function parseBlock(blockHex: string): ParsedBlock {
  const bytes = hexToBytes(blockHex);
  if (bytes.length < 81) throw new Error('block: shorter than a header');
  const header = bytes.subarray(0, 80);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new ByteReader(bytes, 80);
  const count = reader.varint();
  const transactions: ParsedTransaction[] = [];
  for (let i = 0; i < count; i++) {
    const start = reader.offset;
    skipTransaction(reader);
    const raw = bytes.slice(start, reader.offset);
    const tx = Transaction.fromRaw(raw, {
      allowUnknownOutputs: true,
      allowUnknownInputs: true,
      disableScriptCheck: true,
    });
    transactions.push({ txid: tx.id, wtxid: displayHash(sha256x2(raw)), hex: bytesToHex(raw), tx });
  }
  if (reader.offset !== bytes.length) throw new Error('block: bytes left after the last transaction');
  return {
    hash: displayHash(sha256x2(header)),
    header: bytesToHex(header),
    version: view.getInt32(0, true),
    previousblockhash: displayHash(header.subarray(4, 36)),
    merkleroot: displayHash(header.subarray(36, 68)),
    time: view.getUint32(68, true),
    bits: view.getUint32(72, true),
    nonce: view.getUint32(76, true),
    transactions,
  };
}

class ByteReader {
  constructor(
    private readonly bytes: Uint8Array,
    public offset: number,
  ) {}

  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new Error('block: truncated');
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  byte(): number {
    return this.take(1)[0]!;
  }

  varint(): number {
    const first = this.byte();
    const view = (n: number) => {
      const b = this.take(n);
      return new DataView(b.buffer, b.byteOffset, n);
    };
    if (first < 0xfd) return first;
    if (first === 0xfd) return view(2).getUint16(0, true);
    if (first === 0xfe) return view(4).getUint32(0, true);
    return Number(view(8).getBigUint64(0, true));
  }
}

function skipTransaction(reader: ByteReader): void {
  reader.take(4); // version
  let inputs = reader.varint();
  let segwit = false;
  if (inputs === 0) {
    // BIP144 marker 0x00, flag 0x01
    if (reader.byte() !== 1) throw new Error('block: bad segwit flag');
    segwit = true;
    inputs = reader.varint();
  }
  for (let i = 0; i < inputs; i++) {
    reader.take(36);
    reader.take(reader.varint());
    reader.take(4);
  }
  const outputs = reader.varint();
  for (let i = 0; i < outputs; i++) {
    reader.take(8);
    reader.take(reader.varint());
  }
  if (segwit) {
    for (let i = 0; i < inputs; i++) {
      const items = reader.varint();
      for (let j = 0; j < items; j++) reader.take(reader.varint());
    }
  }
  reader.take(4); // lockTime
}

// ---------------------------------------------------------------------------------------------
// Chain data
// ---------------------------------------------------------------------------------------------

const ZERO_HASH = new Uint8Array(32);
const ZERO_HEX = '00'.repeat(32);
const BLOCK_VERSION = 0x20000000;
const BLOCK_BITS = 0x207fffff;
const COIN = 100_000_000n;
const DUST_P2WPKH = 294n;
const MAX_BLOCK_WEIGHT = 4_000_000;
const SEQUENCE_FINAL = 0xffffffff;
const SEQUENCE_RBF = 0xfffffffd;
const WITNESS_COMMITMENT_HEADER = hexToBytes('6a24aa21a9ed');
const WARMUP_MESSAGE = 'Loading block index…';

/** The genesis coinbase both chains share ("The Times 03/Jan/2009 …", 50 BTC to Satoshi's key). */
const GENESIS_SCRIPT_SIG =
  '04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73';
const GENESIS_OUTPUT_SCRIPT =
  '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac';

interface ChainParams {
  readonly halving: number;
  readonly genesis: { time: number; bits: number; nonce: number; hash: string };
}

const CHAIN_PARAMS: Record<BitcoinChain, ChainParams> = {
  regtest: {
    halving: 150,
    genesis: {
      time: 1296688602,
      bits: 0x207fffff,
      nonce: 2,
      hash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
    },
  },
  main: {
    halving: 210_000,
    genesis: {
      time: 1231006505,
      bits: 0x1d00ffff,
      nonce: 2083236893,
      hash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
    },
  },
};

interface Outpoint {
  txid: string;
  vout: number;
}

interface TxRecord {
  readonly txid: string;
  readonly wtxid: string;
  /** Witness serialization when it has witnesses (as in blocks and getrawtransaction). */
  readonly raw: Uint8Array;
  readonly size: number;
  readonly strippedSize: number;
  readonly weight: number;
  readonly vsize: number;
  readonly inputs: readonly (Outpoint & { sequence: number })[];
  readonly outputs: readonly { script: Uint8Array; amount: bigint }[];
  readonly coinbase: boolean;
  readonly fee: bigint;
}

interface BlockRecord {
  readonly hash: string;
  readonly height: number;
  readonly prevHash: string;
  readonly header: Uint8Array;
  readonly version: number;
  readonly merkleRoot: string;
  readonly time: number;
  readonly bits: number;
  readonly nonce: number;
  readonly txids: readonly string[];
  readonly size: number;
  readonly strippedSize: number;
  readonly weight: number;
  readonly chainwork: bigint;
  readonly mediantime: number;
}

interface MempoolEntry {
  time: number;
  height: number;
}

interface Coin extends Outpoint {
  amount: bigint;
  script: Uint8Array;
  /** Height of the active-chain block holding it; undefined for a mempool output. */
  height: number | undefined;
  coinbase: boolean;
}

interface Key {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

const outpointKey = (o: Outpoint): string => `${o.txid}:${o.vout}`;

/** A 32-byte hash in Core's display order (byte-reversed hex). */
function displayHash(internal: Uint8Array): string {
  return bytesToHex(Uint8Array.from(internal).reverse());
}

/** Display-order hex back to the internal byte order. */
function internalHash(display: string): Uint8Array {
  return hexToBytes(display).reverse();
}

function merkleRoot(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return ZERO_HASH;
  let level = hashes;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      next.push(sha256x2(left, level[i + 1] ?? left));
    }
    level = next;
  }
  return level[0]!;
}

/** Core's GetBlockProof: ~target / (target + 1) + 1. */
function blockWork(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  const target =
    exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
  if (target === 0n) return 0n;
  return ((1n << 256n) - 1n - target) / (target + 1n) + 1n;
}

/** Core's GetDifficulty, written as UniValue writes a double (16 significant digits). */
function difficultyOf(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let difficulty = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    difficulty *= 256;
    shift++;
  }
  while (shift > 29) {
    difficulty /= 256;
    shift--;
  }
  return Number(difficulty.toPrecision(16));
}

function encodeHeader(fields: {
  version: number;
  prevHash: string;
  merkleRoot: Uint8Array;
  time: number;
  bits: number;
  nonce: number;
}): Uint8Array {
  const header = new Uint8Array(80);
  const view = new DataView(header.buffer);
  view.setInt32(0, fields.version, true);
  header.set(internalHash(fields.prevHash), 4);
  header.set(fields.merkleRoot, 36);
  view.setUint32(68, fields.time, true);
  view.setUint32(72, fields.bits, true);
  view.setUint32(76, fields.nonce, true);
  return header;
}

const randomHash160 = (): Uint8Array => new Uint8Array(randomBytes(20));
const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const sum = (values: Iterable<bigint>): bigint => {
  let total = 0n;
  for (const v of values) total += v;
  return total;
};

/** The chain, the mempool and the node's wallets; no I/O. */
class ChainState {
  readonly params: ChainParams;
  readonly network: BTC_NETWORK;
  private readonly txs = new Map<string, TxRecord>();
  /** Blocks holding each txid (several when branches differ). */
  private readonly txBlocks = new Map<string, string[]>();
  /** Every transaction spending each outpoint, whatever its state. */
  private readonly spenders = new Map<string, string[]>();
  private readonly blocks = new Map<string, BlockRecord>();
  private activeChain: string[] = [];
  private mempoolEntries = new Map<string, MempoolEntry>();
  private mempoolSequence = 0;
  /** Keys of the scripts the node can spend (miner, buyers), by script hex. */
  private readonly keys = new Map<string, Key>();
  /** Outputs paying each owned script. */
  private readonly ownedOutputs = new Map<string, Outpoint[]>();
  private readonly miner: Key & { script: Uint8Array };
  private extraNonce = 0;

  constructor(
    readonly chain: BitcoinChain,
    startHeight: number,
  ) {
    this.params = CHAIN_PARAMS[chain];
    this.network = networkOf(chain);
    const minerKey = randomPrivateKeyBytes();
    const minerPub = pubECDSA(minerKey);
    this.miner = { privateKey: minerKey, publicKey: minerPub, script: p2wpkh(minerPub, this.network).script };
    this.addKey(this.miner);
    this.connectGenesis();
    const start = nowSeconds() - startHeight * 600;
    for (let height = 1; height <= startHeight; height++) this.connectBlock([], start + height * 600);
  }

  // ---- reading -------------------------------------------------------------------------------

  tip(): BlockRecord {
    return this.blocks.get(this.activeChain[this.activeChain.length - 1]!)!;
  }

  block(hash: string): BlockRecord | undefined {
    return this.blocks.get(hash);
  }

  blockAt(height: number): BlockRecord | undefined {
    const hash = this.activeChain[height];
    return hash === undefined ? undefined : this.blocks.get(hash);
  }

  isActive(block: BlockRecord): boolean {
    return this.activeChain[block.height] === block.hash;
  }

  tx(txid: string): TxRecord | undefined {
    return this.txs.get(txid);
  }

  mempool(): string[] {
    return [...this.mempoolEntries.keys()];
  }

  mempoolEntry(txid: string): MempoolEntry | undefined {
    return this.mempoolEntries.get(txid);
  }

  get sequence(): number {
    return this.mempoolSequence;
  }

  rawBlock(block: BlockRecord): Uint8Array {
    return concatBytes(
      block.header,
      CompactSize.encode(BigInt(block.txids.length)),
      ...block.txids.map((txid) => this.txs.get(txid)!.raw),
    );
  }

  genesisCoinbaseTxid(): string {
    return this.blockAt(0)!.txids[0]!;
  }

  /** The active-chain block holding `txid`, if any. */
  activeBlockOf(txid: string): BlockRecord | undefined {
    for (const hash of this.txBlocks.get(txid) ?? []) {
      const block = this.blocks.get(hash)!;
      if (this.isActive(block)) return block;
    }
    return undefined;
  }

  /** Mempool transactions spending outputs of `txid` (children). */
  mempoolChildren(txid: string): string[] {
    const record = this.txs.get(txid);
    if (!record) return [];
    const children = new Set<string>();
    record.outputs.forEach((_, vout) => {
      for (const spender of this.spenders.get(outpointKey({ txid, vout })) ?? []) {
        if (this.mempoolEntries.has(spender)) children.add(spender);
      }
    });
    return [...children];
  }

  /** `txid`'s mempool descendants, itself excluded. */
  mempoolDescendants(txid: string): Set<string> {
    const found = new Set<string>();
    const queue = [txid];
    while (queue.length > 0) {
      for (const child of this.mempoolChildren(queue.pop()!)) {
        if (!found.has(child)) {
          found.add(child);
          queue.push(child);
        }
      }
    }
    return found;
  }

  /** `txid`'s mempool ancestors, itself excluded. */
  mempoolAncestors(txid: string): Set<string> {
    const found = new Set<string>();
    const queue = [txid];
    while (queue.length > 0) {
      for (const input of this.txs.get(queue.pop()!)?.inputs ?? []) {
        if (this.mempoolEntries.has(input.txid) && !found.has(input.txid)) {
          found.add(input.txid);
          queue.push(input.txid);
        }
      }
    }
    return found;
  }

  private spentInActiveChain(outpoint: Outpoint, except?: string): boolean {
    return (this.spenders.get(outpointKey(outpoint)) ?? []).some(
      (spender) => spender !== except && this.activeBlockOf(spender) !== undefined,
    );
  }

  private spentInMempool(outpoint: Outpoint, except?: string): boolean {
    return (this.spenders.get(outpointKey(outpoint)) ?? []).some(
      (spender) => spender !== except && this.mempoolEntries.has(spender),
    );
  }

  /** Coins of an owned script: outputs in the active chain or the mempool that nothing there spends. */
  coinsOf(script: Uint8Array): Coin[] {
    const coins: Coin[] = [];
    for (const outpoint of this.ownedOutputs.get(bytesToHex(script)) ?? []) {
      const record = this.txs.get(outpoint.txid)!;
      const block = this.activeBlockOf(outpoint.txid);
      if (!block && !this.mempoolEntries.has(outpoint.txid)) continue;
      if (this.spentInActiveChain(outpoint) || this.spentInMempool(outpoint)) continue;
      const output = record.outputs[outpoint.vout]!;
      coins.push({
        ...outpoint,
        amount: output.amount,
        script: output.script,
        height: block?.height,
        coinbase: record.coinbase,
      });
    }
    return coins;
  }

  // ---- keys and transactions -----------------------------------------------------------------

  addKey(key: Key): void {
    this.keys.set(bytesToHex(p2wpkh(key.publicKey, this.network).script), key);
  }

  /** Decodes a serialized transaction (btc-signer's RawTx) into a record; fee from the known prevouts. */
  private recordFromRaw(raw: Uint8Array, coinbase: boolean): TxRecord {
    const decoded = RawTx.decode(raw);
    const stripped = decoded.segwitFlag
      ? RawTx.encode({ ...decoded, segwitFlag: false, witnesses: undefined })
      : raw;
    const inputs = coinbase
      ? []
      : decoded.inputs.map((input) => ({
          txid: bytesToHex(input.txid),
          vout: input.index,
          sequence: input.sequence,
        }));
    const outputs = decoded.outputs.map((output) => ({ script: output.script, amount: output.amount }));
    let fee = 0n;
    if (!coinbase) {
      const spent = sum(
        inputs.map((input) => {
          const output = this.txs.get(input.txid)?.outputs[input.vout];
          if (!output) throw new Error(`unknown prevout ${outpointKey(input)}`);
          return output.amount;
        }),
      );
      fee = spent - sum(outputs.map((o) => o.amount));
      if (fee < 0n) throw new Error('transaction spends more than its inputs');
    }
    const weight = stripped.length * 3 + raw.length;
    return {
      txid: displayHash(sha256x2(stripped)),
      wtxid: displayHash(sha256x2(raw)),
      raw,
      size: raw.length,
      strippedSize: stripped.length,
      weight,
      vsize: Math.ceil(weight / 4),
      inputs,
      outputs,
      coinbase,
      fee,
    };
  }

  /** Records a transaction the node built (any state). */
  private register(record: TxRecord): void {
    if (this.txs.has(record.txid)) return;
    this.txs.set(record.txid, record);
    for (const input of record.inputs) {
      const key = outpointKey(input);
      const list = this.spenders.get(key);
      if (list) list.push(record.txid);
      else this.spenders.set(key, [record.txid]);
    }
    record.outputs.forEach((output, vout) => {
      const scriptHex = bytesToHex(output.script);
      if (!this.keys.has(scriptHex)) return;
      const list = this.ownedOutputs.get(scriptHex);
      if (list) list.push({ txid: record.txid, vout });
      else this.ownedOutputs.set(scriptHex, [{ txid: record.txid, vout }]);
    });
  }

  /**
   * Builds and signs with btc-signer a transaction spending owned p2wpkh coins (one nSequence per
   * input), paying `outputs` in order; registers it (not in the mempool yet).
   */
  buildSigned(
    coins: Coin[],
    outputs: { script: Uint8Array; amount: bigint }[],
    sequences: number[],
  ): TxRecord {
    const tx = new Transaction({ version: 2, allowUnknownOutputs: true });
    const signers = new Map<string, Key>();
    coins.forEach((coin, index) => {
      const scriptHex = bytesToHex(coin.script);
      const key = this.keys.get(scriptHex);
      if (!key) throw new Error(`no key for the output ${outpointKey(coin)}`);
      signers.set(scriptHex, key);
      tx.addInput({
        txid: coin.txid,
        index: coin.vout,
        witnessUtxo: { script: coin.script, amount: coin.amount },
        sequence: sequences[index] ?? SEQUENCE_FINAL,
      });
    });
    for (const output of outputs) tx.addOutput({ script: output.script, amount: output.amount });
    for (const key of signers.values()) tx.sign(key.privateKey);
    tx.finalize();
    const record = this.recordFromRaw(tx.extract(), false);
    this.register(record);
    return record;
  }

  /** The coins `txid` spends, each with its output. */
  spentCoins(record: TxRecord): Coin[] {
    return record.inputs.map((input) => {
      const creator = this.txs.get(input.txid)!;
      const output = creator.outputs[input.vout]!;
      return {
        txid: input.txid,
        vout: input.vout,
        amount: output.amount,
        script: output.script,
        height: this.activeBlockOf(input.txid)?.height,
        coinbase: creator.coinbase,
      };
    });
  }

  /** Picks coins of `script` worth `needed`, confirmed ones first (`preferMature`: matured coinbases before all). */
  selectCoins(script: Uint8Array, needed: bigint, preferMature = false): Coin[] {
    const tipHeight = this.tip().height;
    const rank = (coin: Coin): number => {
      if (coin.height === undefined) return 3;
      if (!preferMature) return 0;
      if (coin.coinbase) return tipHeight - coin.height + 1 >= 100 ? 0 : 2;
      return 1;
    };
    const coins = this.coinsOf(script).sort(
      (a, b) => rank(a) - rank(b) || (a.height ?? 0) - (b.height ?? 0) || Number(b.amount - a.amount),
    );
    const chosen: Coin[] = [];
    let total = 0n;
    for (const coin of coins) {
      if (total >= needed) break;
      chosen.push(coin);
      total += coin.amount;
    }
    if (total < needed) {
      const address = Address(this.network).encode(OutScript.decode(script));
      throw new Error(`${address} has ${total} spendable sats, ${needed} needed`);
    }
    return chosen;
  }

  /** A transaction from the miner's wallet paying `outputs`, change back to it. Registered, not in the mempool. */
  fromFaucet(outputs: { script: Uint8Array; amount: bigint }[]): TxRecord {
    const fee = 200n + 50n * BigInt(outputs.length);
    const needed = sum(outputs.map((o) => o.amount)) + fee;
    const coins = this.selectCoins(this.miner.script, needed, true);
    const change = sum(coins.map((c) => c.amount)) - needed;
    const all = change >= DUST_P2WPKH ? [...outputs, { script: this.miner.script, amount: change }] : outputs;
    return this.buildSigned(
      coins,
      all,
      coins.map(() => SEQUENCE_FINAL),
    );
  }

  // ---- mempool ---------------------------------------------------------------------------------

  /** Puts a registered transaction into the mempool. @throws when an input is missing or already spent. */
  acceptToMempool(txid: string): void {
    const record = this.txs.get(txid)!;
    if (this.mempoolEntries.has(txid)) return;
    if (this.activeBlockOf(txid)) throw new Error(`${txid} is already in the active chain`);
    for (const input of record.inputs) {
      if (!this.activeBlockOf(input.txid) && !this.mempoolEntries.has(input.txid)) {
        throw new Error(`${txid}: input ${outpointKey(input)} is neither confirmed nor in the mempool`);
      }
      if (this.spentInActiveChain(input, txid) || this.spentInMempool(input, txid)) {
        throw new Error(`${txid}: input ${outpointKey(input)} is already spent (txn-mempool-conflict)`);
      }
    }
    this.mempoolEntries.set(txid, { time: nowSeconds(), height: this.tip().height });
    this.mempoolSequence++;
  }

  /** Removes `txid` and its mempool descendants from the mempool. */
  removeFromMempool(txid: string): void {
    const doomed = [txid, ...this.mempoolDescendants(txid)];
    for (const id of doomed) if (this.mempoolEntries.delete(id)) this.mempoolSequence++;
  }

  /**
   * Keeps in the mempool only what the active chain allows, in order: not mined, every input created
   * by the active chain or an earlier mempool transaction, and spent by nothing there nor earlier.
   */
  private revalidateMempool(): void {
    const kept = new Map<string, MempoolEntry>();
    const spentHere = new Set<string>();
    for (const [txid, entry] of this.mempoolEntries) {
      const record = this.txs.get(txid)!;
      let valid = this.activeBlockOf(txid) === undefined;
      for (const input of valid ? record.inputs : []) {
        const key = outpointKey(input);
        const created = this.activeBlockOf(input.txid) !== undefined || kept.has(input.txid);
        if (!created || spentHere.has(key) || this.spentInActiveChain(input)) {
          valid = false;
          break;
        }
      }
      if (valid) {
        kept.set(txid, entry);
        for (const input of record.inputs) spentHere.add(outpointKey(input));
      } else {
        this.mempoolSequence++;
      }
    }
    this.mempoolEntries = kept;
  }

  /** Puts `txids` first in the mempool (transactions back from disconnected blocks), before what it held. */
  private prependToMempool(txids: string[]): void {
    const entries = new Map<string, MempoolEntry>();
    const height = this.tip().height;
    for (const txid of txids) {
      entries.set(txid, { time: nowSeconds(), height });
      this.mempoolSequence++;
    }
    for (const [txid, entry] of this.mempoolEntries) if (!entries.has(txid)) entries.set(txid, entry);
    this.mempoolEntries = entries;
  }

  /** `txids` plus their mempool ancestors, parents before children (mempool order first). */
  withAncestorsOrdered(txids: string[]): string[] {
    const wanted = new Set<string>();
    for (const txid of txids) {
      if (!this.txs.has(txid)) throw new Error(`unknown transaction ${txid}`);
      wanted.add(txid);
      for (const ancestor of this.mempoolAncestors(txid)) wanted.add(ancestor);
    }
    return this.topologicalOrder([...wanted]);
  }

  /** Parents before children among `txids`; otherwise mempool order, then the order given. */
  private topologicalOrder(txids: string[]): string[] {
    const position = new Map<string, number>();
    const pool = this.mempool();
    pool.forEach((txid, i) => {
      position.set(txid, i);
    });
    const set = new Set(txids);
    const sorted = [...txids].sort(
      (a, b) =>
        (position.get(a) ?? pool.length + txids.indexOf(a)) -
        (position.get(b) ?? pool.length + txids.indexOf(b)),
    );
    const out: string[] = [];
    const done = new Set<string>();
    const visit = (txid: string): void => {
      if (done.has(txid)) return;
      done.add(txid);
      for (const input of this.txs.get(txid)!.inputs) if (set.has(input.txid)) visit(input.txid);
      out.push(txid);
    };
    for (const txid of sorted) visit(txid);
    return out;
  }

  // ---- blocks ----------------------------------------------------------------------------------

  private subsidy(height: number): bigint {
    const halvings = Math.floor(height / this.params.halving);
    return halvings >= 64 ? 0n : (50n * COIN) >> BigInt(halvings);
  }

  private medianTimePast(time: number, prevHash: string | undefined): number {
    const times = [time];
    let hash = prevHash;
    while (times.length < 11 && hash !== undefined) {
      const block = this.blocks.get(hash);
      if (!block) break;
      times.push(block.time);
      hash = block.height === 0 ? undefined : block.prevHash;
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  }

  private storeBlock(fields: {
    height: number;
    prevHash: string;
    version: number;
    time: number;
    bits: number;
    nonce?: number;
    txs: TxRecord[];
  }): BlockRecord {
    const root = merkleRoot(fields.txs.map((tx) => internalHash(tx.txid)));
    const nonce = fields.nonce ?? randomBytes(4).readUInt32LE(0);
    const header = encodeHeader({ ...fields, merkleRoot: root, nonce });
    const countSize = CompactSize.encode(BigInt(fields.txs.length)).length;
    const size = fields.txs.reduce((n, tx) => n + tx.size, 80 + countSize);
    const strippedSize = fields.txs.reduce((n, tx) => n + tx.strippedSize, 80 + countSize);
    const prev = this.blocks.get(fields.prevHash);
    const block: BlockRecord = {
      hash: displayHash(sha256x2(header)),
      height: fields.height,
      prevHash: fields.prevHash,
      header,
      version: fields.version,
      merkleRoot: displayHash(root),
      time: fields.time,
      bits: fields.bits,
      nonce,
      txids: fields.txs.map((tx) => tx.txid),
      size,
      strippedSize,
      weight: strippedSize * 3 + size,
      chainwork: (prev?.chainwork ?? 0n) + blockWork(fields.bits),
      mediantime: this.medianTimePast(fields.time, prev?.hash),
    };
    this.blocks.set(block.hash, block);
    for (const txid of block.txids) {
      const list = this.txBlocks.get(txid);
      if (list) list.push(block.hash);
      else this.txBlocks.set(txid, [block.hash]);
    }
    return block;
  }

  private connectGenesis(): void {
    const genesis = this.params.genesis;
    const raw = RawTx.encode({
      version: 1,
      segwitFlag: false,
      inputs: [
        {
          txid: ZERO_HASH,
          index: 0xffffffff,
          finalScriptSig: hexToBytes(GENESIS_SCRIPT_SIG),
          sequence: SEQUENCE_FINAL,
        },
      ],
      outputs: [{ amount: 50n * COIN, script: hexToBytes(GENESIS_OUTPUT_SCRIPT) }],
      witnesses: undefined,
      lockTime: 0,
    });
    const coinbase = this.recordFromRaw(raw, true);
    this.register(coinbase);
    const block = this.storeBlock({
      height: 0,
      prevHash: ZERO_HEX,
      version: 1,
      time: genesis.time,
      bits: genesis.bits,
      nonce: genesis.nonce,
      txs: [coinbase],
    });
    // Built from its parts, not copied: a check of the header, merkle and txid code.
    if (block.hash !== genesis.hash) throw new Error(`genesis hash ${block.hash}, expected ${genesis.hash}`);
    this.activeChain = [block.hash];
  }

  /** Coinbase for a block at `height` holding `txs`: BIP34 height, subsidy + fees to the miner, BIP141 commitment. */
  private coinbaseFor(height: number, txs: TxRecord[]): TxRecord {
    const witnessRoot = merkleRoot([ZERO_HASH, ...txs.map((tx) => internalHash(tx.wtxid))]);
    const commitment = sha256x2(witnessRoot, ZERO_HASH);
    const extraNonce = new Uint8Array(4);
    new DataView(extraNonce.buffer).setUint32(0, ++this.extraNonce, true);
    const raw = RawTx.encode({
      version: 2,
      segwitFlag: true,
      inputs: [
        {
          txid: ZERO_HASH,
          index: 0xffffffff,
          finalScriptSig: Script.encode([height, extraNonce]),
          sequence: SEQUENCE_FINAL,
        },
      ],
      outputs: [
        { amount: this.subsidy(height) + sum(txs.map((tx) => tx.fee)), script: this.miner.script },
        { amount: 0n, script: concatBytes(WITNESS_COMMITMENT_HEADER, commitment) },
      ],
      witnesses: [[ZERO_HASH]],
      lockTime: 0,
    });
    return this.recordFromRaw(raw, true);
  }

  /** @throws when `txids`, in order, cannot be mined on the active tip. */
  private checkBlockTransactions(txids: string[]): void {
    const earlier = new Set<string>();
    const spent = new Set<string>();
    for (const txid of txids) {
      const record = this.txs.get(txid);
      if (!record) throw new Error(`unknown transaction ${txid}`);
      if (record.coinbase) throw new Error(`${txid} is a coinbase`);
      if (this.activeBlockOf(txid)) throw new Error(`${txid} is already in the active chain`);
      if (earlier.has(txid)) throw new Error(`${txid} twice in a block`);
      for (const input of record.inputs) {
        const key = outpointKey(input);
        if (!this.activeBlockOf(input.txid) && !earlier.has(input.txid)) {
          throw new Error(
            `${txid}: input ${key} is not created by the active chain nor earlier in the block`,
          );
        }
        if (spent.has(key) || this.spentInActiveChain(input)) {
          throw new Error(`${txid}: input ${key} is already spent (double spend)`);
        }
        spent.add(key);
      }
      earlier.add(txid);
    }
  }

  /** Mines a block on the tip holding `txids` (in that order, after the coinbase). */
  connectBlock(txids: string[], time?: number): BlockRecord {
    this.checkBlockTransactions(txids);
    const tip = this.tip();
    const records = txids.map((txid) => this.txs.get(txid)!);
    const coinbase = this.coinbaseFor(tip.height + 1, records);
    const all = [coinbase, ...records];
    const weight = sum(all.map((tx) => BigInt(tx.weight)));
    if (weight > BigInt(MAX_BLOCK_WEIGHT - 4000))
      throw new Error(`block weight ${weight} passes ${MAX_BLOCK_WEIGHT}`);
    this.register(coinbase);
    const block = this.storeBlock({
      height: tip.height + 1,
      prevHash: tip.hash,
      version: BLOCK_VERSION,
      time: time ?? Math.max(tip.mediantime + 1, nowSeconds()),
      bits: BLOCK_BITS,
      txs: all,
    });
    this.activeChain.push(block.hash);
    for (const txid of txids) if (this.mempoolEntries.delete(txid)) this.mempoolSequence++;
    this.revalidateMempool();
    return block;
  }

  /**
   * Disconnects the blocks above `forkHeight`; returns their non-coinbase txids in block order.
   * The caller decides what returns to the mempool.
   */
  disconnectTo(forkHeight: number): string[] {
    const dropped = this.activeChain.slice(forkHeight + 1);
    this.activeChain = this.activeChain.slice(0, forkHeight + 1);
    return dropped.flatMap((hash) => this.blocks.get(hash)!.txids.slice(1));
  }

  /** Runs `change`; restores the active chain and the mempool when it throws. */
  atomically<T>(change: () => T): T {
    const chain = [...this.activeChain];
    const pool = new Map(this.mempoolEntries);
    const sequence = this.mempoolSequence;
    try {
      return change();
    } catch (error) {
      this.activeChain = chain;
      this.mempoolEntries = pool;
      this.mempoolSequence = sequence;
      throw error;
    }
  }

  reorg(
    depth: number,
    newBlocks: number,
    dropTransactions: string[],
    includeInNewBranch: string[],
  ): string[] {
    const tip = this.tip();
    if (!Number.isInteger(depth) || depth < 1 || depth > tip.height) {
      throw new Error(`reorg depth ${depth}: between 1 and ${tip.height}`);
    }
    if (!Number.isInteger(newBlocks) || newBlocks < 0) throw new Error(`reorg newBlocks ${newBlocks}`);
    for (const txid of [...dropTransactions, ...includeInNewBranch]) {
      if (!this.txs.has(txid)) throw new Error(`unknown transaction ${txid}`);
    }
    return this.atomically(() => {
      const returned = this.disconnectTo(tip.height - depth);
      const gone = new Set([...dropTransactions, ...includeInNewBranch]);
      for (const txid of dropTransactions) this.mempoolEntries.delete(txid);
      for (const txid of includeInNewBranch) this.mempoolEntries.delete(txid);
      this.prependToMempool(returned.filter((txid) => !gone.has(txid)));
      this.revalidateMempool();
      const hashes: string[] = [];
      for (let i = 0; i < newBlocks; i++) {
        const txids =
          i === 0 && includeInNewBranch.length > 0 ? this.withAncestorsOrdered(includeInNewBranch) : [];
        hashes.push(this.connectBlock(txids).hash);
      }
      return hashes;
    });
  }

  // ---- filler ----------------------------------------------------------------------------------

  /** `count` signed transactions spending one fan-out transaction from the miner's wallet. */
  fillerTransactions(count: number): string[] {
    const key = randomPrivateKeyBytes();
    const publicKey = pubECDSA(key);
    const script = p2wpkh(publicKey, this.network).script;
    const pkhScript = OutScript.encode({ type: 'pkh', hash: p2wpkh(publicKey).hash });
    const values = Array.from({ length: count }, () => 20_000n + BigInt(randomBytes(2).readUInt16LE(0)));
    const fanOut = this.fromFaucet(values.map((amount) => ({ script, amount })));
    const txids = [fanOut.txid];
    const fee = 200n;
    const randomScript = (i: number): Uint8Array => {
      switch (i % 4) {
        case 0:
          return OutScript.encode({ type: 'wpkh', hash: randomHash160() });
        case 1:
          return OutScript.encode({ type: 'tr', pubkey: pubSchnorr(randomPrivateKeyBytes()) });
        case 2:
          return OutScript.encode({ type: 'pkh', hash: randomHash160() });
        default:
          return OutScript.encode({ type: 'sh', hash: randomHash160() });
      }
    };
    for (let i = 0; i < count; i++) {
      const amount = values[i]!;
      const paid = 1_000n + BigInt(randomBytes(2).readUInt16LE(0) % 15_000);
      const tx = new Transaction({ version: 2, allowUnknownOutputs: true });
      tx.addInput({
        txid: fanOut.txid,
        index: i,
        witnessUtxo: { script, amount },
        sequence: SEQUENCE_FINAL,
      });
      tx.addOutput({ script: randomScript(i), amount: paid });
      tx.addOutput({ script, amount: amount - paid - fee });
      // tx.sign() derives the public key for every input; the BIP143 digest signed directly is the
      // same signature (RFC 6979) at a third of the cost.
      const digest = tx.preimageWitnessV0(0, pkhScript, SigHash.ALL, amount);
      const signature = concatBytes(signECDSA(digest, key), new Uint8Array([SigHash.ALL]));
      tx.updateInput(0, { finalScriptWitness: [signature, publicKey] }, true);
      const record = this.recordFromRaw(tx.extract(), false);
      this.register(record);
      txids.push(record.txid);
    }
    return txids;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC
// ---------------------------------------------------------------------------------------------

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const RPC_MISC_ERROR = -1;
const RPC_TYPE_ERROR = -3;
const RPC_INVALID_ADDRESS_OR_KEY = -5;
const RPC_INVALID_PARAMETER = -8;
const RPC_IN_WARMUP = -28;
const RPC_INVALID_REQUEST = -32600;
const RPC_METHOD_NOT_FOUND = -32601;
const RPC_INTERNAL_ERROR = -32603;
const RPC_PARSE_ERROR = -32700;

/** A BTC amount written as Core writes it: a JSON number with 8 decimals. */
class BtcAmount {
  constructor(readonly sats: bigint) {}
  toJSON(): string {
    const negative = this.sats < 0n;
    const abs = negative ? -this.sats : this.sats;
    return `\u0001BTC:${negative ? '-' : ''}${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
  }
}

function toJson(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001BTC:(-?\d+\.\d{8})"/g, '$1');
}

function uniValueType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

function typeError(value: unknown, expected: string): RpcError {
  return new RpcError(
    RPC_TYPE_ERROR,
    `JSON value of type ${uniValueType(value)} is not of expected type ${expected}`,
  );
}

function intArg(value: unknown): number {
  if (typeof value !== 'number') throw typeError(value, 'number');
  if (!Number.isInteger(value) || Math.abs(value) > 0x7fffffff)
    throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range');
  return value;
}

function boolArg(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw typeError(value, 'bool');
  return value;
}

/** Core's ParseVerbosity with allow_bool. */
function verbosityArg(value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return intArg(value);
}

/** Core's ParseHashV. */
function hashArg(value: unknown, name: string): string {
  if (typeof value !== 'string') throw typeError(value, 'string');
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  if (value.length !== 64) {
    throw new RpcError(
      RPC_INVALID_PARAMETER,
      `${name} must be of length 64 (not ${value.length}, for '${value}')`,
    );
  }
  throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${value}')`);
}

interface MethodSpec {
  /** Parameter names for named-parameter calls (aliases joined by '|', as Core's); `required` of them first. */
  names: string[];
  required: number;
  run: (args: unknown[]) => unknown;
}

function rpcMethods(state: ChainState, startedAt: number): Record<string, MethodSpec> {
  const blockOrThrow = (hash: string): BlockRecord => {
    const block = state.block(hash);
    if (!block) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
    return block;
  };
  const headerJson = (block: BlockRecord) => {
    const tip = state.tip();
    const active = state.isActive(block);
    const next = active && block.height < tip.height ? state.blockAt(block.height + 1) : undefined;
    return {
      hash: block.hash,
      confirmations: active ? tip.height - block.height + 1 : -1,
      height: block.height,
      version: block.version,
      versionHex: block.version.toString(16).padStart(8, '0'),
      merkleroot: block.merkleRoot,
      time: block.time,
      mediantime: block.mediantime,
      nonce: block.nonce,
      bits: block.bits.toString(16).padStart(8, '0'),
      difficulty: difficultyOf(block.bits),
      chainwork: block.chainwork.toString(16).padStart(64, '0'),
      nTx: block.txids.length,
      ...(block.height > 0 ? { previousblockhash: block.prevHash } : {}),
      ...(next ? { nextblockhash: next.hash } : {}),
    };
  };
  const mempoolEntryJson = (txid: string) => {
    const record = state.tx(txid)!;
    const entry = state.mempoolEntry(txid)!;
    const ancestors = [...state.mempoolAncestors(txid)].map((id) => state.tx(id)!);
    const descendants = [...state.mempoolDescendants(txid)].map((id) => state.tx(id)!);
    const replaceable = [record, ...ancestors].some((tx) =>
      tx.inputs.some((input) => input.sequence < 0xfffffffe),
    );
    return {
      vsize: record.vsize,
      weight: record.weight,
      time: entry.time,
      height: entry.height,
      descendantcount: descendants.length + 1,
      descendantsize: record.vsize + descendants.reduce((n, tx) => n + tx.vsize, 0),
      ancestorcount: ancestors.length + 1,
      ancestorsize: record.vsize + ancestors.reduce((n, tx) => n + tx.vsize, 0),
      wtxid: record.wtxid,
      fees: {
        base: new BtcAmount(record.fee),
        modified: new BtcAmount(record.fee),
        ancestor: new BtcAmount(record.fee + sum(ancestors.map((tx) => tx.fee))),
        descendant: new BtcAmount(record.fee + sum(descendants.map((tx) => tx.fee))),
      },
      depends: [...new Set(record.inputs.map((i) => i.txid).filter((id) => state.mempoolEntry(id)))].sort(),
      spentby: state.mempoolChildren(txid),
      'bip125-replaceable': replaceable,
      unbroadcast: false,
    };
  };
  const verboseTxUnsupported = () =>
    new RpcError(
      RPC_INVALID_PARAMETER,
      'The Bitcoin test node serves raw transactions only (verbose=false): decode the hex',
    );

  return {
    getblockchaininfo: {
      names: [],
      required: 0,
      run: () => {
        const tip = state.tip();
        return {
          chain: state.chain,
          blocks: tip.height,
          headers: tip.height,
          bestblockhash: tip.hash,
          difficulty: difficultyOf(tip.bits),
          time: tip.time,
          mediantime: tip.mediantime,
          verificationprogress: 1,
          initialblockdownload: false,
          chainwork: tip.chainwork.toString(16).padStart(64, '0'),
          size_on_disk: 293 + tip.height * 250,
          pruned: false,
          warnings: [],
        };
      },
    },
    getbestblockhash: { names: [], required: 0, run: () => state.tip().hash },
    getblockcount: { names: [], required: 0, run: () => state.tip().height },
    getblockhash: {
      names: ['height'],
      required: 1,
      run: ([height]) => {
        const block = state.blockAt(intArg(height));
        if (intArg(height) < 0 || !block)
          throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
        return block.hash;
      },
    },
    getblockheader: {
      names: ['blockhash', 'verbose'],
      required: 1,
      run: ([hash, verbose]) => {
        const block = blockOrThrow(hashArg(hash, 'hash'));
        return boolArg(verbose, true) ? headerJson(block) : bytesToHex(block.header);
      },
    },
    getblock: {
      names: ['blockhash', 'verbosity|verbose'],
      required: 1,
      run: ([hash, verbosityValue]) => {
        const block = blockOrThrow(hashArg(hash, 'blockhash'));
        const verbosity = verbosityArg(verbosityValue, 1);
        if (verbosity <= 0) return bytesToHex(state.rawBlock(block));
        if (verbosity >= 2) throw verboseTxUnsupported();
        return {
          ...headerJson(block),
          strippedsize: block.strippedSize,
          size: block.size,
          weight: block.weight,
          tx: block.txids,
        };
      },
    },
    getrawmempool: {
      names: ['verbose', 'mempool_sequence'],
      required: 0,
      run: ([verbose, withSequence]) => {
        const txids = state.mempool();
        if (boolArg(verbose, false)) {
          if (boolArg(withSequence, false)) {
            throw new RpcError(
              RPC_INVALID_PARAMETER,
              'Verbose results cannot contain mempool sequence values.',
            );
          }
          return Object.fromEntries(txids.map((txid) => [txid, mempoolEntryJson(txid)]));
        }
        return boolArg(withSequence, false) ? { txids, mempool_sequence: state.sequence } : txids;
      },
    },
    getmempoolentry: {
      names: ['txid'],
      required: 1,
      run: ([txid]) => {
        const id = hashArg(txid, 'parameter 1');
        if (!state.mempoolEntry(id))
          throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
        return mempoolEntryJson(id);
      },
    },
    getrawtransaction: {
      names: ['txid', 'verbosity|verbose', 'blockhash'],
      required: 1,
      run: ([txidValue, verbosityValue, blockhashValue]) => {
        const txid = hashArg(txidValue, 'parameter 1');
        const verbosity = verbosityArg(verbosityValue, 0);
        if (txid === state.genesisCoinbaseTxid()) {
          throw new RpcError(
            RPC_INVALID_ADDRESS_OR_KEY,
            'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved',
          );
        }
        let found: TxRecord | undefined;
        if (blockhashValue !== undefined && blockhashValue !== null) {
          const block = state.block(hashArg(blockhashValue, 'parameter 3'));
          if (!block) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block hash not found');
          if (!block.txids.includes(txid)) {
            throw new RpcError(
              RPC_INVALID_ADDRESS_OR_KEY,
              'No such transaction found in the provided block. Use gettransaction for wallet transactions.',
            );
          }
          found = state.tx(txid);
        } else if (state.mempoolEntry(txid)) {
          found = state.tx(txid);
        } else {
          throw new RpcError(
            RPC_INVALID_ADDRESS_OR_KEY,
            'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.',
          );
        }
        if (verbosity > 0) throw verboseTxUnsupported();
        return bytesToHex(found!.raw);
      },
    },
    getindexinfo: { names: ['index_name'], required: 0, run: () => ({}) },
    uptime: { names: [], required: 0, run: () => Math.floor((Date.now() - startedAt) / 1000) },
  };
}

type JsonRpcVersion = 1 | 2;

interface RpcReply {
  status: number;
  /** Undefined for a JSON-RPC 2.0 notification (no answer). */
  body: Record<string, unknown> | undefined;
}

function replyObject(
  version: JsonRpcVersion,
  id: unknown,
  result: unknown,
  error: { code: number; message: string } | undefined,
): Record<string, unknown> {
  const reply: Record<string, unknown> = version === 2 ? { jsonrpc: '2.0' } : {};
  if (error === undefined) {
    reply.result = result;
    if (version === 1) reply.error = null;
  } else {
    if (version === 1) reply.result = null;
    reply.error = error;
  }
  reply.id = id === undefined ? null : id;
  return reply;
}

/** HTTP status of a JSON-RPC 1.0 single answer (Core's JSONErrorReply). */
function httpStatusOf(code: number): number {
  if (code === RPC_INVALID_REQUEST) return 400;
  if (code === RPC_METHOD_NOT_FOUND) return 404;
  return 500;
}

// ---------------------------------------------------------------------------------------------
// The node
// ---------------------------------------------------------------------------------------------

/** Starts a node on 127.0.0.1 with `startHeight` blocks (default 101) above genesis. */
export async function startBitcoinTestNode(options: BitcoinTestNodeOptions = {}): Promise<BitcoinTestNode> {
  const chain = options.chain ?? 'regtest';
  if (chain !== 'regtest' && chain !== 'main') throw new Error(`unknown chain ${String(chain)}`);
  if ((options.user === undefined) !== (options.password === undefined)) {
    throw new Error('user and password go together');
  }
  const startHeight = options.startHeight ?? 101;
  if (!Number.isInteger(startHeight) || startHeight < 0) throw new Error(`startHeight ${startHeight}`);
  const state = new ChainState(chain, startHeight);
  const network = state.network;
  const startedAt = Date.now();
  const methods = rpcMethods(state, startedAt);
  const authorization =
    options.user === undefined
      ? undefined
      : `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;

  let outage: OutageMode | null = null;
  let outageMs = 1000;
  let closed = false;
  let counts: Record<string, number> = {};
  let total = 0;
  const sockets = new Set<Socket>();
  /** Answers held back by 'slow': released at once by close(). */
  const delayed = new Map<NodeJS.Timeout, () => void>();

  const count = (method: unknown): void => {
    if (typeof method !== 'string') return;
    total++;
    counts[method] = (counts[method] ?? 0) + 1;
  };

  const execute = (method: string, params: unknown): unknown => {
    if (outage === 'warmup') throw new RpcError(RPC_IN_WARMUP, WARMUP_MESSAGE);
    const spec = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!spec) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
    let args: unknown[];
    if (Array.isArray(params)) {
      args = params;
    } else {
      const named = params as Record<string, unknown>;
      const aliases = spec.names.map((name) => name.split('|'));
      for (const key of Object.keys(named)) {
        if (!aliases.some((names) => names.includes(key))) {
          throw new RpcError(RPC_INVALID_PARAMETER, `Unknown named parameter ${key}`);
        }
      }
      args = aliases.map((names) => named[names.find((name) => name in named) ?? names[0]!]);
      while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
    }
    const missing = args.slice(0, spec.required).some((a) => a === undefined || a === null);
    if (args.length > spec.names.length || args.length < spec.required || missing) {
      const usage = spec.names.map((name, i) => {
        const shown = name.split('|')[0]!;
        return i < spec.required ? shown : `( ${shown} )`;
      });
      throw new RpcError(RPC_MISC_ERROR, [method, ...usage].join(' '));
    }
    return spec.run(args);
  };

  const executeOne = (request: unknown): RpcReply => {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return {
        status: 400,
        body: replyObject(1, null, null, { code: RPC_INVALID_REQUEST, message: 'Invalid Request object' }),
      };
    }
    const call = request as Record<string, unknown>;
    const id = call.id;
    let version: JsonRpcVersion = 1;
    const fail = (code: number, message: string): RpcReply => ({
      status: version === 2 ? 200 : httpStatusOf(code),
      body: version === 2 && id === undefined ? undefined : replyObject(version, id, null, { code, message }),
    });
    if (call.jsonrpc === '2.0') version = 2;
    else if (call.jsonrpc !== undefined && call.jsonrpc !== '1.0') {
      return fail(RPC_INVALID_REQUEST, 'JSON-RPC version not supported');
    }
    if (typeof call.method !== 'string') return fail(RPC_INVALID_REQUEST, 'Method must be a string');
    const params = call.params ?? [];
    if (typeof params !== 'object') return fail(RPC_INVALID_REQUEST, 'Params must be an array or object');
    count(call.method);
    try {
      const result = execute(call.method, params);
      return {
        status: version === 2 && id === undefined ? 204 : 200,
        body: version === 2 && id === undefined ? undefined : replyObject(version, id, result, undefined),
      };
    } catch (error) {
      if (error instanceof RpcError) return fail(error.code, error.message);
      return fail(RPC_MISC_ERROR, error instanceof Error ? error.message : String(error));
    }
  };

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    if (body === undefined) {
      res.writeHead(status);
      res.end();
      return;
    }
    const text = `${toJson(body)}\n`;
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (outage === 'down') {
      req.socket.destroy();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405);
      res.end('JSONRPC server handles only POST requests');
      return;
    }
    if (authorization !== undefined && req.headers.authorization?.trim() !== authorization) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="jsonrpc"' });
      res.end();
      return;
    }
    const text = await readBody(req);
    if (outage === 'slow') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          delayed.delete(timer);
          resolve();
        }, outageMs);
        delayed.set(timer, resolve);
      });
    }
    // The outage may have changed while the answer waited.
    if (closed || (outage as OutageMode | null) === 'down') {
      req.socket.destroy();
      return;
    }
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch {
      send(res, 500, replyObject(1, null, null, { code: RPC_PARSE_ERROR, message: 'Parse error' }));
      return;
    }
    if (outage === 'error') {
      const calls = Array.isArray(request) ? request : [request];
      for (const call of calls) count((call as { method?: unknown } | null)?.method);
      const id = Array.isArray(request) ? null : (request as { id?: unknown } | null)?.id;
      send(res, 500, replyObject(1, id, null, { code: RPC_INTERNAL_ERROR, message: 'Internal error' }));
      return;
    }
    if (Array.isArray(request)) {
      const replies = request.map(executeOne).flatMap((reply) => (reply.body ? [reply.body] : []));
      send(res, 200, replies);
      return;
    }
    if (typeof request !== 'object' || request === null) {
      send(
        res,
        500,
        replyObject(1, null, null, { code: RPC_PARSE_ERROR, message: 'Top-level object parse error' }),
      );
      return;
    }
    const reply = executeOne(request);
    send(res, reply.status, reply.body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (socket: Socket) => {
    if (outage === 'down' || closed) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}/`;
  const url =
    options.user === undefined
      ? endpoint
      : `http://${encodeURIComponent(options.user)}:${encodeURIComponent(options.password!)}@127.0.0.1:${port}/`;

  const addressCoder = Address(network);
  const scriptOf = (output: PaymentOutput): Uint8Array => {
    if (output.script) return output.script;
    if (output.address === undefined) throw new Error('an output needs a script or an address');
    try {
      return OutScript.encode(addressCoder.decode(output.address));
    } catch {
      throw new Error(`${output.address} is not an address of ${chain}`);
    }
  };
  const resolveOutputs = (outputs: PaymentOutput[]) =>
    outputs.map((output) => {
      if (typeof output.sats !== 'bigint' || output.sats < 0n)
        throw new Error(`bad amount ${String(output.sats)}`);
      return { script: scriptOf(output), amount: output.sats };
    });
  const withChange = (
    outputs: { script: Uint8Array; amount: bigint }[],
    change: bigint,
    script: Uint8Array,
  ): { script: Uint8Array; amount: bigint }[] => {
    if (change < 0n) throw new Error(`the inputs are ${-change} sats short of the outputs and fee`);
    return change >= DUST_P2WPKH ? [...outputs, { script, amount: change }] : outputs;
  };
  const mempoolRecord = (txid: string): TxRecord => {
    if (!state.mempoolEntry(txid)) throw new Error(`${txid} is not in the mempool`);
    return state.tx(txid)!;
  };
  const result = (record: TxRecord): TxResult => ({ txid: record.txid, hex: bytesToHex(record.raw) });

  const node: BitcoinTestNode = {
    url,
    endpoint,
    authorization,
    port,
    chain,
    network,
    tipHeight: () => state.tip().height,
    tipHash: () => state.tip().hash,
    mempool: () => state.mempool(),
    transactionHex: (txid) => {
      const record = state.tx(txid);
      return record ? bytesToHex(record.raw) : undefined;
    },
    blockHex: (hash) => {
      const block = state.block(hash);
      return block ? bytesToHex(state.rawBlock(block)) : undefined;
    },
    randomAddress: () => addressCoder.encode({ type: 'wpkh', hash: randomHash160() }),
    balance: (buyer, balanceOptions = {}) =>
      sum(
        state
          .coinsOf(buyer.script)
          .filter((coin) => !balanceOptions.confirmedOnly || coin.height !== undefined)
          .map((coin) => coin.amount),
      ),

    newBuyer(sats = COIN) {
      const privateKey = randomPrivateKeyBytes();
      const publicKey = pubECDSA(privateKey);
      const payment = p2wpkh(publicKey, network);
      state.addKey({ privateKey, publicKey });
      return state.atomically(() => {
        const funding = state.fromFaucet([{ script: payment.script, amount: sats }]);
        state.connectBlock(
          state.withAncestorsOrdered([funding.txid]).filter((id) => !state.activeBlockOf(id)),
        );
        return {
          address: payment.address!,
          script: payment.script,
          privateKey,
          publicKey,
          wif: WIF(network).encode(privateKey),
          fundingTxid: funding.txid,
        };
      });
    },

    pay(buyer, outputs, payOptions = {}) {
      const fee = payOptions.feeSats ?? 500n;
      const resolved = resolveOutputs(outputs);
      const coins = state.selectCoins(buyer.script, sum(resolved.map((o) => o.amount)) + fee);
      const change = sum(coins.map((c) => c.amount)) - sum(resolved.map((o) => o.amount)) - fee;
      const sequence = payOptions.replaceable ? SEQUENCE_RBF : SEQUENCE_FINAL;
      const record = state.buildSigned(
        coins,
        withChange(resolved, change, buyer.script),
        coins.map(() => sequence),
      );
      state.acceptToMempool(record.txid);
      return result(record);
    },

    replace(txid, outputs, replaceOptions = {}) {
      const original = mempoolRecord(txid);
      const replaced = [original, ...[...state.mempoolDescendants(txid)].map((id) => state.tx(id)!)];
      const replacedFees = sum(replaced.map((tx) => tx.fee));
      const fee = replaceOptions.feeSats ?? original.fee + 1000n;
      if (fee <= replacedFees) {
        throw new Error(
          `replacement fee ${fee} must exceed the ${replacedFees} sats of what it replaces (BIP125 rule 3)`,
        );
      }
      const coins = state.spentCoins(original);
      const resolved = resolveOutputs(outputs);
      const change = sum(coins.map((c) => c.amount)) - sum(resolved.map((o) => o.amount)) - fee;
      const record = state.buildSigned(
        coins,
        withChange(resolved, change, coins[0]!.script),
        original.inputs.map((input) => input.sequence),
      );
      return state.atomically(() => {
        state.removeFromMempool(txid);
        state.acceptToMempool(record.txid);
        return result(record);
      });
    },

    doubleSpend(txid, spendOptions = {}) {
      const original = state.tx(txid);
      if (!original || original.coinbase) throw new Error(`unknown transaction ${txid}`);
      if (state.activeBlockOf(txid))
        throw new Error(`${txid} is mined in the active chain: reorg it out first`);
      const coins = state.spentCoins(original);
      const fee = spendOptions.feeSats ?? original.fee + 1000n;
      const resolved = resolveOutputs(spendOptions.outputs ?? []);
      const change = sum(coins.map((c) => c.amount)) - sum(resolved.map((o) => o.amount)) - fee;
      const record = state.buildSigned(
        coins,
        withChange(resolved, change, coins[0]!.script),
        coins.map(() => SEQUENCE_FINAL),
      );
      return state.atomically(() => {
        if (state.mempoolEntry(txid)) state.removeFromMempool(txid);
        if (spendOptions.mine === false) {
          state.acceptToMempool(record.txid);
          return result(record);
        }
        const block = state.connectBlock(state.withAncestorsOrdered([record.txid]));
        return { ...result(record), blockHash: block.hash };
      });
    },

    mine(countBlocks = 1, mineOptions = {}) {
      if (!Number.isInteger(countBlocks) || countBlocks < 1) throw new Error(`mine count ${countBlocks}`);
      return state.atomically(() => {
        let first: string[];
        if (mineOptions.include) {
          first = state.withAncestorsOrdered(mineOptions.include);
        } else {
          const excluded = new Set<string>();
          for (const txid of mineOptions.exclude ?? []) {
            excluded.add(txid);
            for (const descendant of state.mempoolDescendants(txid)) excluded.add(descendant);
          }
          first = state.mempool().filter((txid) => !excluded.has(txid));
        }
        const hashes = [state.connectBlock(first).hash];
        for (let i = 1; i < countBlocks; i++) hashes.push(state.connectBlock([]).hash);
        return hashes;
      });
    },

    reorg(depth, reorgOptions = {}) {
      return state.reorg(
        depth,
        reorgOptions.newBlocks ?? depth + 1,
        reorgOptions.dropTransactions ?? [],
        reorgOptions.includeInNewBranch ?? [],
      );
    },

    evict(txid) {
      mempoolRecord(txid);
      state.removeFromMempool(txid);
    },

    setOutage(mode, ms) {
      outage = mode;
      outageMs = ms ?? 1000;
      if (mode === 'down') {
        for (const socket of sockets) socket.destroy();
      }
    },

    calls: () => ({ total, byMethod: { ...counts } }),
    resetCalls() {
      total = 0;
      counts = {};
    },

    mineFiller(fillerCount) {
      if (!Number.isInteger(fillerCount) || fillerCount < 1)
        throw new Error(`mineFiller count ${fillerCount}`);
      return state.atomically(() => {
        const fillers = state.fillerTransactions(fillerCount);
        return state.connectBlock([...state.mempool(), ...fillers]).hash;
      });
    },

    async rpc<T = unknown>(method: string, params: unknown[] | Record<string, unknown> = []): Promise<T> {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(authorization ? { Authorization: authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: '1.0', id: 'test', method, params }),
      });
      const text = await response.text();
      let body: { result?: T; error?: { code: number; message: string } | null };
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`HTTP ${response.status} from the Bitcoin test node: ${text.slice(0, 200)}`);
      }
      if (body.error) throw new BitcoinRpcError(body.error.code, body.error.message);
      return body.result as T;
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const [timer, release] of delayed) {
        clearTimeout(timer);
        release();
      }
      delayed.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
    },
  };
  return node;
}
