import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes, randomBytes } from '@noble/hashes/utils.js';
import { NETWORK, OutScript, p2pkh, p2wpkh, Transaction } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import { decodeBlock, decodeTransaction, isDataCarrier, MalformedBitcoinData } from './bitcoin-blocks.js';

/** A transaction signed by btc-signer: one p2wpkh input, outputs as given (witness serialization). */
function signedSegwit(outputs: { script: Uint8Array; amount: bigint }[]) {
  const key = secp256k1.utils.randomSecretKey();
  const spent = p2wpkh(secp256k1.getPublicKey(key, true), NETWORK);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({
    txid: randomBytes(32),
    index: 1,
    witnessUtxo: { script: spent.script, amount: 1_000_000n },
    sequence: 0xfffffffd,
  });
  for (const output of outputs) tx.addOutput(output);
  tx.sign(key);
  tx.finalize();
  return tx;
}

/** A legacy transaction (no witness): one p2pkh input. */
function signedLegacy(outputs: { script: Uint8Array; amount: bigint }[]) {
  const key = secp256k1.utils.randomSecretKey();
  const spentScript = p2pkh(secp256k1.getPublicKey(key, true), NETWORK).script;
  const previous = new Transaction({ allowUnknownOutputs: true });
  previous.addOutput({ script: spentScript, amount: 2_100_000_000_010_000n });
  previous.addInput({ txid: randomBytes(32), index: 0, finalScriptSig: new Uint8Array([0x51]) });
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({ txid: previous.id, index: 0, nonWitnessUtxo: previous.toBytes(true, false) });
  for (const output of outputs) tx.addOutput(output);
  tx.sign(key);
  tx.finalize();
  return tx;
}

const doubleSha = (bytes: Uint8Array) => sha256(sha256(bytes));
const reversedHex = (bytes: Uint8Array) => bytesToHex(Uint8Array.from(bytes).reverse());

describe('decodeTransaction', () => {
  it('gives btc-signer’s txid, the outputs’ satoshis and scripts, and the spent outpoints of a segwit transaction', () => {
    const merchant = p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), NETWORK).script;
    const data = OutScript.encode({ type: 'unknown', script: hexToBytes('6a0474657374') });
    const tx = signedSegwit([
      { script: merchant, amount: 123_456n },
      { script: data, amount: 0n },
    ]);
    const decoded = decodeTransaction(tx.hex);
    expect(decoded.txid).toBe(tx.id);
    expect(decoded.outputs.map((output) => output.sats)).toEqual([123_456n, 0n]);
    expect(bytesToHex(decoded.outputs[0]!.script)).toBe(bytesToHex(merchant));
    expect(isDataCarrier(decoded.outputs[1]!.script)).toBe(true);
    expect(decoded.spends).toEqual([`${bytesToHex(tx.getInput(0).txid!)}:1`]);
  });

  it('decodes a legacy transaction, whose txid covers the whole serialization', () => {
    const to = p2pkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), NETWORK).script;
    const tx = signedLegacy([{ script: to, amount: 2_100_000_000_000_000n }]);
    const decoded = decodeTransaction(tx.hex);
    expect(decoded.txid).toBe(tx.id);
    // 21 million BTC in satoshis: more than 2^53, so never a JavaScript number.
    expect(decoded.outputs[0]!.sats).toBe(2_100_000_000_000_000n);
  });

  it('refuses truncated data and trailing bytes', () => {
    const tx = signedSegwit([{ script: new Uint8Array([0x51]), amount: 1n }]);
    expect(() => decodeTransaction(tx.hex.slice(0, -10))).toThrow(MalformedBitcoinData);
    expect(() => decodeTransaction(`${tx.hex}00`)).toThrow(MalformedBitcoinData);
  });
});

describe('decodeBlock', () => {
  it('reads the header’s hash, previous hash and time, and every transaction in order', () => {
    const first = signedSegwit([{ script: new Uint8Array([0x51]), amount: 5n }]);
    const second = signedLegacy([{ script: new Uint8Array([0x51]), amount: 6n }]);
    const previous = randomBytes(32);
    const header = new Uint8Array(80);
    const view = new DataView(header.buffer);
    view.setUint32(0, 0x20000000, true);
    header.set(previous, 4);
    header.set(doubleSha(concatBytes(hexToBytes(first.id).reverse(), hexToBytes(second.id).reverse())), 36);
    view.setUint32(68, 1_764_000_000, true);
    view.setUint32(72, 0x207fffff, true);
    const block = concatBytes(
      header,
      new Uint8Array([2]),
      first.toBytes(true, true),
      second.toBytes(true, true),
    );
    const decoded = decodeBlock(bytesToHex(block));
    expect(decoded.hash).toBe(reversedHex(doubleSha(header)));
    expect(decoded.previousHash).toBe(reversedHex(previous));
    expect(decoded.time).toBe(1_764_000_000);
    expect(decoded.transactions.map((each) => each.txid)).toEqual([first.id, second.id]);
  });
});
