// Test-side half of the PrestaShop 8.1.2 harness (the PHP half is prestashop.php and shop.php in
// this folder): a private copy of the module with its PHP client, PHP preludes that boot the
// harness shop, and a small HTTP bridge that serves the module's front controllers from php-wasm
// so the reference server can deliver real webhooks to the shop.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BridgeRequest,
  type BridgeResponse,
  createPhpPool,
  type HttpBridge,
  type PhpPool,
  type PhpSandbox,
  type PhpVersion,
  phpString,
  runPhpRequest,
  startHttpBridge,
} from '@cryptocheckout/php-testkit';
import { copyClient } from '../../scripts/build.mjs';

export const PLUGIN_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const HARNESS_DIR = fileURLToPath(new URL('./', import.meta.url));
export const MODULE_SOURCE = join(PLUGIN_ROOT, 'cryptocheckout');

/** Where things live inside PHP's file system. */
export const MODULES_MOUNT = '/shop/modules';
export const HARNESS_MOUNT = '/harness';
export const DATA_MOUNT = '/data';

/**
 * PHP versions the module is tested on: the oldest and the newest PHP that PrestaShop 8.1
 * supports (7.2–8.1; the module's own floor is 7.4).
 */
export const PRESTASHOP_PHP_VERSIONS: readonly PhpVersion[] = ['7.4', '8.1'];

/** A Polygon wallet valid for the service (EIP-55). */
export const WALLET = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

export interface ModuleCopy {
  /** Host directory holding cryptocheckout/ (mounted at MODULES_MOUNT). */
  modulesDir: string;
  /** Host directory for SQLite files (mounted at DATA_MOUNT). */
  dataDir: string;
  mounts: Record<string, string>;
  remove(): void;
}

/**
 * Copies the module's sources and the PHP client (as packaging does) into a private temporary
 * folder, so test files never race on the working copy.
 */
export async function prepareModule(): Promise<ModuleCopy> {
  const root = mkdtempSync(join(tmpdir(), 'cc-prestashop-'));
  const modulesDir = join(root, 'modules');
  const dataDir = join(root, 'data');
  cpSync(MODULE_SOURCE, join(modulesDir, 'cryptocheckout'), {
    recursive: true,
    filter: (source) => !source.includes(join('cryptocheckout', 'vendor')),
  });
  await copyClient(join(modulesDir, 'cryptocheckout'));
  mkdirSync(dataDir, { recursive: true });
  return {
    modulesDir,
    dataDir,
    mounts: { [MODULES_MOUNT]: modulesDir, [HARNESS_MOUNT]: HARNESS_DIR, [DATA_MOUNT]: dataDir },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * PHP that boots the harness shop on database `db` (a file under DATA_MOUNT), with warnings
 * turned into failures, and loads the module class.
 */
export function prelude(db: string, shopUrl = 'http://shop.test'): string {
  return `
error_reporting(E_ALL & ~E_DEPRECATED);
set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    if (!(error_reporting() & $severity)) { return false; }
    throw new ErrorException($message, 0, $severity, $file, $line);
});
$GLOBALS['HARNESS'] = ['db' => ${phpString(`${DATA_MOUNT}/${db}`)}, 'shop_url' => ${phpString(shopUrl)}, 'modules_dir' => ${phpString(MODULES_MOUNT)}];
// A web request always has a peer; code run directly stands for one from this machine.
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
require_once ${phpString(`${HARNESS_MOUNT}/shop.php`)};
HarnessShop::install();
`;
}

/** PHP that installs the module and saves a working configuration for `serviceUrl`. */
export function installAndConfigure(serviceUrl: string, mode: 'redirect' | 'embedded' = 'redirect'): string {
  return `
$module = Module::getInstanceByName('cryptocheckout');
if (!$module->id) {
    if (!$module->install()) { throw new RuntimeException('install failed'); }
}
Configuration::updateValue('CRYPTOCHECKOUT_SERVICE_URL', ${phpString(serviceUrl)});
Configuration::updateValue('CRYPTOCHECKOUT_WALLET_ADDRESS', ${phpString(WALLET)});
Configuration::updateValue('CRYPTOCHECKOUT_ASSET', 'USDC');
Configuration::updateValue('CRYPTOCHECKOUT_NETWORK', 'POLYGON');
Configuration::updateValue('CRYPTOCHECKOUT_DISPLAY_MODE', ${phpString(mode)});
`;
}

export type { BridgeResponse };

/**
 * Serves the harness shop over HTTP on 127.0.0.1, each request a fresh PHP request on one of
 * `poolSize` interpreters (two let concurrent requests really interleave at their network calls):
 * - /module/<module>/<controller>?…  the module's front controllers, as PrestaShop's dispatcher runs them
 * - /index.php?controller=order-confirmation&id_cart&id_module&id_order&key  the confirmation page's
 *   displayPaymentReturn hook, after the same key check PrestaShop's OrderConfirmationController makes
 * - /index.php?controller=guest-tracking&order_reference&email  a guest's order page: the
 *   displayOrderDetail hook of the order found by reference and e-mail, as GuestTrackingController
 * The buyer's session (PrestaShop's cookie) is stood in for by an `x-harness-cart` header; the
 * client is 127.0.0.1, or the address an `x-forwarded-for` header names.
 */
export class ShopBridge {
  url = '';
  /** stderr of every PHP request, for assertions that nothing warned. */
  readonly errors: string[] = [];
  /** Paths that answer 503 without reaching PHP, as if the shop were down for them. */
  readonly offline = new Set<string>();
  private http: HttpBridge | undefined;
  private pool: PhpPool | undefined;

  constructor(
    private readonly version: PhpVersion,
    private readonly mounts: Record<string, string>,
    private readonly db: string,
    private readonly poolSize = 1,
  ) {}

  async start(): Promise<void> {
    this.pool = await createPhpPool(this.version, { mounts: this.mounts, size: this.poolSize });
    this.http = await startHttpBridge((request) => this.handle(request), { offline: this.offline });
    this.url = this.http.url;
  }

  async stop(): Promise<void> {
    await this.http?.close();
    this.pool?.dispose();
  }

  /** Runs PHP (after the prelude) on a pooled interpreter; for direct set-up and inspection. */
  runJson(code: string): Promise<unknown> {
    return this.withPhp((php) => php.runJson(prelude(this.db, this.url) + code));
  }

  async request(
    path: string,
    init: { method?: string; body?: string; cart?: number; headers?: Record<string, string> } = {},
  ): Promise<BridgeResponse> {
    if (!this.http) throw new Error('start() the bridge first');
    return this.http.request(path, {
      method: init.method,
      body: init.body,
      headers: {
        ...(init.headers ?? {}),
        ...(init.cart === undefined ? {} : { 'x-harness-cart': String(init.cart) }),
      },
    });
  }

  private withPhp<T>(task: (php: PhpSandbox) => Promise<T>): Promise<T> {
    if (!this.pool) throw new Error('start() the bridge first');
    return this.pool.run(task);
  }

  private async handle(request: BridgeRequest): Promise<BridgeResponse> {
    const { body, url } = request;
    const query = Object.fromEntries(url.searchParams);
    const method = request.method;
    const contentType = String(request.headers['content-type'] ?? '');
    const form =
      method === 'POST' && contentType.startsWith('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(body.toString('utf8')))
        : {};
    const cart = Number(request.headers['x-harness-cart'] ?? 0);
    // Every request comes from the bridge's loopback peer; a test names another client with
    // X-Forwarded-For, which Tools::getRemoteAddr() believes from a loopback proxy.
    const forwardedFor = String(request.headers['x-forwarded-for'] ?? '');
    const moduleRoute = /^\/module\/([a-z0-9_]+)\/([a-z0-9_]+)$/.exec(url.pathname);

    let dispatch: string;
    if (moduleRoute) {
      dispatch = `HarnessShop::runFrontController(${phpString(moduleRoute[1]!)}, ${phpString(moduleRoute[2]!)});`;
    } else if (url.pathname === '/index.php' && query.controller === 'order-confirmation') {
      dispatch = `
$order = new Order((int) Tools::getValue('id_order'));
$customer = new Customer((int) $order->id_customer);
if (!Validate::isLoadedObject($order) || (int) $order->id_cart !== (int) Tools::getValue('id_cart') || $customer->secure_key !== Tools::getValue('key')) {
    http_response_code(302); header('Location: /index.php?controller=history'); return;
}
Context::getContext()->controller = new FrontController();
Context::getContext()->controller->php_self = 'order-confirmation';
Hook::exec('actionFrontControllerSetMedia', []);
echo Hook::exec('displayPaymentReturn', ['order' => $order], (int) Tools::getValue('id_module'));
echo '<!-- scripts: ' . implode(',', array_keys(Context::getContext()->controller->registered_javascript)) . ' -->';`;
    } else if (url.pathname === '/index.php' && query.controller === 'guest-tracking') {
      dispatch = `
$reference = current(explode('#', (string) Tools::getValue('order_reference')));
$idOrder = (int) Db::getInstance()->getValue('SELECT o.id_order FROM ps_orders o JOIN ps_customer c ON c.id_customer = o.id_customer WHERE o.reference = \\'' . pSQL($reference) . '\\' AND c.email = \\'' . pSQL((string) Tools::getValue('email')) . '\\'');
if ($idOrder === 0) {
    http_response_code(404); echo 'no such order'; return;
}
Context::getContext()->controller = new FrontController();
Context::getContext()->controller->php_self = 'guest-tracking';
Hook::exec('actionFrontControllerSetMedia', []);
echo Hook::exec('displayOrderDetail', ['order' => new Order($idOrder)]);
echo '<!-- scripts: ' . implode(',', array_keys(Context::getContext()->controller->registered_javascript)) . ' -->';`;
    } else {
      return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
    }

    const code = `<?php
${prelude(this.db, this.url)}
$_SERVER['REQUEST_METHOD'] = ${phpString(method)};
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
${forwardedFor === '' ? '' : `$_SERVER['HTTP_X_FORWARDED_FOR'] = ${phpString(forwardedFor)};`}
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_GET = json_decode(${phpString(JSON.stringify(query))}, true);
$_POST = json_decode(${phpString(JSON.stringify(form))}, true);
${cart > 0 ? `HarnessShop::actAsBuyer(${cart});` : ''}
${dispatch}`;
    return this.withPhp(async (php) => {
      const { stderr, ...response } = await runPhpRequest(php, { code, method, body });
      if (stderr.trim() !== '') this.errors.push(`${method} ${url.pathname}${url.search}: ${stderr}`);
      return response;
    });
  }
}
