import { defineConfig } from 'vitest/config';
import LongFilesFirst from './scripts/test-sequencer.js';
import { deadlineSettings, workspaceAliases } from './vitest.shared.js';

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
      'scripts/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**', 'test/browser/**'],
    globalSetup: ['./scripts/working-tree-guard.ts', './scripts/process-guard.ts'],
    // Two files at a time on two cores (vitest's default is one less than the cores): most of a
    // PHP test's time is one core running WordPress while the other waits on HTTP.
    maxWorkers: 2,
    sequence: { sequencer: LongFilesFirst },
    // The JSON report feeds the one-line summary CI prints (scripts/print-test-summary.mjs).
    reporters: [
      'default',
      './scripts/test-progress-reporter.ts',
      ['json', { outputFile: 'test-results/vitest-unit.json' }],
    ],
    ...deadlineSettings,
  },
});
