import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// One root command runs every package's tests. Workspace packages resolve to their TypeScript
// sources so tests never run against a stale build.
export default defineConfig({
  resolve: {
    alias: {
      '@cryptocheckout/core': fromRoot('./packages/core/src/index.ts'),
      '@cryptocheckout/server': fromRoot('./packages/server/src/index.ts'),
      '@cryptocheckout/pay': fromRoot('./apps/pay/src/index.ts'),
      '@cryptocheckout/php-testkit': fromRoot('./packages/php-testkit/src/index.ts'),
    },
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'plugins/*/src/**/*.test.ts',
      'plugins/*/tests/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**', 'test/browser/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
