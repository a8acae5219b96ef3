// Long files first, so the two workers finish together instead of one waiting on a late start.
// Once a run has recorded durations (vitest's cache in node_modules/.vite), vitest's own order
// already does that. Before that, as on a fresh clone, vitest orders by file size, and the files
// that boot WordPress (the slowest by far) are among the smallest: a thin file over a shared suite.
// So, until every file has a recorded duration, those go first.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const BOOTS_WORDPRESS = /\b(useShop|bootWordPress)\(|\.suite\.js'/;

function bootsWordPress(file: string): boolean {
  return BOOTS_WORDPRESS.test(readFileSync(file, 'utf8'));
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
    const slow = sorted.filter((spec) => bootsWordPress(spec.moduleId));
    return [...slow, ...sorted.filter((spec) => !slow.includes(spec))];
  }
}
