// Long files first, so the two workers finish together instead of one waiting on a late start.
// Once a run has recorded durations (vitest's cache in node_modules/.vite), vitest's own order
// already does that. Before that, as on a fresh clone, vitest orders by file size, and the files
// that boot WordPress (the slowest by far) are among the smallest: a thin file over a shared suite.
// So, until every file has a recorded duration, those go first, and first among them the ones on
// PHP 7.4: that WordPress runs on php-wasm (PHP 8 runs on the machine's PHP when it has one), about
// ten times slower a request, and alone takes about half of what one worker does in a run.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const BOOTS_WORDPRESS = /\b(useShop|bootWordPress)\(|\.suite\.js'/;
const ON_PHP_WASM = /\b(wordpressSuite\(|php: )'7\.4'/;

/** 2 for a file booting WordPress on php-wasm, 1 for another file booting WordPress, else 0. */
function startRank(file: string): number {
  const source = readFileSync(file, 'utf8');
  if (ON_PHP_WASM.test(source)) return 2;
  return BOOTS_WORDPRESS.test(source) ? 1 : 0;
}

export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = sorted.every((spec) =>
      this.ctx.cache.getFileTestResults(
        `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`,
      ),
    );
    if (timed) return sorted;
    const rank = new Map(sorted.map((spec) => [spec, startRank(spec.moduleId)]));
    // Array.prototype.sort is stable: within a rank, vitest's own order stays.
    return [...sorted].sort((a, b) => (rank.get(b) ?? 0) - (rank.get(a) ?? 0));
  }
}
