/**
 * Progress for `npm test`: every PROGRESS_EVERY_MS a line with how far the run is (files and tests
 * done, elapsed time) and which files are running with their own counts, then a closing summary
 * (passed, failed, skipped, wall time, the slowest files). The default reporter still prints the
 * results and the failures; this one only says where the run is.
 */
import type { Reporter, TestCase, TestModule, TestSpecification, Vitest } from 'vitest/node';

const PROGRESS_EVERY_MS = 30_000;
const SLOWEST_SHOWN = 5;

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export default class TestProgressReporter implements Reporter {
  private started = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private totalFiles = 0;
  private filesDone = 0;
  private testsDone = 0;
  private failed = 0;
  private readonly running = new Map<string, { started: number; done: number }>();
  private root = '';

  onInit(vitest: Vitest): void {
    this.root = `${vitest.config.root}/`;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.started = Date.now();
    this.totalFiles = specifications.length;
    this.print(`test files: ${this.totalFiles}; progress every ${seconds(PROGRESS_EVERY_MS)}`);
    this.timer = setInterval(() => this.printProgress(), PROGRESS_EVERY_MS);
    this.timer.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.moduleId, { started: Date.now(), done: 0 });
  }

  onTestCaseResult(testCase: TestCase): void {
    this.testsDone += 1;
    if (testCase.result().state === 'failed') this.failed += 1;
    const file = this.running.get(testCase.module.moduleId);
    if (file) file.done += 1;
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.moduleId);
    this.filesDone += 1;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    clearInterval(this.timer);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    const slowest = [...modules]
      .map((module) => ({ name: this.name(module.moduleId), ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST_SHOWN)
      .map((file) => `  ${seconds(file.ms).padStart(6)}  ${file.name}`);
    this.print(
      `summary: ${passed} passed, ${failed} failed, ${skipped} skipped in ${modules.length} files; wall time ${seconds(Date.now() - this.started)}`,
    );
    this.print(`slowest files:\n${slowest.join('\n')}`);
  }

  private printProgress(): void {
    const running = [...this.running.entries()]
      .map(([id, file]) => `${this.name(id)} (${file.done} tests, ${seconds(Date.now() - file.started)})`)
      .join('; ');
    this.print(
      `${seconds(Date.now() - this.started)}: ${this.filesDone}/${this.totalFiles} files, ${this.testsDone} tests done` +
        `${this.failed > 0 ? `, ${this.failed} failed` : ''}${running ? `; running ${running}` : ''}`,
    );
  }

  private name(moduleId: string): string {
    return moduleId.startsWith(this.root) ? moduleId.slice(this.root.length) : moduleId;
  }

  private print(line: string): void {
    process.stdout.write(`[progress] ${line}\n`);
  }
}
