import { afterAll, beforeAll, describe } from 'vitest';
import {
  type CreatePhpOptions,
  createPhp,
  PHP_VERSIONS,
  type PhpSandbox,
  type PhpVersion,
} from './sandbox.js';

/** Handed to each {@link describeEachPhp} body. */
export interface PhpSuiteContext {
  readonly version: PhpVersion;
  /** The suite's interpreter; available from the first test (or `beforeAll`) on. */
  php(): PhpSandbox;
}

/**
 * Declares the suite once per entry of `options.versions` (default {@link PHP_VERSIONS}). Every test in one suite shares one
 * interpreter, because booting PHP costs far more than running a script; each run is still a fresh
 * request, so scripts do not see each other's classes or globals. Put a file's PHP tests under one
 * call (with nested `describe`s) to boot each version once per file.
 */
export function describeEachPhp(
  name: string,
  body: (context: PhpSuiteContext) => void,
  options: CreatePhpOptions & { versions?: readonly PhpVersion[] } = {},
): void {
  for (const version of options.versions ?? PHP_VERSIONS) {
    describe(`${name} [PHP ${version}]`, () => {
      let sandbox: PhpSandbox | undefined;
      beforeAll(async () => {
        sandbox = await createPhp(version, options);
      });
      afterAll(() => {
        sandbox?.dispose();
        sandbox = undefined;
      });
      body({
        version,
        php: () => {
          if (sandbox === undefined)
            throw new Error(`PHP ${version} is not booted yet; use it inside a test or hook`);
          return sandbox;
        },
      });
    });
  }
}
