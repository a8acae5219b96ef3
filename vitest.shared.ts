import { fileURLToPath } from 'node:url';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Workspace packages resolve to their TypeScript sources in every test run, so tests never run
 * against a stale build.
 */
export const workspaceAliases = {
  // The subpaths first: an alias also matches longer specifiers that start with it.
  '@cryptocheckout/core/browser': fromRoot('./packages/core/src/browser/index.ts'),
  '@cryptocheckout/core/node': fromRoot('./packages/core/src/node/index.ts'),
  '@cryptocheckout/core': fromRoot('./packages/core/src/index.ts'),
  '@cryptocheckout/server': fromRoot('./packages/server/src/index.ts'),
  '@cryptocheckout/pay-page': fromRoot('./packages/pay-page/src/index.ts'),
  '@cryptocheckout/php-testkit': fromRoot('./packages/php-testkit/src/index.ts'),
};
