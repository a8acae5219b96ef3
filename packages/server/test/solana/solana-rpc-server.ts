import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  isAddress,
  type Transaction,
} from '@solana/kit';
import { type Commitment, type LedgerEntry, parseTokenAccount, type SolanaLedger } from './solana-ledger.js';
import { memoOf, renderAccount, renderTransaction, uiTokenAmount } from './solana-rpc-shapes.js';

/** The switches of the loopback endpoint, read on every request. */
export interface SolanaRpcControls {
  /** While true, every request is answered with HTTP 503 (downMode 'error') or its socket destroyed ('refuse'). */
  down: boolean;
  downMode: 'error' | 'refuse';
  /** Every answer waits this long (ms); the ledger is read after the wait, as a slow node would. */
  delayMs: number;
  /** JSON-RPC calls per method that reached the endpoint, a batch counting each member, down or not. */
  calls: Map<string, number>;
  resetCalls(): void;
}

/** The node's version as getVersion reports it; apiVersion in contexts follows it. */
const NODE_VERSION = '2.2.20';
const FEATURE_SET = 3_294_202_862;
const MAX_SIGNATURES_PAGE = 1_000;
const MAX_STATUSES = 256;

/** A JSON-RPC error answer; `data` as the validator attaches it (preflight failures). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const invalidParams = (message: string) => new RpcError(-32602, message);

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/**
 * Starts the JSON-RPC 2.0 endpoint of a test chain on 127.0.0.1 (a free port): the documented
 * shapes of the Solana methods a payment watcher uses, batches, the controls' failures and delay.
 * @throws when it cannot listen on loopback.
 */
export async function startSolanaRpcServer(
  ledger: SolanaLedger,
  controls: SolanaRpcControls,
  genesisHash: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const methods = rpcMethods(ledger, genesisHash);
  const pending = new Set<NodeJS.Timeout>();

  const answerOne = (request: JsonRpcRequest): object | null => {
    const id = request.id ?? null;
    if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
      return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id };
    }
    const method = methods[request.method];
    if (!method) return { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id };
    const params = request.params === undefined ? [] : request.params;
    try {
      if (!Array.isArray(params)) throw invalidParams('Invalid params: expected an array');
      return { jsonrpc: '2.0', result: method(params), id };
    } catch (error) {
      if (error instanceof RpcError) {
        return {
          jsonrpc: '2.0',
          error: {
            code: error.code,
            message: error.message,
            ...(error.data === undefined ? {} : { data: error.data }),
          },
          id,
        };
      }
      return { jsonrpc: '2.0', error: { code: -32603, message: (error as Error).message }, id };
    }
  };

  const answer = (body: string, outgoing: ServerResponse) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      reply(outgoing, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
      return;
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) {
        reply(outgoing, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
      } else {
        reply(
          outgoing,
          parsed.map((each) => answerOne(asRequest(each))),
        );
      }
    } else {
      reply(outgoing, answerOne(asRequest(parsed)));
    }
  };

  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (incoming.method === 'GET' && incoming.url === '/health') {
        outgoing.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      if (incoming.method !== 'POST') {
        outgoing
          .writeHead(405, { 'content-type': 'text/plain' })
          .end('Used HTTP Method is not allowed. POST or OPTIONS is required');
        return;
      }
      countCalls(controls.calls, body);
      if (controls.down) {
        if (controls.downMode === 'refuse') incoming.socket.destroy();
        else
          outgoing
            .writeHead(503, { 'content-type': 'text/plain' })
            .end('Solana JSON-RPC node down (SolanaTestChain.rpc.down)');
        return;
      }
      if (controls.delayMs > 0) {
        const timer = setTimeout(() => {
          pending.delete(timer);
          answer(body, outgoing);
        }, controls.delayMs);
        pending.add(timer);
      } else {
        answer(body, outgoing);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of pending) clearTimeout(timer);
        pending.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function asRequest(value: unknown): JsonRpcRequest {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as JsonRpcRequest)
    : {};
}

function countCalls(calls: Map<string, number>, body: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return;
  }
  for (const request of Array.isArray(parsed) ? parsed : [parsed]) {
    const method = asRequest(request).method;
    if (typeof method === 'string') calls.set(method, (calls.get(method) ?? 0) + 1);
  }
}

/** Writes a JSON answer; bigints become exact JSON numbers (lamports, u64 values), as the validator writes them. */
function reply(outgoing: ServerResponse, payload: unknown): void {
  const text = JSON.stringify(payload, (_, value) =>
    typeof value === 'bigint' ? `\u0000bigint:${value}\u0000` : value,
  ).replace(/"\\u0000bigint:(-?\d+)\\u0000"/g, '$1');
  outgoing.writeHead(200, { 'content-type': 'application/json' }).end(text);
}

type Method = (params: unknown[]) => unknown;

function config(params: unknown[], index: number): Record<string, unknown> {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParams('Invalid params: expected a config object');
  return value as Record<string, unknown>;
}

function commitmentOf(
  options: Record<string, unknown>,
  lowest: 'processed' | 'confirmed' = 'processed',
): Commitment {
  const commitment = options['commitment'] ?? 'finalized';
  if (commitment !== 'processed' && commitment !== 'confirmed' && commitment !== 'finalized') {
    throw invalidParams(
      `Invalid params: unknown variant \`${String(commitment)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``,
    );
  }
  if (lowest === 'confirmed' && commitment === 'processed') {
    throw invalidParams('Method does not support commitment below `confirmed`');
  }
  return commitment;
}

function addressParam(value: unknown): string {
  if (typeof value !== 'string' || !isAddress(value)) throw invalidParams('Invalid param: Invalid');
  return value;
}

function signatureParam(value: unknown): string {
  if (typeof value !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(value)) {
    throw invalidParams('Invalid param: Invalid');
  }
  return value;
}

function rpcMethods(ledger: SolanaLedger, genesisHash: string): Record<string, Method> {
  const context = () => ({ slot: ledger.slot(), apiVersion: NODE_VERSION });
  const slotAt = (commitment: Commitment) =>
    commitment === 'finalized' ? ledger.finalizedSlot() : ledger.slot();
  const contextAt = (commitment: Commitment) => ({ slot: slotAt(commitment), apiVersion: NODE_VERSION });
  const confirmationStatus = (entry: LedgerEntry) => (ledger.isFinalized(entry) ? 'finalized' : 'confirmed');

  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': NODE_VERSION, 'feature-set': FEATURE_SET }),
    getGenesisHash: () => genesisHash,
    getSlot: (params) => slotAt(commitmentOf(config(params, 0))),
    getBlockHeight: (params) => {
      const commitment = commitmentOf(config(params, 0));
      return ledger.blockHeight() - (ledger.slot() - slotAt(commitment));
    },
    getLatestBlockhash: (params) => {
      commitmentOf(config(params, 0));
      return { context: context(), value: ledger.latestBlockhash() };
    },
    getMinimumBalanceForRentExemption: (params) => {
      const size = params[0];
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
        throw invalidParams('Invalid params: expected a data length');
      }
      return ledger.svm.minimumBalanceForRentExemption(BigInt(size));
    },
    getBalance: (params) => {
      const owner = addressParam(params[0]);
      const commitment = commitmentOf(config(params, 1));
      return { context: contextAt(commitment), value: ledger.account(owner, commitment)?.lamports ?? 0n };
    },
    getAccountInfo: (params) => {
      const owner = addressParam(params[0]);
      const options = config(params, 1);
      const commitment = commitmentOf(options);
      const encoding = options['encoding'];
      if (
        encoding !== undefined &&
        encoding !== 'base58' &&
        encoding !== 'base64' &&
        encoding !== 'jsonParsed'
      ) {
        throw invalidParams(
          `Invalid params: encoding ${String(encoding)} is not supported by the test chain`,
        );
      }
      const account = ledger.account(owner, commitment);
      if (!account) return { context: contextAt(commitment), value: null };
      let data = account.data ?? ledger.programData(owner);
      const slice = options['dataSlice'] as { offset?: number; length?: number } | undefined;
      if (slice && encoding !== 'jsonParsed') {
        data = data.subarray(slice.offset ?? 0, (slice.offset ?? 0) + (slice.length ?? data.length));
      }
      try {
        return {
          context: contextAt(commitment),
          value: renderAccount(account, data, encoding, (mint) => ledger.mintDecimals(mint)),
        };
      } catch (error) {
        throw invalidParams((error as Error).message);
      }
    },
    getTokenAccountBalance: (params) => {
      const owner = addressParam(params[0]);
      const commitment = commitmentOf(config(params, 1));
      const account = ledger.account(owner, commitment);
      if (!account) throw invalidParams('Invalid param: could not find account');
      const token = parseTokenAccount(account);
      const decimals = token ? ledger.mintDecimals(token.mint) : null;
      if (!token || decimals === null) throw invalidParams('Invalid param: not a Token account');
      return { context: contextAt(commitment), value: uiTokenAmount(token.amount, decimals) };
    },
    getSignaturesForAddress: (params) => {
      const owner = addressParam(params[0]);
      const options = config(params, 1);
      const commitment = commitmentOf(options, 'confirmed');
      const limit = options['limit'] ?? MAX_SIGNATURES_PAGE;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_PAGE) {
        throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_PAGE}`);
      }
      // null reads as absent, as serde reads an Option.
      const before = options['before'] == null ? undefined : signatureParam(options['before']);
      const until = options['until'] == null ? undefined : signatureParam(options['until']);
      return ledger
        .signaturesFor(owner, {
          limit,
          commitment,
          ...(before ? { before } : {}),
          ...(until ? { until } : {}),
        })
        .map((entry) => ({
          signature: entry.signature,
          slot: entry.slot,
          err: entry.err,
          memo: memoOf(entry),
          blockTime: entry.blockTime,
          confirmationStatus: confirmationStatus(entry),
        }));
    },
    getTransaction: (params) => {
      const signature = signatureParam(params[0]);
      // The second parameter may also be the encoding alone (the deprecated form).
      const options = typeof params[1] === 'string' ? { encoding: params[1] } : config(params, 1);
      const commitment = commitmentOf(options, 'confirmed');
      const encoding = options['encoding'] ?? 'json';
      if (
        encoding !== 'json' &&
        encoding !== 'jsonParsed' &&
        encoding !== 'base64' &&
        encoding !== 'base58'
      ) {
        throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\``);
      }
      const entry = ledger.transaction(signature, commitment);
      if (!entry) return null;
      const supported = options['maxSupportedTransactionVersion'];
      if (entry.version === 0 && (typeof supported !== 'number' || supported < 0)) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return renderTransaction(entry, encoding);
    },
    getSignatureStatuses: (params) => {
      const signatures = params[0];
      if (!Array.isArray(signatures)) throw invalidParams('Invalid params: expected an array of signatures');
      if (signatures.length > MAX_STATUSES)
        throw invalidParams(`Too many inputs provided; max ${MAX_STATUSES}`);
      const searchHistory = config(params, 1)['searchTransactionHistory'] === true;
      return {
        context: context(),
        value: signatures.map((each) => {
          const entry = ledger.status(signatureParam(each), searchHistory);
          if (!entry) return null;
          const finalized = ledger.isFinalized(entry);
          return {
            slot: entry.slot,
            // Blocks stacked on it since; none are counted once it is rooted.
            confirmations: finalized ? null : ledger.slot() - entry.slot,
            err: entry.err,
            status: entry.err === null ? { Ok: null } : { Err: entry.err },
            confirmationStatus: finalized ? 'finalized' : 'confirmed',
          };
        }),
      };
    },
    sendTransaction: (params) => {
      const options = config(params, 1);
      const encoding = options['encoding'] ?? 'base58';
      if (typeof params[0] !== 'string' || (encoding !== 'base58' && encoding !== 'base64')) {
        throw invalidParams('Invalid params: expected a base58 or base64 wire transaction');
      }
      let transaction: Transaction;
      try {
        const bytes = (encoding === 'base64' ? getBase64Encoder() : getBase58Encoder()).encode(params[0]);
        transaction = getTransactionDecoder().decode(bytes);
        // The message too: the ledger reads it without expecting garbage.
        getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
      } catch (error) {
        throw invalidParams(
          `invalid transaction: Transaction failed to deserialize (${(error as Error).message})`,
        );
      }
      const submission = ledger.submit(transaction, {
        preflight: options['skipPreflight'] !== true,
        fork: false,
      });
      if (submission.landed) return submission.entry.signature;
      // Without preflight a node forwards the transaction and answers its signature; it never lands.
      if (!submission.preflight) return submission.signature;
      if (submission.err === 'SignatureFailure') {
        throw new RpcError(-32003, 'Transaction signature verification failure');
      }
      throw new RpcError(-32002, `Transaction simulation failed: ${submission.message}`, {
        accounts: null,
        err: submission.err,
        innerInstructions: null,
        logs: submission.logs,
        replacementBlockhash: null,
        returnData: null,
        unitsConsumed: submission.unitsConsumed,
      });
    },
  };
}
