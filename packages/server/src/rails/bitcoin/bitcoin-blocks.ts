import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

/** An output of a transaction: its value in satoshis and its locking script. */
export interface TransactionOutput {
  index: number;
  sats: bigint;
  script: Uint8Array;
}

/** A decoded transaction: what the watcher needs of it. */
export interface DecodedTransaction {
  txid: string;
  /** The outpoints it spends (`txid:index`), to see a payment's inputs spent by another transaction. */
  spends: string[];
  outputs: TransactionOutput[];
}

/** A decoded block. */
export interface DecodedBlock {
  hash: string;
  previousHash: string;
  /** Block time, Unix seconds. */
  time: number;
  transactions: DecodedTransaction[];
}

/** A serialized block or transaction that does not decode. */
export class MalformedBitcoinData extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedBitcoinData';
  }
}

/** Decodes a serialized block (`getblock <hash> 0`). @throws MalformedBitcoinData */
export function decodeBlock(hex: string): DecodedBlock {
  const reader = new Reader(hexToBytes(hex));
  const header = reader.bytes(80);
  const count = reader.varint();
  const transactions: DecodedTransaction[] = [];
  for (let index = 0; index < count; index++) transactions.push(readTransaction(reader));
  if (!reader.done) throw new MalformedBitcoinData('the block has bytes after its last transaction');
  return {
    hash: displayHash(doubleSha256(header)),
    previousHash: displayHash(header.subarray(4, 36)),
    time: new DataView(header.buffer, header.byteOffset + 68, 4).getUint32(0, true),
    transactions,
  };
}

/** Decodes a serialized transaction (`getrawtransaction <txid> false`). @throws MalformedBitcoinData */
export function decodeTransaction(hex: string): DecodedTransaction {
  const reader = new Reader(hexToBytes(hex));
  const transaction = readTransaction(reader);
  if (!reader.done) throw new MalformedBitcoinData('the transaction has bytes after its lock time');
  return transaction;
}

/**
 * One transaction from the reader (BIP144 witness serialization or the legacy one). The txid is the
 * double SHA-256 of the serialization without witnesses, shown byte-reversed as Bitcoin Core does.
 */
function readTransaction(reader: Reader): DecodedTransaction {
  const start = reader.position;
  reader.bytes(4); // version
  let segwit = false;
  if (reader.peek() === 0) {
    const flag = reader.bytes(2)[1];
    if (flag !== 1) throw new MalformedBitcoinData('unknown transaction serialization flag');
    segwit = true;
  }
  const bodyStart = reader.position;
  const inputCount = reader.varint();
  const spends: string[] = [];
  for (let index = 0; index < inputCount; index++) {
    const previous = reader.bytes(32);
    const outputIndex = reader.uint32();
    reader.bytes(reader.varint()); // scriptSig
    reader.bytes(4); // sequence
    spends.push(`${displayHash(previous)}:${outputIndex}`);
  }
  const outputCount = reader.varint();
  const outputs: TransactionOutput[] = [];
  for (let index = 0; index < outputCount; index++) {
    const sats = reader.uint64();
    outputs.push({ index, sats, script: reader.bytes(reader.varint()).slice() });
  }
  const bodyEnd = reader.position;
  if (segwit) {
    for (let index = 0; index < inputCount; index++) {
      const items = reader.varint();
      for (let item = 0; item < items; item++) reader.bytes(reader.varint());
    }
  }
  const lockTime = reader.bytes(4);
  const all = reader.slice(start, reader.position);
  const stripped = segwit ? concat(all.subarray(0, 4), reader.slice(bodyStart, bodyEnd), lockTime) : all;
  // A coinbase spends nothing real (its one input names the null outpoint).
  const isCoinbase = spends.length === 1 && spends[0]!.startsWith('0'.repeat(64));
  return { txid: displayHash(doubleSha256(stripped)), spends: isCoinbase ? [] : spends, outputs };
}

/** Whether an output script can never be spent (OP_RETURN): not an address, never watched. */
export function isDataCarrier(script: Uint8Array): boolean {
  return script[0] === 0x6a;
}

export function scriptHex(script: Uint8Array): string {
  return bytesToHex(script);
}

function doubleSha256(bytes: Uint8Array): Uint8Array {
  return sha256(sha256(bytes));
}

/** Hashes are shown byte-reversed (Bitcoin Core's convention for txids and block hashes). */
function displayHash(bytes: Uint8Array): string {
  return bytesToHex(Uint8Array.from(bytes).reverse());
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

class Reader {
  position = 0;
  constructor(private readonly data: Uint8Array) {}

  get done(): boolean {
    return this.position === this.data.length;
  }

  peek(): number | undefined {
    return this.data[this.position];
  }

  bytes(count: number): Uint8Array {
    if (count < 0 || this.position + count > this.data.length) {
      throw new MalformedBitcoinData('the data ends in the middle of a field');
    }
    const out = this.data.subarray(this.position, this.position + count);
    this.position += count;
    return out;
  }

  slice(from: number, to: number): Uint8Array {
    return this.data.subarray(from, to);
  }

  uint32(): number {
    const bytes = this.bytes(4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  }

  uint64(): bigint {
    const bytes = this.bytes(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  }

  varint(): number {
    const first = this.bytes(1)[0]!;
    if (first < 0xfd) return first;
    if (first === 0xfd) return new DataView(this.bytes(2).slice().buffer).getUint16(0, true);
    if (first === 0xfe) return this.uint32();
    const value = this.uint64();
    if (value > BigInt(this.data.length)) throw new MalformedBitcoinData('a count is larger than the data');
    return Number(value);
  }
}
