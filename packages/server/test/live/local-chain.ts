import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ganache from 'ganache';
import {
  type Abi,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  keccak256,
  parseGwei,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * A throw-away EVM chain (ganache, in process) for the live-payment-rail tests, with a switchable
 * loopback JSON-RPC proxy in front of it for the server under test.
 */
export interface LocalChain {
  /** JSON-RPC URL the server is pointed at: a loopback HTTP proxy in front of ganache that tests can switch off. */
  readonly rpcUrl: string;
  readonly chainId: number;
  /** Funded account that deploys and pays. */
  readonly payer: `0x${string}`;
  /**
   * Deploys TestToken (mined at once) and returns its checksummed address. The payer holds the whole
   * supply (10^9 whole tokens). Transfers queued before the call land in the same block.
   */
  deployToken(symbol: string, decimals: number): Promise<`0x${string}`>;
  /** Deploys a compiled contract from the payer (mined at once); returns its checksummed address. */
  deployContract(artifact: { abi: Abi; bytecode: Hex }, args?: readonly unknown[]): Promise<`0x${string}`>;
  /** Sends `wei` of the chain's coin from the payer to `to`; queued until the next mine() unless options.mine. */
  fund(to: `0x${string}`, wei: bigint, options?: { mine?: boolean }): Promise<`0x${string}`>;
  /** `token`'s balance of `holder` at the head, in base units. */
  tokenBalance(token: `0x${string}`, holder: `0x${string}`): Promise<bigint>;
  /** Sends `amount` base units of `token` from the payer to `to`; queued until the next mine() unless options.mine is true. Returns the tx hash. */
  transfer(
    token: `0x${string}`,
    to: `0x${string}`,
    amount: bigint,
    options?: { mine?: boolean },
  ): Promise<`0x${string}`>;
  /**
   * Mines `blocks` blocks (default 1), the first one including queued transactions; returns the new head
   * number. Throws when a queued transaction did not make it into that block or reverted (then the
   * blocks after the first are not mined).
   */
  mine(blocks?: number): Promise<bigint>;
  head(): Promise<bigint>;
  /**
   * Marks the chain state; revertTo(mark) drops every block after it (queued transactions are dropped too).
   * A mark can be reverted to once; reverting also forgets the marks taken after it.
   */
  mark(): Promise<string>;
  /** Throws when the mark is unknown or already used. Blocks mined afterwards get new hashes. */
  revertTo(mark: string): Promise<void>;
  /** While down, the proxy answers every request with HTTP 503 (mode 'error') or destroys the connection (mode 'refuse'). */
  rpcDown(mode?: 'error' | 'refuse'): void;
  /** Answers every call of `method` with a JSON-RPC error (e.g. a node refusing transactions); null undoes it. */
  refuseMethod(method: string | null): void;
  rpcUp(): void;
  /** Delays every proxied request by `ms` (0 to stop), so a test can catch the server in the middle of a scan. */
  rpcLatency(ms: number): void;
  /** JSON-RPC requests that reached the proxy (counting batches' members), for assertions about retries. */
  readonly requestsSeen: number;
  close(): Promise<void>;
}

/** The in-process side of ganache the harness drives, so its own calls never pass the proxy. */
interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

interface TransactionReceipt {
  status: Hex;
  contractAddress: Hex | null;
}

// A fixed key keeps the payer and the token addresses the same in every run, which makes failures
// easier to compare.
const payerKey = keccak256(toHex('cryptocheckout local chain payer'));
const payerBalance = 10n ** 24n; // 1,000,000 ether in wei: enough gas for any test.
// Fixed fees and gas skip the estimate round trips; the payer can always afford them.
const maxFeePerGas = parseGwei('100');
const maxPriorityFeePerGas = parseGwei('1');
const transferGas = 100_000n;
const deployGas = 3_000_000n;
const wholeTokenSupply = 1_000_000_000n;

/**
 * Starts ganache (mining stopped, the payer funded) and the loopback proxy in front of it.
 * @param options.chainId chain id ganache reports; default 137 (Polygon).
 * @throws when ganache or the proxy cannot listen on loopback.
 */
export async function startLocalChain(options: { chainId?: number } = {}): Promise<LocalChain> {
  const chainId = options.chainId ?? 137;
  const account = privateKeyToAccount(payerKey);
  const payer = account.address;

  const chainServer = ganache.server({
    logging: { quiet: true },
    // vmErrorsOnRPCResponse makes evm_mine fail on a reverted transaction, which is cheaper than
    // fetching every receipt; only evm_mine, miner_start and automatic mining look at it.
    chain: { chainId, networkId: chainId, hardfork: 'shanghai', vmErrorsOnRPCResponse: true },
    wallet: { accounts: [{ secretKey: payerKey, balance: toHex(payerBalance) }] },
  });
  await new Promise<void>((resolve, reject) =>
    chainServer.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
  );
  const upstreamPort = (chainServer.address() as AddressInfo).port;
  const provider = chainServer.provider as unknown as Eip1193Provider;
  const rpc = <T>(method: string, params: unknown[] = []) =>
    provider.request({ method, params }) as Promise<T>;

  const upstreamAgent = new Agent({ keepAlive: true });
  let downMode: 'error' | 'refuse' | null = null;
  let refusedMethod: string | null = null;
  let latencyMs = 0;
  let requestsSeen = 0;
  const proxy = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      requestsSeen += countJsonRpcRequests(body);
      if (downMode === 'refuse') {
        incoming.socket.destroy();
      } else if (refusedMethod !== null && body.includes(`"method":"${refusedMethod}"`)) {
        answerError(outgoing, body, `${refusedMethod} refused (LocalChain.refuseMethod)`);
      } else if (downMode === 'error') {
        outgoing
          .writeHead(503, { 'content-type': 'text/plain' })
          .end('JSON-RPC node down (LocalChain.rpcDown)');
      } else {
        void knownTransaction(body).then((known) => {
          // A real node refuses a transaction it holds already; ganache 7 would take it again and
          // mine it once per send, each time spending a nonce of the sender.
          if (known) answerError(outgoing, body, 'already known');
          else if (latencyMs > 0) setTimeout(() => forward(incoming, body, outgoing), latencyMs);
          else forward(incoming, body, outgoing);
        });
      }
    });
  });
  const answerError = (outgoing: ServerResponse, body: Buffer, message: string) => {
    const request = JSON.parse(body.toString('utf8')) as { id?: unknown };
    outgoing.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: Array.isArray(request) ? null : (request.id ?? null),
        error: { code: -32000, message },
      }),
    );
  };
  // The raw transactions the proxy passed on since the last revert (ganache's own pool forgets the
  // rest on a revert, though it still answers for them).
  const sentSinceRevert = new Set<Hex>();
  /** Whether `body` sends a raw transaction the node holds already (waiting or mined). */
  const knownTransaction = async (body: Buffer): Promise<boolean> => {
    if (!body.includes('"method":"eth_sendRawTransaction"')) return false;
    const request = JSON.parse(body.toString('utf8')) as { params?: [Hex] };
    if (Array.isArray(request) || !request.params) return false;
    const hash = keccak256(request.params[0]);
    const held = await rpc<{ blockNumber: Hex | null } | null>('eth_getTransactionByHash', [hash]).catch(
      () => null,
    );
    // Ganache still calls a transaction "pending" after a revert dropped it from its pool and will
    // never mine it; a real node would mine it again. Only one sent since the last revert is held.
    if (held !== null && held.blockNumber !== null) return true; // mined
    if (held !== null && sentSinceRevert.has(hash)) return true; // waiting in the pool
    sentSinceRevert.add(hash); // about to be passed on
    return false;
  };
  const forward = (incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse) => {
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: incoming.method,
        path: incoming.url,
        agent: upstreamAgent,
        headers: {
          'content-type': incoming.headers['content-type'] ?? 'application/json',
          'content-length': body.length,
        },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, {
          'content-type': response.headers['content-type'] ?? 'application/json',
        });
        response.pipe(outgoing);
      },
    );
    upstream.on('error', (error) => {
      if (outgoing.headersSent) {
        outgoing.destroy(error);
      } else {
        outgoing
          .writeHead(502, { 'content-type': 'text/plain' })
          .end(`ganache unreachable: ${error.message}`);
      }
    });
    upstream.end(body);
  };
  let nextNonce: number;
  try {
    // Tests decide which block holds which transfer.
    await rpc('miner_stop');
    nextNonce = Number(BigInt(await rpc<Hex>('eth_getTransactionCount', [payer, 'latest'])));
    await new Promise<void>((resolve, reject) => {
      proxy.once('error', reject);
      proxy.listen(0, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    proxy.close(() => undefined);
    upstreamAgent.destroy();
    await chainServer.close();
    throw error;
  }
  const rpcUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  // One operation at a time, in call order: nonces stay consecutive and a transfer not yet awaited
  // still lands before a later mine().
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task);
    queue = result.catch(() => undefined);
    return result;
  };

  let queued: Hex[] = [];
  const markHeights = new Map<string, bigint>();

  const head = async () => BigInt(await rpc<Hex>('eth_blockNumber'));

  const send = async (transaction: { to?: Hex; data: Hex; gas: bigint; value?: bigint }): Promise<Hex> => {
    const signed = await account.signTransaction({
      chainId,
      type: 'eip1559',
      nonce: nextNonce,
      maxFeePerGas,
      maxPriorityFeePerGas,
      value: 0n,
      ...transaction,
    });
    const hash = await rpc<Hex>('eth_sendRawTransaction', [signed]);
    nextNonce += 1;
    queued.push(hash);
    return hash;
  };

  const mineNow = async (blocks: number): Promise<bigint> => {
    if (!Number.isInteger(blocks) || blocks < 1) {
      throw new RangeError(`blocks must be a positive integer, got ${blocks}`);
    }
    const before = await head();
    const expected = queued;
    queued = [];
    await rpc('evm_mine', [{ blocks }]);
    if (expected.length > 0) {
      const block = await rpc<{ transactions: Hex[] }>('eth_getBlockByNumber', [toHex(before + 1n), false]);
      const included = new Set(block.transactions);
      const missing = expected.filter((hash) => !included.has(hash));
      if (missing.length > 0) {
        throw new Error(
          `${missing.length} queued transactions missed block ${before + 1n}: ${missing.join(', ')}`,
        );
      }
    }
    return head();
  };

  const deployNow = async (artifact: { abi: Abi; bytecode: Hex }, args: readonly unknown[]) => {
    const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    const hash = await send({ data, gas: deployGas });
    await mineNow(1);
    const receipt = await rpc<TransactionReceipt>('eth_getTransactionReceipt', [hash]);
    if (receipt.status !== '0x1' || !receipt.contractAddress)
      throw new Error(`deployment ${hash} created no contract`);
    return getAddress(receipt.contractAddress);
  };

  let closed: Promise<void> | null = null;

  return {
    rpcUrl,
    chainId,
    payer,
    get requestsSeen() {
      return requestsSeen;
    },

    deployToken(symbol, decimals) {
      return serial(async () => {
        if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
          throw new RangeError(`decimals must be an integer in 0..255, got ${decimals}`);
        }
        const supply = wholeTokenSupply * 10n ** BigInt(decimals);
        return deployNow(await testTokenArtifact(), [`Test ${symbol}`, symbol, decimals, supply]);
      });
    },

    deployContract(artifact, args = []) {
      return serial(() => deployNow(artifact, args));
    },

    fund(to, wei, options = {}) {
      return serial(async () => {
        const hash = await send({ to, data: '0x', gas: 21_000n, value: wei });
        if (options.mine) await mineNow(1);
        return hash;
      });
    },

    async tokenBalance(token, holder) {
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
      return BigInt(await rpc<Hex>('eth_call', [{ to: token, data }, 'latest']));
    },

    transfer(token, to, amount, options = {}) {
      return serial(async () => {
        if (amount < 0n) throw new RangeError(`amount must not be negative, got ${amount}`);
        const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
        const hash = await send({ to: token, data, gas: transferGas });
        if (options.mine) await mineNow(1);
        return hash;
      });
    },

    mine(blocks = 1) {
      return serial(() => mineNow(blocks));
    },

    head,

    mark() {
      return serial(async () => {
        const height = await head();
        const mark = await rpc<string>('evm_snapshot');
        markHeights.set(mark, height);
        return mark;
      });
    },

    revertTo(mark) {
      return serial(async () => {
        const height = markHeights.get(mark);
        if (height === undefined) throw new Error(`unknown or already used mark ${mark}`);
        const firstDropped =
          (await head()) > height
            ? await rpc<{ timestamp: Hex }>('eth_getBlockByNumber', [toHex(height + 1n), false])
            : null;
        if (!(await rpc<boolean>('evm_revert', [mark]))) {
          throw new Error(`ganache refused to revert to mark ${mark}`);
        }
        // Ganache forgets the reverted snapshot and every later one.
        const reverted = BigInt(mark);
        for (const known of [...markHeights.keys()]) if (BigInt(known) >= reverted) markHeights.delete(known);
        if (firstDropped) {
          // An empty block mined in the same second as the dropped one would get the very same hash,
          // which is no reorg; a later timestamp makes every replacement block differ.
          const notBefore = (Number(BigInt(firstDropped.timestamp)) + 1) * 1000;
          await rpc('evm_setTime', [Math.max(Date.now(), notBefore)]);
        }
        // The revert emptied the transaction pool.
        queued = [];
        sentSinceRevert.clear();
        nextNonce = Number(BigInt(await rpc<Hex>('eth_getTransactionCount', [payer, 'latest'])));
      });
    },

    rpcDown(mode = 'error') {
      downMode = mode;
    },

    rpcUp() {
      downMode = null;
    },

    refuseMethod(method) {
      refusedMethod = method;
    },

    rpcLatency(ms) {
      latencyMs = ms;
    },

    close() {
      closed ??= (async () => {
        await queue;
        await new Promise<void>((resolve) => {
          proxy.close(() => resolve());
          proxy.closeAllConnections();
        });
        upstreamAgent.destroy();
        await chainServer.close();
      })();
      return closed;
    },
  };
}

/** Counts JSON-RPC calls in a request body: a batch counts its members, anything else one. */
function countJsonRpcRequests(body: Buffer): number {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(parsed) ? parsed.length : 1;
  } catch {
    return 1;
  }
}

const require = createRequire(import.meta.url);
const tokenSourcePath = fileURLToPath(new URL('./TestToken.sol', import.meta.url));
const openZeppelinPrefix = '@openzeppelin/contracts/';
const artifactsInProgress = new Map<string, Promise<{ abi: Abi; bytecode: `0x${string}` }>>();

/**
 * Compiles TestToken.sol once per process and caches the artifact (abi + bytecode) in os.tmpdir() keyed by
 * the source and solc version hash. A cached artifact is used without loading solc at all.
 * @param options.cacheDirectory where the artifact file lives; default os.tmpdir().
 * @throws when solc reports an error.
 */
export async function testTokenArtifact(
  options: { cacheDirectory?: string } = {},
): Promise<{ abi: Abi; bytecode: `0x${string}` }> {
  const file = join(options.cacheDirectory ?? tmpdir(), `cryptocheckout-testtoken-${artifactKey()}.json`);
  let artifact = artifactsInProgress.get(file);
  if (!artifact) {
    artifact = loadOrCompile(file);
    artifactsInProgress.set(file, artifact);
    // A failed compilation is not cached, so a fixed source compiles on the next call.
    artifact.catch(() => artifactsInProgress.delete(file));
  }
  return artifact;
}

const compilerSettings = {
  evmVersion: 'shanghai', // ganache 7 knows no Cancun opcodes (MCOPY, transient storage)
  optimizer: { enabled: false },
  outputSelection: { '*': { TestToken: ['abi', 'evm.bytecode.object'] } },
} as const;

function packageVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/** Hash of everything the bytecode depends on: our source, the compiler, the imported library, the settings. */
function artifactKey(): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        readFileSync(tokenSourcePath, 'utf8'),
        packageVersion('solc'),
        packageVersion('@openzeppelin/contracts'),
        compilerSettings,
      ]),
    )
    .digest('hex')
    .slice(0, 16);
}

async function loadOrCompile(file: string): Promise<{ abi: Abi; bytecode: `0x${string}` }> {
  try {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { abi?: unknown; bytecode?: unknown };
    if (
      Array.isArray(cached.abi) &&
      typeof cached.bytecode === 'string' &&
      /^0x[0-9a-f]+$/.test(cached.bytecode)
    ) {
      return { abi: cached.abi as Abi, bytecode: cached.bytecode as `0x${string}` };
    }
  } catch {
    // Missing or unreadable: compile below.
  }
  const artifact = await compileTestToken();
  mkdirSync(dirname(file), { recursive: true });
  // Parallel test workers may compile at once: each writes its own file and renames it into place.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify(artifact));
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
  return artifact;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

async function compileTestToken(): Promise<{ abi: Abi; bytecode: `0x${string}` }> {
  // Loaded only here: solc-js is a large emscripten module that takes a noticeable time to load.
  const { default: solc } = await import('solc');
  const openZeppelinRoot = dirname(require.resolve('@openzeppelin/contracts/package.json'));
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: readFileSync(tokenSourcePath, 'utf8') } },
    settings: compilerSettings,
  };
  const findImport = (path: string) => {
    if (!path.startsWith(openZeppelinPrefix)) {
      return { error: `import outside @openzeppelin/contracts: ${path}` };
    }
    try {
      return {
        contents: readFileSync(join(openZeppelinRoot, path.slice(openZeppelinPrefix.length)), 'utf8'),
      };
    } catch (error) {
      return { error: `cannot read ${path}: ${(error as Error).message}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
  if (errors.length > 0) {
    throw new Error(
      `TestToken.sol does not compile:\n${errors.map((entry) => entry.formattedMessage).join('\n')}`,
    );
  }
  const contract = output.contracts?.['TestToken.sol']?.['TestToken'];
  if (!contract?.evm.bytecode.object) throw new Error('solc produced no TestToken bytecode');
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
