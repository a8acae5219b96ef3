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
  '@cryptocheckout/contracts': fromRoot('./packages/contracts/src/index.ts'),
  // Test support other workspaces import. Its files are not published, so the server and the pay
  // page export it under the `source` condition only.
  '@cryptocheckout/server/testing/local-chain': fromRoot('./packages/server/test/live/local-chain.ts'),
  '@cryptocheckout/server/testing/solana-chain': fromRoot(
    './packages/server/test/solana/solana-test-chain.ts',
  ),
  '@cryptocheckout/server/testing/live-helpers': fromRoot('./packages/server/test/live/live-helpers.ts'),
  '@cryptocheckout/server': fromRoot('./packages/server/src/index.ts'),
  '@cryptocheckout/pay-page/build-assets': fromRoot('./packages/pay-page/scripts/build-assets.mjs'),
  '@cryptocheckout/pay-page/qr': fromRoot('./packages/pay-page/src/qr.ts'),
  '@cryptocheckout/pay-page': fromRoot('./packages/pay-page/src/index.ts'),
  '@cryptocheckout/php-client/test-support': fromRoot('./packages/php-client/test/status-fixtures.ts'),
  '@cryptocheckout/php-testkit': fromRoot('./packages/php-testkit/src/index.ts'),
};

/**
 * How long a test waits for an event (a delivery recorded, a status reached, a process ready)
 * before it fails. Generous on purpose: a wait ends as soon as the event happens, so only a broken
 * build waits this long, and a busy machine does not fail a test (docs/testing.md). Test helpers
 * read it as `CRYPTOCHECKOUT_TEST_DEADLINE_MS`; `expect.poll` uses it by default.
 */
export const EVENT_DEADLINE_MS = 120_000;

/** A hang guard for one test or hook, not a wait: far above any deadline a test waits on. */
export const HANG_GUARD_MS = 15 * 60_000;

/** The settings both configs share: the deadlines above, in one place. */
export const deadlineSettings = {
  env: { CRYPTOCHECKOUT_TEST_DEADLINE_MS: String(EVENT_DEADLINE_MS) },
  expect: { poll: { timeout: EVENT_DEADLINE_MS, interval: 100 } },
  testTimeout: HANG_GUARD_MS,
  hookTimeout: HANG_GUARD_MS,
};
