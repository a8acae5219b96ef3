export { describeEachPhp, type PhpSuiteContext } from './describe.js';
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
} from './sandbox.js';
export {
  checkPhpSource,
  DIRECT_ACCESS_EXEMPTIONS,
  type PhpPlatform,
  platformForPath,
} from './static-rules.js';
