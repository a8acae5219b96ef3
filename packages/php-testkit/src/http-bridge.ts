import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CreatePhpOptions, createPhp, type PhpSandbox, type PhpVersion } from './sandbox.js';

/** One request the bridge received. */
export interface BridgeRequest {
  method: string;
  /** The absolute URL, on the bridge's own origin. */
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One HTTP answer, read whole. */
export interface BridgeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Answers one request; a thrown error becomes a 500 carrying its message. */
export type BridgeHandler = (request: BridgeRequest) => Promise<BridgeResponse>;

export interface HttpBridgeOptions {
  /**
   * Paths (URL pathnames) that answer 503 without reaching the handler, as if the site were down
   * for them; changes take effect at the next request. Defaults to a new, empty set.
   */
  offline?: Set<string>;
}

/** A real HTTP server on 127.0.0.1 (a free port) in front of a handler. */
export interface HttpBridge {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly offline: Set<string>;
  /** Sends a request to the bridge, without following redirects, and reads the whole answer. */
  request(
    path: string,
    init?: { method?: string; body?: string; headers?: Record<string, string> },
  ): Promise<BridgeResponse>;
  /** Stops accepting requests; resolves once the server is closed. */
  close(): Promise<void>;
}

/**
 * Serves `handler` over real HTTP on the loopback interface, so code outside the test process's
 * direct reach (the reference server delivering a webhook, a browser, fetch) can call PHP that runs
 * in php-wasm. Requests are handled concurrently; the handler decides how to share interpreters.
 */
export async function startHttpBridge(
  handler: BridgeHandler,
  options: HttpBridgeOptions = {},
): Promise<HttpBridge> {
  const offline = options.offline ?? new Set<string>();
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: BridgeRequest = {
        method: incoming.method ?? 'GET',
        url: new URL(incoming.url ?? '/', url),
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      };
      const answer = offline.has(request.url.pathname)
        ? Promise.resolve({ status: 503, headers: { 'content-type': 'text/plain' }, body: 'offline' })
        : handler(request);
      answer
        .then((response) => outgoing.writeHead(response.status, response.headers).end(response.body))
        .catch((error: unknown) =>
          outgoing.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    offline,
    async request(path, init = {}) {
      const response = await fetch(`${url}${path}`, {
        method: init.method ?? 'GET',
        redirect: 'manual',
        headers: init.headers ?? {},
        ...(init.body === undefined ? {} : { body: init.body }),
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return { status: response.status, headers, body: await response.text() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A few interpreters of one PHP version that requests take turns on. */
export interface PhpPool {
  /** Runs `task` on a free interpreter, waiting for one when all are busy. */
  run<T>(task: (php: PhpSandbox) => Promise<T>): Promise<T>;
  dispose(): void;
}

/**
 * Boots `size` interpreters with the same mounts. Two or more let concurrent requests really
 * interleave at their network calls, as they do under a web server with several workers.
 */
export async function createPhpPool(
  version: PhpVersion,
  options: CreatePhpOptions & { size?: number } = {},
): Promise<PhpPool> {
  const all: PhpSandbox[] = [];
  for (let i = 0; i < (options.size ?? 1); i++) all.push(await createPhp(version, options));
  const idle = [...all];
  const waiting: ((php: PhpSandbox) => void)[] = [];
  const release = (php: PhpSandbox): void => {
    const next = waiting.shift();
    if (next) next(php);
    else idle.push(php);
  };
  return {
    async run<T>(task: (php: PhpSandbox) => Promise<T>): Promise<T> {
      const php = idle.pop() ?? (await new Promise<PhpSandbox>((resolve) => waiting.push(resolve)));
      try {
        return await task(php);
      } finally {
        release(php);
      }
    },
    dispose(): void {
      for (const php of all) php.dispose();
    },
  };
}

/** A PHP run as one web request, with what it wrote to stderr. */
export interface PhpHttpResult extends BridgeResponse {
  stderr: string;
}

/**
 * Runs PHP source as one web request on `php`: the status and headers are what the script set
 * with http_response_code() and header(), the body what it printed; `body` is php://input.
 */
export async function runPhpRequest(
  php: PhpSandbox,
  request: { code: string; method?: string; body?: Uint8Array },
): Promise<PhpHttpResult> {
  const response = await (php.php as unknown as PhpHttpRunner).runStream({
    code: request.code,
    method: request.method === 'POST' ? 'POST' : 'GET',
    ...(request.body === undefined || request.body.length === 0 ? {} : { body: request.body }),
  });
  const [body, stderr, status, headers] = await Promise.all([
    response.stdoutText,
    response.stderrText,
    response.httpStatusCode,
    response.headers,
  ]);
  const flat: Record<string, string> = {};
  for (const [name, values] of Object.entries(headers)) flat[name] = values.join(', ');
  return { status, headers: flat, body, stderr };
}

// The part of php-wasm's streamed response that carries the HTTP status and headers.
interface PhpHttpRunner {
  runStream(request: { code: string; method: 'GET' | 'POST'; body?: Uint8Array }): Promise<{
    stdoutText: Promise<string>;
    stderrText: Promise<string>;
    httpStatusCode: Promise<number>;
    headers: Promise<Record<string, string[]>>;
  }>;
}
