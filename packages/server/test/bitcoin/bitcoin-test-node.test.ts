import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { Address, OutScript, p2wpkh, SigHash, Transaction } from '@scure/btc-signer';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BitcoinRpcError,
  type BitcoinTestNode,
  type BitcoinTestNodeOptions,
  type ParsedBlock,
  parseBlock,
  REGTEST_NETWORK,
  startBitcoinTestNode,
} from './bitcoin-test-node.js';

const REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const MAIN_GENESIS = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';

const nodes: BitcoinTestNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.close()));
});

async function start(options: BitcoinTestNodeOptions = {}): Promise<BitcoinTestNode> {
  const node = await startBitcoinTestNode(options);
  nodes.push(node);
  return node;
}

// Independent of the node's code: the consensus rules written again here.
const dsha = (bytes: Uint8Array): Uint8Array => sha256(sha256(bytes));
const reversedHex = (bytes: Uint8Array): string => bytesToHex(Uint8Array.from(bytes).reverse());
function merkleRootHex(txids: string[]): string {
  let level: Uint8Array[] = txids.map((txid) => hexToBytes(txid).reverse());
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(dsha(concatBytes(level[i]!, level[i + 1] ?? level[i]!)));
    level = next;
  }
  return reversedHex(level[0]!);
}

/** BIP34: the height as Core's `CScript() << height` pushes it (OP_1..OP_16, else a minimal script number). */
function bip34Push(height: number): string {
  if (height >= 1 && height <= 16) return (0x50 + height).toString(16);
  const bytes: number[] = [];
  for (let n = height; n > 0; n >>= 8) bytes.push(n & 0xff);
  if (bytes.at(-1)! & 0x80) bytes.push(0);
  return bytesToHex(Uint8Array.from([bytes.length, ...bytes]));
}

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string } | null;
  id?: unknown;
}

interface MempoolEntryJson {
  fees: { base: number };
  'bip125-replaceable': boolean;
  [field: string]: unknown;
}

/** A raw HTTP exchange with the node: status and parsed body (undefined when empty). */
async function post(
  node: BitcoinTestNode,
  body: unknown,
  headers: Record<string, string> = node.authorization ? { authorization: node.authorization } : {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(node.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BitcoinRpcError);
  const { code, message } = error as BitcoinRpcError;
  return { code, message };
}

const rawBlock = async (node: BitcoinTestNode, hash: string): Promise<ParsedBlock> =>
  parseBlock(await node.rpc<string>('getblock', [hash, 0]));

/** The outpoints a transaction spends, as txid:vout. */
function spends(hex: string): string[] {
  const tx = Transaction.fromRaw(hexToBytes(hex), { allowUnknownOutputs: true });
  return Array.from({ length: tx.inputsLength }, (_, i) => {
    const input = tx.getInput(i);
    return `${bytesToHex(input.txid!)}:${input.index}`;
  });
}

describe('the Bitcoin test node: chain', () => {
  it('starts on the real regtest genesis with 101 blocks, as getblockchaininfo and friends say', async () => {
    const node = await start();
    expect(node.tipHeight()).toBe(101);
    const info = await node.rpc<Record<string, unknown>>('getblockchaininfo');
    expect(info).toMatchObject({
      chain: 'regtest',
      blocks: 101,
      headers: 101,
      bestblockhash: node.tipHash(),
      pruned: false,
      initialblockdownload: false,
      verificationprogress: 1,
      difficulty: 4.656542373906925e-10,
      chainwork: (2 * 102).toString(16).padStart(64, '0'),
    });
    expect(await node.rpc('getblockcount')).toBe(101);
    expect(await node.rpc('getbestblockhash')).toBe(node.tipHash());
    expect(await node.rpc('getblockhash', [0])).toBe(REGTEST_GENESIS);
    expect(await node.rpc('getblockhash', [101])).toBe(node.tipHash());
    expect(await rpcError(node.rpc('getblockhash', [102]))).toEqual({
      code: -8,
      message: 'Block height out of range',
    });
    expect(await rpcError(node.rpc('getblockhash', [-1]))).toEqual({
      code: -8,
      message: 'Block height out of range',
    });
    expect(await rpcError(node.rpc('getblockheader', ['00'.repeat(32)]))).toEqual({
      code: -5,
      message: 'Block not found',
    });
    expect((await rpcError(node.rpc('getblockheader', ['abc']))).code).toBe(-8);
    expect(typeof (await node.rpc('uptime'))).toBe('number');
    expect(await node.rpc('getindexinfo')).toEqual({});
  });

  it('serves real blocks: linked by previousblockhash, merkle roots and txids as computed here, BIP34 and BIP141', async () => {
    const node = await start({ startHeight: 12 });
    const buyer = node.newBuyer(50_000_000n);
    node.pay(buyer, [{ address: node.randomAddress(), sats: 1_000_000n }]);
    node.mine();
    let previous: string | undefined;
    for (let height = 0; height <= node.tipHeight(); height++) {
      const hash = await node.rpc<string>('getblockhash', [height]);
      const header = await node.rpc<Record<string, unknown>>('getblockheader', [hash, true]);
      const block = await rawBlock(node, hash);
      expect(block.hash).toBe(hash);
      expect(reversedHex(dsha(hexToBytes(block.header)))).toBe(hash);
      expect(await node.rpc('getblockheader', [hash, false])).toBe(block.header);
      const txids = block.transactions.map((t) => t.txid);
      for (const t of block.transactions) expect(reversedHex(dsha(t.tx.toBytes(true, false)))).toBe(t.txid);
      expect(block.merkleroot).toBe(merkleRootHex(txids));
      expect(header).toMatchObject({
        hash,
        height,
        confirmations: node.tipHeight() - height + 1,
        merkleroot: block.merkleroot,
        time: block.time,
        nonce: block.nonce,
        nTx: txids.length,
        bits: block.bits.toString(16).padStart(8, '0'),
      });
      expect(header.previousblockhash).toBe(previous);
      if (previous) expect(block.previousblockhash).toBe(previous);
      if (height < node.tipHeight())
        expect(header.nextblockhash).toBe(await node.rpc('getblockhash', [height + 1]));
      else expect(header).not.toHaveProperty('nextblockhash');
      const verbose = await node.rpc<Record<string, unknown>>('getblock', [hash, 1]);
      expect(verbose.tx).toEqual(txids);
      expect(verbose.size).toBe(hexToBytes(await node.rpc<string>('getblock', [hash, 0])).length);
      if (height > 0) {
        expect(block.bits).toBe(0x207fffff);
        expect(block.version).toBe(0x20000000);
        expect(header.mediantime).toBeLessThanOrEqual(block.time);
        const coinbase = block.transactions[0]!.tx;
        // BIP34: the scriptSig starts with the height as a script number.
        const scriptSig = coinbase.getInput(0).finalScriptSig!;
        expect(bytesToHex(scriptSig).startsWith(bip34Push(height))).toBe(true);
        // BIP141: witness commitment over the wtxids (the coinbase's counted as zero).
        const wtxids = ['00'.repeat(32), ...block.transactions.slice(1).map((t) => t.wtxid)];
        const commitment = dsha(concatBytes(hexToBytes(merkleRootHex(wtxids)).reverse(), new Uint8Array(32)));
        const outputs = Array.from(
          { length: coinbase.outputsLength },
          (_, i) => coinbase.getOutput(i).script!,
        );
        expect(outputs.map(bytesToHex)).toContain(`6a24aa21a9ed${bytesToHex(commitment)}`);
      }
      previous = hash;
    }
  });

  it('a payment is a real signed transaction whose output carries the sats to the script', async () => {
    const node = await start();
    const buyer = node.newBuyer();
    expect(buyer.address.startsWith('bcrt1q')).toBe(true);
    expect(node.balance(buyer, { confirmedOnly: true })).toBe(100_000_000n);
    const merchant = p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), REGTEST_NETWORK);
    const paid = node.pay(buyer, [{ address: merchant.address!, sats: 123_456n }]);
    expect(await node.rpc('getrawmempool', [false])).toEqual([paid.txid]);
    expect(await node.rpc('getrawtransaction', [paid.txid, false])).toBe(paid.hex);

    const tx = Transaction.fromRaw(hexToBytes(paid.hex), { allowUnknownOutputs: true });
    expect(tx.id).toBe(paid.txid);
    expect(tx.getOutput(0)).toMatchObject({ amount: 123_456n });
    expect(bytesToHex(tx.getOutput(0).script!)).toBe(bytesToHex(merchant.script));
    expect(bytesToHex(tx.getOutput(1).script!)).toBe(bytesToHex(buyer.script));
    expect(tx.getOutput(1).amount).toBe(100_000_000n - 123_456n - 500n);
    // The witness is a valid BIP143 signature by the buyer's key.
    const input = tx.getInput(0);
    const [signature, publicKey] = input.finalScriptWitness!;
    expect(bytesToHex(publicKey!)).toBe(bytesToHex(buyer.publicKey));
    const pkh = OutScript.encode({ type: 'pkh', hash: p2wpkh(buyer.publicKey).hash });
    const digest = tx.preimageWitnessV0(0, pkh, SigHash.ALL, 100_000_000n);
    expect(signature!.at(-1)).toBe(SigHash.ALL);
    expect(
      secp256k1.verify(signature!.subarray(0, -1), digest, buyer.publicKey, {
        prehash: false,
        format: 'der',
      }),
    ).toBe(true);
    expect(`${bytesToHex(input.txid!)}:${input.index}`).toBe(`${buyer.fundingTxid}:0`);

    const entry = await node.rpc<MempoolEntryJson>('getmempoolentry', [paid.txid]);
    expect(entry).toMatchObject({
      vsize: tx.vsize,
      weight: tx.weight,
      height: node.tipHeight(),
      ancestorcount: 1,
      descendantcount: 1,
      wtxid: reversedHex(dsha(hexToBytes(paid.hex))),
      fees: { base: 0.000005 },
      depends: [],
      spentby: [],
      'bip125-replaceable': false,
    });
    // Amounts are written as Core writes them: 8 decimals.
    const raw = await post(node, { id: 1, method: 'getrawmempool', params: [true] });
    expect(JSON.stringify(raw.body)).toContain('"base":0.000005');
    expect(Object.keys((raw.body as RpcAnswer).result as object)).toEqual([paid.txid]);

    const [blockHash] = node.mine();
    expect(await node.rpc('getrawmempool')).toEqual([]);
    expect(await rpcError(node.rpc('getrawtransaction', [paid.txid, false]))).toEqual({
      code: -5,
      message:
        'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.',
    });
    expect(await node.rpc('getrawtransaction', [paid.txid, false, blockHash])).toBe(paid.hex);
    expect((await rpcError(node.rpc('getmempoolentry', [paid.txid]))).code).toBe(-5);
    const block = await rawBlock(node, blockHash!);
    expect(block.transactions.map((t) => t.txid)).toEqual([block.transactions[0]!.txid, paid.txid]);
    // The coinbase takes the subsidy (no halving before height 150 on regtest) and the fee.
    expect(block.transactions[0]!.tx.getOutput(0).amount).toBe(5_000_000_000n + 500n);
    expect(node.balance(buyer)).toBe(100_000_000n - 123_456n - 500n);
  });

  it('RBF: the replacement spends the same inputs with a higher fee and the original leaves the mempool', async () => {
    const node = await start();
    const buyer = node.newBuyer();
    const merchant = node.randomAddress();
    const first = node.pay(buyer, [{ address: merchant, sats: 40_000n }], { replaceable: true });
    expect(Transaction.fromRaw(hexToBytes(first.hex)).getInput(0).sequence).toBe(0xfffffffd);
    expect((await node.rpc<MempoolEntryJson>('getmempoolentry', [first.txid]))['bip125-replaceable']).toBe(
      true,
    );
    const other = node.randomAddress();
    const second = node.replace(first.txid, [{ address: other, sats: 40_000n }], { feeSats: 2_000n });
    expect(await node.rpc('getrawmempool')).toEqual([second.txid]);
    expect(spends(second.hex)).toEqual(spends(first.hex));
    const tx = Transaction.fromRaw(hexToBytes(second.hex));
    expect(tx.getOutputAddress(0, REGTEST_NETWORK)).toBe(other);
    expect((await node.rpc<MempoolEntryJson>('getmempoolentry', [second.txid])).fees.base).toBe(0.00002);
    expect((await rpcError(node.rpc('getrawtransaction', [first.txid]))).code).toBe(-5);
    expect(() => node.replace(second.txid, [{ address: other, sats: 40_000n }], { feeSats: 1_000n })).toThrow(
      /BIP125/,
    );
    const [hash] = node.mine();
    expect((await rawBlock(node, hash!)).transactions.map((t) => t.txid).slice(1)).toEqual([second.txid]);
  });

  it('a double spend mined in a block removes the original (and its child) from the mempool', async () => {
    const node = await start();
    const buyer = node.newBuyer();
    const payment = node.pay(buyer, [{ address: node.randomAddress(), sats: 70_000n }]);
    const child = node.pay(buyer, [{ address: node.randomAddress(), sats: 99_000_000n }]);
    expect(spends(child.hex)).toEqual([`${payment.txid}:1`]);
    expect(await node.rpc('getrawmempool')).toEqual([payment.txid, child.txid]);
    const height = node.tipHeight();
    const conflict = node.doubleSpend(payment.txid);
    expect(node.tipHeight()).toBe(height + 1);
    expect(conflict.blockHash).toBe(node.tipHash());
    expect(await node.rpc('getrawmempool')).toEqual([]);
    expect(spends(conflict.hex)).toEqual(spends(payment.hex));
    const block = await rawBlock(node, conflict.blockHash!);
    expect(block.transactions.slice(1).map((t) => t.txid)).toEqual([conflict.txid]);
    // Everything back to the buyer, minus a fee above the original's.
    const tx = Transaction.fromRaw(hexToBytes(conflict.hex));
    expect(tx.outputsLength).toBe(1);
    expect(bytesToHex(tx.getOutput(0).script!)).toBe(bytesToHex(buyer.script));
    expect(tx.getOutput(0).amount).toBe(100_000_000n - 1_500n);
    expect(() => node.doubleSpend(conflict.txid)).toThrow(/active chain/);
  });

  it('a double spend with mine: false replaces the original in the mempool', async () => {
    const node = await start();
    const buyer = node.newBuyer();
    const payment = node.pay(buyer, [{ address: node.randomAddress(), sats: 70_000n }]);
    const conflict = node.doubleSpend(payment.txid, { mine: false });
    expect(conflict.blockHash).toBeUndefined();
    expect(await node.rpc('getrawmempool')).toEqual([conflict.txid]);
    expect(spends(conflict.hex)).toEqual(spends(payment.hex));
  });

  it('a reorg changes getblockhash at the dropped heights, returns transactions to the mempool, orphans keep their blocks', async () => {
    const node = await start();
    const buyer = node.newBuyer();
    const payment = node.pay(buyer, [{ address: node.randomAddress(), sats: 10_000n }]);
    const [minedIn] = node.mine();
    const [above] = node.mine();
    const height = node.tipHeight();
    const newHashes = node.reorg(2);
    expect(newHashes).toHaveLength(3);
    expect(node.tipHeight()).toBe(height + 1);
    expect(await node.rpc('getblockhash', [height - 1])).toBe(newHashes[0]);
    expect(await node.rpc('getblockhash', [height])).toBe(newHashes[1]);
    expect(newHashes).not.toContain(minedIn);
    expect(await node.rpc('getrawmempool')).toEqual([payment.txid]);
    expect(await node.rpc('getrawtransaction', [payment.txid, false])).toBe(payment.hex);

    const orphan = await node.rpc<Record<string, unknown>>('getblockheader', [minedIn]);
    expect(orphan.confirmations).toBe(-1);
    expect(orphan).not.toHaveProperty('nextblockhash');
    expect((await node.rpc<Record<string, unknown>>('getblockheader', [above])).confirmations).toBe(-1);
    // Still served by hash, transaction included (Core keeps stale blocks).
    expect((await rawBlock(node, minedIn!)).transactions.map((t) => t.txid)).toContain(payment.txid);
    expect(await node.rpc('getrawtransaction', [payment.txid, false, minedIn])).toBe(payment.hex);
    // The new branch links to the fork point.
    const first = await node.rpc<Record<string, unknown>>('getblockheader', [newHashes[0]]);
    expect(first.previousblockhash).toBe(await node.rpc('getblockhash', [height - 2]));
    expect((await rawBlock(node, newHashes[0]!)).transactions).toHaveLength(1);
  });

  it('a reorg may drop a transaction or move it to the new branch', async () => {
    const node = await start();
    const buyer = node.newBuyer();
    const dropped = node.pay(buyer, [{ address: node.randomAddress(), sats: 10_000n }]);
    const spendsDropped = node.pay(buyer, [{ address: node.randomAddress(), sats: 20_000n }]);
    node.mine();
    node.reorg(1, { dropTransactions: [dropped.txid] });
    // Its child cannot stand without it.
    expect(await node.rpc('getrawmempool')).toEqual([]);

    const other = node.newBuyer();
    const moved = node.pay(other, [{ address: node.randomAddress(), sats: 30_000n }]);
    const [first] = node.mine();
    const [newFirst] = node.reorg(1, { includeInNewBranch: [moved.txid], newBlocks: 2 });
    expect(newFirst).not.toBe(first);
    expect(await node.rpc('getrawmempool')).toEqual([]);
    expect(await node.rpc('getrawtransaction', [moved.txid, false, newFirst])).toBe(moved.hex);
    expect((await rpcError(node.rpc('getrawtransaction', [spendsDropped.txid, false, newFirst]))).code).toBe(
      -5,
    );
    // The dropped payment's coins are spendable again: a conflicting spend can be mined.
    const conflict = node.doubleSpend(dropped.txid);
    expect(spends(conflict.hex)).toEqual(spends(dropped.hex));
  });

  it('mine takes only `include`, or the mempool minus `exclude` and its descendants; evict removes a transaction', async () => {
    const node = await start();
    const a = node.newBuyer();
    const b = node.newBuyer();
    const payA = node.pay(a, [{ address: node.randomAddress(), sats: 10_000n }]);
    const childA = node.pay(a, [{ address: node.randomAddress(), sats: 10_000n }]);
    const payB = node.pay(b, [{ address: node.randomAddress(), sats: 10_000n }]);
    const [onlyChild] = node.mine(1, { include: [childA.txid] });
    // The child comes with its unconfirmed parent.
    expect((await rawBlock(node, onlyChild!)).transactions.slice(1).map((t) => t.txid)).toEqual([
      payA.txid,
      childA.txid,
    ]);
    expect(await node.rpc('getrawmempool')).toEqual([payB.txid]);

    const payA2 = node.pay(a, [{ address: node.randomAddress(), sats: 10_000n }]);
    const hashes = node.mine(3, { exclude: [payB.txid] });
    expect(hashes).toHaveLength(3);
    expect((await rawBlock(node, hashes[0]!)).transactions.slice(1).map((t) => t.txid)).toEqual([payA2.txid]);
    expect((await rawBlock(node, hashes[2]!)).transactions).toHaveLength(1);
    expect(await node.rpc('getrawmempool')).toEqual([payB.txid]);

    node.evict(payB.txid);
    expect(await node.rpc('getrawmempool')).toEqual([]);
    expect((await rpcError(node.rpc('getrawtransaction', [payB.txid]))).code).toBe(-5);
    expect(() => node.evict(payB.txid)).toThrow(/not in the mempool/);
    // Mined although never relayed.
    const [late] = node.mine(1, { include: [payB.txid] });
    expect(await node.rpc('getrawtransaction', [payB.txid, false, late])).toBe(payB.hex);
  });

  it('serves the main chain: its genesis, bc1 addresses; a regtest address is refused', async () => {
    const node = await start({ chain: 'main', startHeight: 3 });
    expect(await node.rpc('getblockhash', [0])).toBe(MAIN_GENESIS);
    expect((await node.rpc<Record<string, unknown>>('getblockchaininfo')).chain).toBe('main');
    const buyer = node.newBuyer(1_000_000n);
    expect(buyer.address.startsWith('bc1q')).toBe(true);
    const address = node.randomAddress();
    const paid = node.pay(buyer, [{ address, sats: 5_000n }]);
    expect(Transaction.fromRaw(hexToBytes(paid.hex)).getOutputAddress(0)).toBe(address);
    const regtestAddress = Address(REGTEST_NETWORK).encode({ type: 'wpkh', hash: new Uint8Array(20) });
    expect(() => node.pay(buyer, [{ address: regtestAddress, sats: 5_000n }])).toThrow(
      /not an address of main/,
    );
    expect(() => node.pay(buyer, [{ address, sats: 5_000_000n }])).toThrow(/spendable sats/);
  });

  it('mineFiller mines a block of real signed transactions paying random addresses', async () => {
    const node = await start();
    const buyer = node.newBuyer();
    const waiting = node.pay(buyer, [{ address: node.randomAddress(), sats: 10_000n }]);
    const hash = node.mineFiller(300);
    const block = await rawBlock(node, hash);
    expect(block.transactions).toHaveLength(1 + 1 + 1 + 300);
    expect(block.transactions[1]!.txid).toBe(waiting.txid);
    expect(block.merkleroot).toBe(merkleRootHex(block.transactions.map((t) => t.txid)));
    const fanOut = block.transactions[2]!;
    const filler = block.transactions[100]!.tx;
    expect(filler.isFinal).toBe(true);
    expect(bytesToHex(filler.getInput(0).txid!)).toBe(fanOut.txid);
    expect(await node.rpc('getrawmempool')).toEqual([]);
  });
});

describe('the Bitcoin test node: JSON-RPC over HTTP', () => {
  it('requires HTTP Basic credentials when created with them', async () => {
    const node = await start({ user: 'shop', password: 'p@ss word', startHeight: 1 });
    expect(node.url).toBe(`http://shop:p%40ss%20word@127.0.0.1:${node.port}/`);
    const url = new URL(node.url);
    expect(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toBe('shop:p@ss word');
    const call = { jsonrpc: '1.0', id: 'a', method: 'getblockcount', params: [] };
    const none = await post(node, call, {});
    expect(none.status).toBe(401);
    const wrong = await post(node, call, {
      authorization: `Basic ${Buffer.from('shop:nope').toString('base64')}`,
    });
    expect(wrong.status).toBe(401);
    const right = await post(node, call);
    expect(right).toEqual({ status: 200, body: { result: 1, error: null, id: 'a' } });
    expect(node.calls().total).toBe(1);
  });

  it('answers batches call by call, unknown methods with -32601, JSON-RPC 2.0 without the null field', async () => {
    const node = await start({ startHeight: 2 });
    const batch = await post(node, [
      { jsonrpc: '1.0', id: 1, method: 'getblockcount', params: [] },
      { jsonrpc: '1.0', id: 2, method: 'getbestblockhash' },
      { jsonrpc: '1.0', id: 3, method: 'sendtoaddress', params: [] },
      { jsonrpc: '1.0', id: 4, method: 'getblockhash', params: { height: 0 } },
      { jsonrpc: '1.0', id: 5, method: 'getblockhash', params: ['0'] },
      { jsonrpc: '1.0', id: 6, method: 'getblock', params: { blockhash: REGTEST_GENESIS, verbose: 0 } },
      { jsonrpc: '1.0', id: 7, method: 'getblockhash', params: [] },
    ]);
    expect(batch.status).toBe(200);
    expect(batch.body).toEqual([
      { result: 2, error: null, id: 1 },
      { result: node.tipHash(), error: null, id: 2 },
      { result: null, error: { code: -32601, message: 'Method not found' }, id: 3 },
      { result: REGTEST_GENESIS, error: null, id: 4 },
      {
        result: null,
        error: { code: -3, message: 'JSON value of type string is not of expected type number' },
        id: 5,
      },
      { result: node.blockHex(REGTEST_GENESIS), error: null, id: 6 },
      { result: null, error: { code: -1, message: 'getblockhash height' }, id: 7 },
    ]);
    const unknown = await post(node, { id: 9, method: 'nope', params: [] });
    expect(unknown).toEqual({
      status: 404,
      body: { result: null, error: { code: -32601, message: 'Method not found' }, id: 9 },
    });
    const failing = await post(node, { id: 10, method: 'getblockhash', params: [99] });
    expect(failing.status).toBe(500);
    const v2 = await post(node, { jsonrpc: '2.0', id: 11, method: 'getblockcount', params: [] });
    expect(v2).toEqual({ status: 200, body: { jsonrpc: '2.0', result: 2, id: 11 } });
    const v2error = await post(node, { jsonrpc: '2.0', id: 12, method: 'nope' });
    expect(v2error).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 12 },
    });
    expect(((await post(node, '{not json')).body as RpcAnswer).error?.code).toBe(-32700);
    expect(node.calls()).toEqual({
      total: 11,
      byMethod: {
        getblockcount: 2,
        getbestblockhash: 1,
        sendtoaddress: 1,
        getblockhash: 4,
        getblock: 1,
        nope: 2,
      },
    });
    node.resetCalls();
    expect(node.calls()).toEqual({ total: 0, byMethod: {} });
  });

  it('outages: down, error, warmup, slow, and back', async () => {
    const node = await start({ startHeight: 1 });
    const call = { id: 1, method: 'getblockcount', params: [] };
    node.setOutage('down');
    await expect(post(node, call)).rejects.toThrow();
    node.setOutage('error');
    expect(await post(node, call)).toEqual({
      status: 500,
      body: { result: null, error: { code: -32603, message: 'Internal error' }, id: 1 },
    });
    node.setOutage('warmup');
    const warmup = await post(node, call);
    expect(warmup.status).toBe(500);
    expect((warmup.body as RpcAnswer).error).toEqual({ code: -28, message: 'Loading block index…' });
    expect(((await post(node, [call])).body as RpcAnswer[])[0]?.error?.code).toBe(-28);
    node.setOutage('slow', 300);
    const started = Date.now();
    expect(((await post(node, call)).body as RpcAnswer).result).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    node.setOutage(null);
    expect(await post(node, call)).toEqual({ status: 200, body: { result: 1, error: null, id: 1 } });
    // Answered calls only: not the one refused while down.
    expect(node.calls().total).toBe(5);
  });

  it('close() releases an answer held by a slow outage and stops serving', async () => {
    const node = await start({ startHeight: 1 });
    node.setOutage('slow', 60_000);
    const pending = post(node, { id: 1, method: 'getblockcount', params: [] }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await node.close();
    expect(await pending).toBeInstanceOf(Error);
    await expect(post(node, { id: 1, method: 'getblockcount', params: [] })).rejects.toThrow();
  });
});
