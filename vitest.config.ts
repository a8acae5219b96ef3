import { defineConfig } from 'vitest/config';
import { workspaceAliases } from './vitest.shared.js';

// One root command runs every package's tests. Workspace packages resolve to their TypeScript
// sources so tests never run against a stale build.
export default defineConfig({
  resolve: { alias: workspaceAliases },
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
    // The JSON report feeds the one-line summary CI prints (scripts/print-test-summary.mjs).
    reporters: ['default', ['json', { outputFile: 'test-results/vitest-unit.json' }]],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
