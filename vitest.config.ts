import { defineConfig } from 'vitest/config';
import LongFilesFirst from './scripts/test-sequencer.js';
import { deadlineSettings, workspaceAliases } from './vitest.shared.js';

// Tests that drive a DOM (jsdom pages, stubbed fetch, fake timers): each file gets fresh globals.
// A poller or a stub left by one would otherwise reach the next file in the same worker.
const ISOLATED = [
  'apps/*/src/**/*.test.ts',
  'packages/*/src/browser/**/*.test.ts',
  'plugins/*/tests/front*.test.ts',
];

const EXCLUDED = ['**/node_modules/**', '**/dist/**', 'test/browser/**'];

// One root command runs every package's tests. Workspace packages resolve to their TypeScript
// sources so tests never run against a stale build.
export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    // Run once for the whole run (projects without `extends` do not repeat them).
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
    projects: [
      {
        resolve: { alias: workspaceAliases },
        test: { name: 'dom', include: ISOLATED, exclude: EXCLUDED, isolate: true, ...deadlineSettings },
      },
      {
        resolve: { alias: workspaceAliases },
        test: {
          name: 'node',
          include: [
            'packages/*/src/**/*.test.ts',
            'packages/*/test/**/*.test.ts',
            'plugins/*/src/**/*.test.ts',
            'plugins/*/tests/**/*.test.ts',
            'test/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          exclude: [...EXCLUDED, ...ISOLATED],
          // Files share a worker's loaded modules instead of loading the server, php-wasm and
          // their dependencies again for each of some 130 files: about 100 s less of a run
          // (docs/testing.md "Speed"). Each file still starts and stops what it uses.
          isolate: false,
          ...deadlineSettings,
        },
      },
    ],
    ...deadlineSettings,
  },
});
