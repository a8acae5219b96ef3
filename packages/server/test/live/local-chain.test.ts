import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPublicClient,
  erc20Abi,
  getAddress,
  type Hex,
  HttpRequestError,
  http,
  keccak256,
  type PublicClient,
  pad,
  toEventSelector,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalChain, startLocalChain, testTokenArtifact } from './local-chain.js';

const transferTopic = toEventSelector('Transfer(address,address,uint256)');

interface RawLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
}

let chain: LocalChain;
let client: PublicClient;
let token: Hex;

// Distinct fresh recipients per test, so balances start at zero.
let recipientCounter = 0;
const freshRecipient = (): Hex =>
  getAddress(pad(toHex(0xc0ffee000000n + BigInt(++recipientCounter)), { size: 20 }));

const rawRequest = (method: string, params: unknown[] = []) =>
  fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });

const balanceOf = (owner: Hex) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });

const transferLogs = (fromBlock: bigint, toBlock: bigint) =>
  client.request({
    method: 'eth_getLogs',
    params: [
      { address: token, topics: [transferTopic], fromBlock: toHex(fromBlock), toBlock: toHex(toBlock) },
    ],
  }) as Promise<RawLog[]>;

beforeAll(async () => {
  chain = await startLocalChain();
  // No retries: the rpcDown tests must see the first failure.
  client = createPublicClient({ transport: http(chain.rpcUrl, { retryCount: 0 }) });
  token = await chain.deployToken('USDC', 6);
});

afterAll(async () => {
  await chain?.close();
});

describe('startLocalChain', () => {
  it('serves the configured chain id through the proxy', async () => {
    expect(chain.chainId).toBe(137);
    expect(await client.getChainId()).toBe(137);
  });

  it('deploys a TestToken with the requested decimals and the supply on the payer', async () => {
    expect(token).toBe(getAddress(token));
    expect(await client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' })).toBe(6);
    expect(await client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' })).toBe('USDC');
    expect(await balanceOf(chain.payer)).toBe(1_000_000_000n * 10n ** 6n);
  });

  it('deploys tokens with other decimals and rejects impossible ones', async () => {
    const eighteen = await chain.deployToken('WETH', 18);
    expect(eighteen).not.toBe(token);
    expect(await client.readContract({ address: eighteen, abi: erc20Abi, functionName: 'decimals' })).toBe(
      18,
    );
    await expect(chain.deployToken('BAD', 256)).rejects.toThrow(RangeError);
  });

  it('keeps queued transfers out of blocks until mine(), then puts them all in one block', async () => {
    const start = await chain.head();
    const payments = [
      { to: freshRecipient(), amount: 1_500_000n },
      { to: freshRecipient(), amount: 2n },
      { to: freshRecipient(), amount: 123_456_789n },
    ];
    const hashes = await Promise.all(payments.map(({ to, amount }) => chain.transfer(token, to, amount)));
    expect(new Set(hashes).size).toBe(3);
    expect(await chain.head()).toBe(start);
    expect(await client.request({ method: 'eth_getTransactionReceipt', params: [hashes[0]!] })).toBeNull();

    const mined = await chain.mine();
    expect(mined).toBe(start + 1n);
    expect(await chain.head()).toBe(mined);

    const transactions = await Promise.all(hashes.map((hash) => client.getTransaction({ hash })));
    expect(transactions.map((transaction) => transaction.blockNumber)).toEqual([mined, mined, mined]);
    // One mine() needs consecutive nonces: a gap would leave later transfers stuck in the pool.
    const nonces = transactions.map((transaction) => transaction.nonce);
    expect(nonces).toEqual([nonces[0], nonces[0]! + 1, nonces[0]! + 2]);

    const logs = await transferLogs(mined, mined);
    expect(logs).toHaveLength(3);
    for (const [index, { to, amount }] of payments.entries()) {
      const log = logs.find((entry) => entry.transactionHash === hashes[index]);
      expect(log?.topics[1]).toBe(pad(chain.payer.toLowerCase() as Hex, { size: 32 }));
      expect(log?.topics[2]).toBe(pad(to.toLowerCase() as Hex, { size: 32 }));
      expect(BigInt(log!.data)).toBe(amount);
      expect(BigInt(log!.blockNumber)).toBe(mined);
      expect(await balanceOf(to)).toBe(amount);
    }
  });

  it('mines a transfer at once with { mine: true } and moves the head by the blocks asked for', async () => {
    const start = await chain.head();
    const to = freshRecipient();
    const hash = await chain.transfer(token, to, 42n, { mine: true });
    expect(await chain.head()).toBe(start + 1n);
    expect((await client.getTransactionReceipt({ hash })).blockNumber).toBe(start + 1n);
    expect(await balanceOf(to)).toBe(42n);

    expect(await chain.mine(5)).toBe(start + 6n);
    await expect(chain.mine(0)).rejects.toThrow(RangeError);
  });

  it('fails mine() when a queued transfer reverts', async () => {
    const to = freshRecipient();
    await chain.transfer(token, to, 10n ** 40n); // more than the supply
    await expect(chain.mine()).rejects.toThrow(/revert/i);
    expect(await balanceOf(to)).toBe(0n);
    // The failure consumed its nonce; the next transfer still goes through.
    await chain.transfer(token, to, 7n, { mine: true });
    expect(await balanceOf(to)).toBe(7n);
  });
});

describe('mark and revertTo', () => {
  it('replaces the block holding a transfer: new hash at the same height, log and balance gone', async () => {
    const mark = await chain.mark();
    const height = await chain.head();
    const to = freshRecipient();
    const hash = await chain.transfer(token, to, 5_000_000n, { mine: true });
    const original = await client.getBlock({ blockNumber: height + 1n });
    expect(original.transactions).toContain(hash);
    expect(await transferLogs(height + 1n, height + 1n)).toHaveLength(1);

    await chain.revertTo(mark);
    expect(await chain.head()).toBe(height);
    expect(await chain.mine()).toBe(height + 1n);

    const replacement = await client.getBlock({ blockNumber: height + 1n });
    expect(replacement.hash).not.toBe(original.hash);
    expect(replacement.parentHash).toBe(original.parentHash);
    expect(replacement.transactions).toEqual([]);
    expect(await transferLogs(height + 1n, height + 1n)).toEqual([]);
    expect(await client.request({ method: 'eth_getTransactionReceipt', params: [hash] })).toBeNull();
    expect(await balanceOf(to)).toBe(0n);
  });

  it('gives even an empty replacement block a new hash', async () => {
    const mark = await chain.mark();
    const height = await chain.mine();
    const original = await client.getBlock({ blockNumber: height });
    await chain.revertTo(mark);
    await chain.mine();
    const replacement = await client.getBlock({ blockNumber: height });
    expect(replacement.hash).not.toBe(original.hash);
    expect(replacement.timestamp).toBeGreaterThan(original.timestamp);
  });

  it('drops queued transfers and reuses their nonce afterwards', async () => {
    const mark = await chain.mark();
    const dropped = freshRecipient();
    const droppedHash = await chain.transfer(token, dropped, 9n);
    await chain.revertTo(mark);
    const height = await chain.mine();
    expect((await client.getBlock({ blockNumber: height })).transactions).toEqual([]);
    expect(await client.request({ method: 'eth_getTransactionByHash', params: [droppedHash] })).toBeNull();

    const kept = freshRecipient();
    await chain.transfer(token, kept, 11n, { mine: true });
    expect(await balanceOf(kept)).toBe(11n);
    expect(await balanceOf(dropped)).toBe(0n);
  });

  it('refuses a mark that was already used', async () => {
    const mark = await chain.mark();
    await chain.revertTo(mark);
    await expect(chain.revertTo(mark)).rejects.toThrow(/mark/);
  });
});

describe('a transaction sent twice', () => {
  /** A funded account of its own (named `name`) and its signed first transfer to itself, not sent. */
  async function fundedSelfTransfer(name: string) {
    const sender = privateKeyToAccount(keccak256(toHex(name)));
    await chain.fund(sender.address, 10n ** 18n, { mine: true });
    const raw = await sender.signTransaction({
      to: sender.address,
      value: 1n,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      chainId: 137,
      type: 'eip1559',
    });
    return { sender, raw };
  }

  it('is refused as already known, like a real node, and mined once', async () => {
    const { sender, raw } = await fundedSelfTransfer('local-chain resend test');
    const first = (await (await rawRequest('eth_sendRawTransaction', [raw])).json()) as { result?: Hex };
    expect(first.result).toBe(keccak256(raw));
    const again = (await (await rawRequest('eth_sendRawTransaction', [raw])).json()) as {
      error?: { message: string };
    };
    expect(again.error?.message).toBe('already known');
    await chain.mine(1);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(1);
    const afterMined = (await (await rawRequest('eth_sendRawTransaction', [raw])).json()) as {
      error?: { message: string };
    };
    expect(afterMined.error?.message).toBe('already known');
    await chain.mine(1);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(1);
  });

  it('is taken again after a revert dropped the block that held it, and mined again, once', async () => {
    const { sender, raw } = await fundedSelfTransfer('local-chain resend after revert test');
    const send = async () =>
      (await (await rawRequest('eth_sendRawTransaction', [raw])).json()) as {
        result?: Hex;
        error?: { message: string };
      };
    expect((await send()).result).toBe(keccak256(raw));
    const mark = await chain.mark();
    await chain.mine(1);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(1);
    await chain.revertTo(mark);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(0);
    // Ganache still calls it pending but will never mine it; as a real node would, the proxy takes it.
    expect((await send()).result).toBe(keccak256(raw));
    expect((await send()).error?.message).toBe('already known');
    await chain.mine(1);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(1);
    await chain.mine(1);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(1);
  });
});

describe('rpcDown and rpcUp', () => {
  it("answers 503 in mode 'error', resets connections in mode 'refuse', and recovers on rpcUp", async () => {
    try {
      chain.rpcDown('error');
      const response = await rawRequest('eth_blockNumber');
      expect(response.status).toBe(503);
      await response.text();
      const error = await client.getBlockNumber({ cacheTime: 0 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(HttpRequestError);
      expect((error as HttpRequestError).status).toBe(503);

      chain.rpcDown('refuse');
      await expect(rawRequest('eth_blockNumber')).rejects.toThrow(TypeError); // undici: "fetch failed"
      const refused = await client.getBlockNumber({ cacheTime: 0 }).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(HttpRequestError);
      expect((refused as HttpRequestError).status).toBeUndefined();
    } finally {
      chain.rpcUp();
    }
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(await chain.head());
  });

  it('defaults to mode error', async () => {
    chain.rpcDown();
    try {
      const response = await rawRequest('eth_chainId');
      expect(response.status).toBe(503);
      await response.text();
    } finally {
      chain.rpcUp();
    }
  });

  it('counts requests that reach the proxy, batch members included, down or not', async () => {
    const before = chain.requestsSeen;
    await (await rawRequest('eth_blockNumber')).json();
    expect(chain.requestsSeen).toBe(before + 1);

    const batch = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })),
      ),
    });
    expect(await batch.json()).toHaveLength(3);
    expect(chain.requestsSeen).toBe(before + 4);

    chain.rpcDown('refuse');
    try {
      await expect(rawRequest('eth_blockNumber')).rejects.toThrow();
    } finally {
      chain.rpcUp();
    }
    expect(chain.requestsSeen).toBe(before + 5);
  });

  it('keeps the harness working while the proxy is down and leaves its own calls uncounted', async () => {
    const before = chain.requestsSeen;
    chain.rpcDown('refuse');
    try {
      const start = await chain.head();
      const to = freshRecipient();
      await chain.transfer(token, to, 3n, { mine: true });
      expect(await chain.head()).toBe(start + 1n);
    } finally {
      chain.rpcUp();
    }
    expect(chain.requestsSeen).toBe(before);
  });
});

describe('testTokenArtifact', () => {
  it('returns the artifact from memory on the second call', async () => {
    const first = await testTokenArtifact();
    expect(first.bytecode).toMatch(/^0x[0-9a-f]+$/);
    expect(first.abi.some((item) => item.type === 'function' && item.name === 'decimals')).toBe(true);
    expect(await testTokenArtifact()).toBe(first);
  });

  it('writes the artifact once and later processes read it without running solc', async () => {
    const cacheDirectory = mkdtempSync(join(tmpdir(), 'cryptocheckout-artifact-test-'));
    try {
      const compiled = await testTokenArtifact({ cacheDirectory });
      const files = readdirSync(cacheDirectory);
      expect(files).toEqual([expect.stringMatching(/^cryptocheckout-testtoken-[0-9a-f]{16}\.json$/)]);
      const written = statSync(join(cacheDirectory, files[0]!)).mtimeMs;

      // A fresh module instance stands for a new process; solc is replaced by one that cannot compile.
      vi.resetModules();
      vi.doMock('solc', () => ({
        default: {
          compile: () => {
            throw new Error('solc must not run');
          },
        },
      }));
      const fresh = await import('./local-chain.js');
      expect(await fresh.testTokenArtifact({ cacheDirectory })).toEqual(compiled);
      expect(statSync(join(cacheDirectory, files[0]!)).mtimeMs).toBe(written);
      // The stand-in is in effect: without a cache file the same module instance has to compile and fails.
      const empty = mkdtempSync(join(tmpdir(), 'cryptocheckout-artifact-test-'));
      try {
        await expect(fresh.testTokenArtifact({ cacheDirectory: empty })).rejects.toThrow('solc must not run');
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    } finally {
      vi.doUnmock('solc');
      vi.resetModules();
      rmSync(cacheDirectory, { recursive: true, force: true });
    }
  });
});
