import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { EVENT_DEADLINE_MS } from './helpers.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const entry = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const bundleDir = join(tmpdir(), 'cryptocheckout-cli-bundles');
const STALE_BUNDLE_MS = 60 * 60 * 1000;
const RESOLVING = Symbol('resolving');

/**
 * The bundle lives outside the repository, where Node would find no node_modules: each npm package
 * is resolved from the source file importing it and written into the bundle as a file URL, while
 * workspace packages resolve (by the `source` condition) to their TypeScript and are bundled.
 */
const resolveFromSources: esbuild.Plugin = {
  name: 'resolve-from-sources',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === RESOLVING) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: RESOLVING,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      if (resolved.external || !resolved.path.includes(`${sep}node_modules${sep}`)) return resolved;
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
    // Modules find files beside them (package.json, the pay page's dist/assets) through
    // import.meta.url, which must stay the source file's URL and not become the bundle's.
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      const ownUrl = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll('import.meta.url', ownUrl), loader: 'ts' };
    });
  },
};

let bundle: Promise<string> | undefined;

/**
 * Bundles the current sources of the CLI (`src/cli.ts`) with esbuild and returns the path of the
 * bundle, a file under the OS temp folder named by its content hash: tests run today's code with no
 * build step, and every test file of a run shares one file. npm packages load from the repository's
 * node_modules; the pay page's browser assets are still read from packages/pay-page/dist/assets.
 */
export function bundledCli(): Promise<string> {
  bundle ??= buildBundle();
  return bundle;
}

async function buildBundle(): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: repoRoot,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    sourcemap: 'inline',
    plugins: [resolveFromSources],
    write: false,
    outfile: join(bundleDir, 'cli.mjs'),
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const path = join(bundleDir, `cli-${hash}.mjs`);
  mkdirSync(bundleDir, { recursive: true });
  removeStaleBundles(path);
  try {
    // Already bundled by an earlier test file or run: refresh its time so no one prunes it.
    const now = new Date();
    utimesSync(path, now, now);
    return path;
  } catch {
    // Not there yet.
  }
  // Test files build in parallel: write aside and rename, so no process ever runs half a file.
  const partial = `${path}.${process.pid}-${randomUUID()}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, path);
  return path;
}

/** Bundles of older sources pile up in the temp folder; one an hour old serves no running test. */
function removeStaleBundles(keep: string): void {
  for (const name of readdirSync(bundleDir)) {
    const path = join(bundleDir, name);
    try {
      if (path !== keep && Date.now() - statSync(path).mtimeMs > STALE_BUNDLE_MS)
        rmSync(path, { force: true });
    } catch {
      // Another test process removed it first.
    }
  }
}

/** A CLI process started by {@link runCli}: its stdout and stderr together, its exit, and a wait for a pattern in them. */
export interface CliRun {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/** Runs the bundled CLI `cli` with `args` in `cwd` (a temporary folder: its default ./.data lands there). */
export function runCli(
  cli: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): CliRun {
  const child = spawn(process.execPath, ['--enable-source-maps', cli, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async waitFor(pattern: RegExp, timeoutMs = EVENT_DEADLINE_MS) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return output;
    },
  };
}
