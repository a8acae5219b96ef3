import { readFile } from 'node:fs/promises';
import type { BitcoinNetworkConfig } from './bitcoin-network.js';

/** Longest an RPC answer may take before the call fails and the watcher backs off (ms). */
const CALL_TIMEOUT_MS = 30_000;
/** Bitcoin Core's "No such mempool or blockchain transaction". */
export const RPC_INVALID_ADDRESS_OR_KEY = -5;

/** A Bitcoin Core JSON-RPC error answer or a transport failure, with the method it came from. */
export class BitcoinRpcError extends Error {
  constructor(
    readonly method: string,
    message: string,
    readonly rpcCode?: number,
  ) {
    super(`${method}: ${message}`);
    this.name = 'BitcoinRpcError';
  }
}

/** `getblockchaininfo`: what the watcher reads of it. */
export interface BlockchainInfo {
  chain: string;
  blocks: number;
  bestblockhash: string;
  initialblockdownload?: boolean;
  pruned?: boolean;
}

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string } | null;
  id?: unknown;
}

/**
 * The documented Bitcoin Core JSON-RPC methods the watcher uses (a pruned node answers all of them),
 * over fetch with HTTP Basic authentication, each call counted by method (health, the benchmark).
 * Blocks and transactions are read raw and decoded here, so no amount ever passes through a JSON number.
 */
export class BitcoinRpc {
  readonly calls = new Map<string, number>();

  constructor(
    private readonly config: Pick<BitcoinNetworkConfig, 'rpcUrl' | 'credentials' | 'cookieFile'>,
    private readonly timeoutMs = CALL_TIMEOUT_MS,
  ) {}

  /** Calls made so far, all methods together (a batch counts each call). */
  get totalCalls(): number {
    let total = 0;
    for (const count of this.calls.values()) total += count;
    return total;
  }

  getBlockchainInfo(): Promise<BlockchainInfo> {
    return this.call('getblockchaininfo', []);
  }

  getBestBlockHash(): Promise<string> {
    return this.call('getbestblockhash', []);
  }

  getBlockCount(): Promise<number> {
    return this.call('getblockcount', []);
  }

  getBlockHash(height: number): Promise<string> {
    return this.call('getblockhash', [height]);
  }

  /** A block's header fields the watcher reads: its time (Unix seconds) and height. */
  getBlockHeader(hash: string): Promise<{ time: number; height: number }> {
    return this.call('getblockheader', [hash, true]);
  }

  /** The serialized block, as hex (verbosity 0). */
  getRawBlock(hash: string): Promise<string> {
    return this.call('getblock', [hash, 0]);
  }

  getRawMempool(): Promise<string[]> {
    return this.call('getrawmempool', [false]);
  }

  /**
   * Serialized mempool transactions by txid, in one batch; a txid that left the mempool meanwhile
   * maps to undefined.
   */
  async getRawTransactions(txids: readonly string[]): Promise<Map<string, string | undefined>> {
    const answers = await this.batch(
      txids.map((txid) => ({ method: 'getrawtransaction', params: [txid, false] })),
    );
    const found = new Map<string, string | undefined>();
    for (const [index, txid] of txids.entries()) {
      const answer = answers[index];
      if (answer?.error) {
        if (answer.error.code === RPC_INVALID_ADDRESS_OR_KEY) {
          found.set(txid, undefined);
          continue;
        }
        throw new BitcoinRpcError('getrawtransaction', answer.error.message, answer.error.code);
      }
      found.set(txid, answer?.result as string);
    }
    return found;
  }

  /** One call. @throws BitcoinRpcError for an error answer, a timeout or an unreachable node. */
  async call<T>(method: string, params: unknown[]): Promise<T> {
    const [answer] = await this.batch([{ method, params }], false);
    if (answer?.error) throw new BitcoinRpcError(method, answer.error.message, answer.error.code);
    return answer?.result as T;
  }

  private async batch(
    calls: readonly { method: string; params: unknown[] }[],
    asArray = true,
  ): Promise<RpcAnswer[]> {
    if (calls.length === 0) return [];
    const method = calls[0]!.method;
    for (const each of calls) this.calls.set(each.method, (this.calls.get(each.method) ?? 0) + 1);
    const body = calls.map((each, index) => ({
      jsonrpc: '1.0',
      id: index,
      method: each.method,
      params: each.params,
    }));
    const controller = new AbortController();
    // Node 20: a plain timer, not AbortSignal.timeout combined with others (it leaks there).
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(this.config.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: await this.authorization() },
        body: JSON.stringify(asArray ? body : body[0]),
        signal: controller.signal,
      });
    } catch (error) {
      clearTimeout(timer);
      const reason = controller.signal.aborted
        ? `no answer within ${this.timeoutMs} ms`
        : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
      throw new BitcoinRpcError(method, `the node cannot be reached: ${reason}`);
    }
    try {
      if (response.status === 401 || response.status === 403) {
        throw new BitcoinRpcError(
          method,
          'the node refused the credentials: check the user and password in --rpc-url BITCOIN (or --bitcoin-rpc-cookie).',
        );
      }
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new BitcoinRpcError(method, `HTTP ${response.status}, not a JSON-RPC answer`);
      }
      const answers = (Array.isArray(parsed) ? parsed : [parsed]) as RpcAnswer[];
      // Batch answers may come in any order: put them back by id.
      const byId = new Map(answers.map((answer) => [answer.id, answer]));
      return calls.map((_, index) => byId.get(index) ?? answers[index] ?? {});
    } finally {
      clearTimeout(timer);
    }
  }

  /** Basic authentication from the URL's credentials, or Bitcoin Core's cookie file (rewritten on each node start). */
  private async authorization(): Promise<string> {
    let credentials = this.config.credentials;
    if (!credentials && this.config.cookieFile) {
      credentials = (await readFile(this.config.cookieFile, 'utf8')).trim();
    }
    return credentials ? `Basic ${Buffer.from(credentials).toString('base64')}` : '';
  }
}
