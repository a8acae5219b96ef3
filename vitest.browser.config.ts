import { defineConfig } from 'vitest/config';
import { deadlineSettings, workspaceAliases } from './vitest.shared.js';

// Browser tests: a real server and Debian's chromium driven by playwright-core. Run with
// scripts/test-browser.sh (installs chromium when missing, builds the pay page assets).
export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ['test/browser/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // No browser or server a test started may outlive the run.
    globalSetup: ['./scripts/process-guard.ts'],
    // One browser at a time: the machines are small and the tests share screenshots.
    fileParallelism: false,
    reporters: ['default', ['json', { outputFile: 'test-results/vitest-browser.json' }]],
    ...deadlineSettings,
  },
});
