// Prints one plain closing line per vitest JSON report: "<suite>: N passed, N failed, N skipped".
// Usage: node scripts/print-test-summary.mjs unit|browser
import { readFileSync } from 'node:fs';

const suite = process.argv[2] ?? 'unit';
const report = JSON.parse(
  readFileSync(new URL(`../test-results/vitest-${suite}.json`, import.meta.url), 'utf8'),
);
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${suite}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0);
