/**
 * Test harness for the Crypto Checkout WHMCS module, following WHMCS 8.13. The PHP half
 * (`whmcs/`: init.php, includes/gatewayfunctions.php, includes/invoicefunctions.php and
 * `whmcs/harness/`) reproduces the documented gateway-module API the module uses; this file
 * installs it with the module into a php-wasm file system, runs requests against it, and serves
 * the callback file over real HTTP (the bridge) so the reference server can deliver webhooks.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyPhpClient } from '@cryptocheckout/php-client/copy-into-plugin';
import { createPhp, type PhpSandbox, type PhpVersion, startHttpBridge } from '@cryptocheckout/php-testkit';

export const WHMCS_VERSION = '8.13';
export const PLUGIN_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MODULE_ROOT = join(PLUGIN_ROOT, 'module');
const HARNESS_ROOT = fileURLToPath(new URL('./whmcs/', import.meta.url));

/** Where WHMCS lives inside PHP's file system. */
export const WHMCS_ROOT = '/whmcs';
export const CALLBACK_PATH = 'modules/gateways/callback/cryptocheckout.php';
export const VENDOR_NAMESPACE = 'CryptoCheckout\\Whmcs\\Vendor\\Client';
export const VENDOR_DIR = 'modules/gateways/cryptocheckout/lib/Vendor/Client';
export const WHMCS_GUARD = "if (!defined('WHMCS')) { die('This file cannot be accessed directly'); }";

function listFiles(root: string, dir = root): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...listFiles(root, path));
    else files.push(relative(root, path).split('\\').join('/'));
  }
  return files;
}

/** A WHMCS installation with the module in it, in one PHP interpreter. */
export interface Whmcs {
  readonly php: PhpSandbox;
  readonly version: PhpVersion;
  /** The SQLite file (inside PHP) the next requests use; one per test keeps tests apart. */
  db: string;
  /** Runs harness PHP (driver functions available) that prints one JSON document. */
  driver<T = unknown>(code: string): Promise<T>;
  /** Runs one HTTP request against the callback file. */
  request(options: WhmcsRequest): Promise<WhmcsResponse>;
  dispose(): void;
}

export interface WhmcsRequest {
  method: 'GET' | 'POST';
  /** The client's address (REMOTE_ADDR); 127.0.0.1 unless given. */
  clientIp?: string;
  /** Test-only: the first SQL statement containing this fails (harness_before_sql). */
  failSql?: string;
  query?: Record<string, string>;
  body?: string;
  contentType?: string;
  accept?: string;
}

export interface WhmcsResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  stderr: string;
}

const MARKER = '__HARNESS_RESPONSE__';

/**
 * Boots PHP `version`, writes the harness and the module (with a fresh copy of the PHP client
 * under the module's namespace) into it, and mounts a temporary folder for the databases.
 * `moduleFiles` replaces the module source tree (e.g. with the files of the package zip).
 */
export async function bootWhmcs(
  version: PhpVersion,
  options: { dataDir: string; moduleFiles?: Map<string, Uint8Array> },
): Promise<Whmcs> {
  const php = await createPhp(version, { mounts: { '/data': options.dataDir } });
  const write = (path: string, data: string | Uint8Array) => {
    const dir = path.slice(0, path.lastIndexOf('/'));
    php.php.mkdir(dir);
    php.php.writeFile(path, data);
  };
  for (const file of listFiles(HARNESS_ROOT))
    write(`${WHMCS_ROOT}/${file}`, readFileSync(join(HARNESS_ROOT, file)));
  if (options.moduleFiles) {
    for (const [file, data] of options.moduleFiles) write(`${WHMCS_ROOT}/${file}`, data);
  } else {
    for (const file of listFiles(MODULE_ROOT)) {
      if (file.startsWith(`${VENDOR_DIR}/`) || file.startsWith('modules/gateways/cryptocheckout/assets/'))
        continue;
      write(`${WHMCS_ROOT}/${file}`, readFileSync(join(MODULE_ROOT, file)));
    }
    const vendor = mkdtempSync(join(tmpdir(), 'whmcs-vendor-'));
    try {
      await copyPhpClient({ dest: vendor, namespace: VENDOR_NAMESPACE, guard: WHMCS_GUARD });
      for (const file of listFiles(vendor))
        write(`${WHMCS_ROOT}/${VENDOR_DIR}/${file}`, readFileSync(join(vendor, file)));
    } finally {
      rmSync(vendor, { recursive: true, force: true });
    }
  }

  const whmcs: Whmcs = {
    php,
    version,
    db: '/data/whmcs.sqlite',
    async driver<T>(code: string): Promise<T> {
      return (await php.runJson(
        `require '${WHMCS_ROOT}/init.php';\nrequire_once '${WHMCS_ROOT}/harness/driver.php';\n${code}`,
        { env: { WHMCS_HARNESS_DB: whmcs.db } },
      )) as T;
    },
    async request(request: WhmcsRequest): Promise<WhmcsResponse> {
      const env: Record<string, string> = {
        WHMCS_HARNESS_DB: whmcs.db,
        REQUEST_METHOD: request.method,
        QUERY_STRING: new URLSearchParams(request.query ?? {}).toString(),
        CONTENT_TYPE: request.contentType ?? '',
        HTTP_ACCEPT: request.accept ?? '*/*',
        REMOTE_ADDR: request.clientIp ?? '127.0.0.1',
        HARNESS_FAIL_SQL: request.failSql ?? '',
      };
      const result = await php.runFile(`${WHMCS_ROOT}/${CALLBACK_PATH}`, {
        env,
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      const at = result.stderr.lastIndexOf(MARKER);
      const meta =
        at === -1
          ? { status: 500, headers: [] as string[] }
          : (JSON.parse(result.stderr.slice(at + MARKER.length).split('\n')[0] ?? '{}') as {
              status: number;
              headers: string[];
            });
      const headers: Record<string, string> = {};
      for (const line of meta.headers) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      return {
        status: result.exitCode === 0 ? meta.status : 500,
        headers,
        body: result.stdout,
        stderr: at === -1 ? result.stderr : result.stderr.slice(0, at),
      };
    },
    dispose: () => php.dispose(),
  };
  return whmcs;
}

/**
 * Serves the callback file over HTTP: each request runs it in PHP, as a web server would. The
 * reference server's webhooks reach the module through this.
 */
export async function startBridge(whmcs: Whmcs): Promise<{ url: string; close(): Promise<void> }> {
  const bridge = await startHttpBridge(async (request) => {
    if (request.url.pathname !== `/${CALLBACK_PATH}`) return { status: 404, headers: {}, body: '' };
    const post = request.method === 'POST';
    return whmcs.request({
      method: post ? 'POST' : 'GET',
      query: Object.fromEntries(request.url.searchParams),
      ...(post ? { body: request.body.toString('utf8') } : {}),
      contentType: request.headers['content-type'] ?? '',
      accept: request.headers.accept ?? '*/*',
    });
  });
  return { url: `${bridge.url}/`, close: () => bridge.close() };
}

/** A quoted PHP string literal. */
export function php(text: string): string {
  return `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`;
}
