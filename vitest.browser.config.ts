import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Browser tests: a real server and Debian's chromium driven by playwright-core. Run with
// scripts/test-browser.sh (installs chromium when missing, builds the pay page assets).
export default defineConfig({
  resolve: {
    alias: {
      '@cryptocheckout/core': fromRoot('./packages/core/src/index.ts'),
      '@cryptocheckout/server': fromRoot('./packages/server/src/index.ts'),
      '@cryptocheckout/pay': fromRoot('./apps/pay/src/index.ts'),
    },
  },
  test: {
    include: ['test/browser/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // One browser at a time: the machines are small and the tests share screenshots.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
