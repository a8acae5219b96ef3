export {
  BIP84_DESCRIPTION,
  BIP84_FIRST_ADDRESSES,
  BIP84_ZPUB,
  BITCOIN_ADDRESS,
  BITCOIN_PAYMENT_OPTIONS,
  type BitcoinWalletService,
  REFUSED_BITCOIN_KEY,
  REFUSED_BITCOIN_KEY_REASON,
  startBitcoinWalletService,
} from './bitcoin-wallet-service.js';
export { EVENT_DEADLINE_MS } from './deadline.js';
export { type PhpCliAnswer, phpCliJson, runPhpCli, runPhpCliSync } from './debian-php.js';
export { describeEachPhp, type PhpSuiteContext } from './describe.js';
export {
  type BridgeHandler,
  type BridgeRequest,
  type BridgeResponse,
  createPhpPool,
  type HttpBridge,
  type HttpBridgeOptions,
  type PhpHttpResult,
  type PhpPool,
  runPhpRequest,
  startHttpBridge,
} from './http-bridge.js';
export { expectedPriceLine, type ServiceProxy, startServiceWithoutLockedRate } from './locked-rate.js';
export { closedLoopbackUrl, listenOnLoopback } from './loopback.js';
export { findDebianPhp, type MariaDb, mariaDbUnavailable, startMariaDb } from './mariadb.js';
export { phpJson, phpString } from './php-literal.js';
export {
  type CreatePhpOptions,
  createPhp,
  PHP_VERSIONS,
  type PhpRunOptions,
  type PhpRunResult,
  type PhpSandbox,
  type PhpVersion,
  type PhpWasmInstance,
  SUPPORTED_PHP_VERSIONS,
} from './sandbox.js';
export {
  type SandboxPaymentSize,
  type SandboxService,
  type SandboxServiceOptions,
  startSandboxService,
  type Transaction,
  type WebhookDelivery,
  type WebhookOverrides,
} from './sandbox-service.js';
export {
  SOLANA_ONLY_PAYMENT_OPTIONS,
  SOLANA_ONLY_REASON,
  startSolanaOnlyService,
} from './solana-only-service.js';
export {
  checkPhpSource,
  DIRECT_ACCESS_EXEMPTIONS,
  type PhpPlatform,
  platformForPath,
} from './static-rules.js';
