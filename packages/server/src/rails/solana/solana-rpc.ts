/** Longest an RPC answer may take before the call fails and the watcher backs off (ms). */
const CALL_TIMEOUT_MS = 15_000;

/** A Solana JSON-RPC error answer or a transport failure, with the method it came from. */
export class SolanaRpcError extends Error {
  constructor(
    readonly method: string,
    message: string,
    readonly rpcCode?: number,
  ) {
    super(`${method}: ${message}`);
    this.name = 'SolanaRpcError';
  }
}

/** One entry of `getSignaturesForAddress`, newest first (https://solana.com/docs/rpc/http/getsignaturesforaddress). */
export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime: number | null;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/** A token balance of `getTransaction`'s meta. */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

/** `getTransaction` with `encoding: "json"`: what the watcher reads of it. */
export interface SolanaTransaction {
  slot: number;
  blockTime: number | null;
  meta: {
    err: unknown;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances?: TokenBalance[];
    postTokenBalances?: TokenBalance[];
    loadedAddresses?: { writable: string[]; readonly: string[] };
  } | null;
  transaction: { signatures: string[]; message: { accountKeys: string[] } };
}

/** A `getSignatureStatuses` entry; null when the cluster does not know the signature. */
export interface SignatureStatus {
  slot: number;
  err: unknown;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/**
 * The few documented Solana JSON-RPC methods the watcher uses, over fetch, each call counted by
 * method (health, the benchmark). No retries here: the watcher backs off and resumes from its cursors.
 */
export class SolanaRpc {
  readonly calls = new Map<string, number>();

  constructor(
    private readonly url: string,
    /** How long a call may take before it fails (ms). */
    private readonly timeoutMs = CALL_TIMEOUT_MS,
  ) {}

  /** Calls made so far, all methods together. */
  get totalCalls(): number {
    let total = 0;
    for (const count of this.calls.values()) total += count;
    return total;
  }

  getGenesisHash(): Promise<string> {
    return this.call('getGenesisHash', []);
  }

  /** The newest slot at `commitment`. */
  getSlot(commitment: 'confirmed' | 'finalized'): Promise<number> {
    return this.call('getSlot', [{ commitment }]);
  }

  getSignaturesForAddress(
    address: string,
    options: { until?: string; before?: string; limit: number },
  ): Promise<SignatureInfo[]> {
    return this.call('getSignaturesForAddress', [address, { ...options, commitment: 'confirmed' }]);
  }

  getTransaction(signature: string): Promise<SolanaTransaction | null> {
    return this.call('getTransaction', [
      signature,
      { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
  }

  /** The program that owns `address`'s account, or null when no account exists there yet. */
  async getAccountOwner(address: string): Promise<string | null> {
    const answer = await this.call<{ value: { owner: string } | null }>('getAccountInfo', [
      address,
      { encoding: 'base64', dataSlice: { offset: 0, length: 0 }, commitment: 'confirmed' },
    ]);
    return answer.value?.owner ?? null;
  }

  /** Statuses of up to 256 signatures, searching the whole history. */
  async getSignatureStatuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]> {
    const answer = await this.call<{ value: (SignatureStatus | null)[] }>('getSignatureStatuses', [
      signatures,
      { searchTransactionHistory: true },
    ]);
    return answer.value;
  }

  /** One JSON-RPC call; the timeout is a timer of its own (an AbortSignal.timeout can be collected before it fires on Node 20). */
  private async call<T>(method: string, params: unknown[]): Promise<T> {
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let body: { result?: T; error?: { code: number; message: string } };
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: controller.signal,
      });
      if (!response.ok) throw new SolanaRpcError(method, `the endpoint answered HTTP ${response.status}`);
      body = (await response.json()) as typeof body;
    } catch (error) {
      if (error instanceof SolanaRpcError) throw error;
      const reason = controller.signal.aborted
        ? `no answer within ${this.timeoutMs / 1000} s`
        : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
      throw new SolanaRpcError(method, reason);
    } finally {
      clearTimeout(timer);
    }
    if (body.error) throw new SolanaRpcError(method, body.error.message, body.error.code);
    return body.result as T;
  }
}
