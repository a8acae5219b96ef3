import * as phpWasmNode from '@php-wasm/node';
import * as phpWasmUniversal from '@php-wasm/universal';

/** The part of php-wasm's PHP class the sandbox uses. */
export interface PhpWasmInstance {
  runStream(request: {
    code?: string;
    scriptPath?: string;
    method?: 'GET' | 'POST';
    body?: string;
    env?: Record<string, string>;
  }): Promise<{ stdoutText: Promise<string>; stderrText: Promise<string>; exitCode: Promise<number> }>;
  mkdir(path: string): void;
  isDir(path: string): boolean;
  mount(vfsPath: string, handler: unknown): Promise<unknown>;
  writeFile(path: string, data: string | Uint8Array): void;
  readFileAsText(path: string): string;
  exit(code?: number): void;
}

// php-wasm's type declarations re-export extensionless paths ("./lib") that NodeNext resolution
// cannot follow, so the few entry points used here are typed locally.
const { createNodeFsMountHandler, loadNodeRuntime } = phpWasmNode as unknown as {
  createNodeFsMountHandler(hostPath: string): unknown;
  loadNodeRuntime(version: string, options: { emscriptenOptions: { processId?: number } }): Promise<number>;
};
const { PHP } = phpWasmUniversal as unknown as { PHP: new (runtimeId: number) => PhpWasmInstance };

/** PHP versions a sandbox can boot. */
export const SUPPORTED_PHP_VERSIONS = ['7.4', '8.1', '8.3'] as const;

/** One of {@link SUPPORTED_PHP_VERSIONS}. */
export type PhpVersion = (typeof SUPPORTED_PHP_VERSIONS)[number];

/**
 * PHP versions every PHP test runs on unless its platform says otherwise: the oldest supported
 * and a current release.
 */
export const PHP_VERSIONS: readonly PhpVersion[] = ['7.4', '8.3'];

/** What one PHP run produced. */
export interface PhpRunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Per-run inputs. */
export interface PhpRunOptions {
  /** Environment variables visible to `getenv()`. */
  env?: Record<string, string>;
  /** Request body, readable as `php://input`. */
  body?: string;
}

/** Sandbox options. */
export interface CreatePhpOptions {
  /** Host directories to expose inside PHP, keyed by their path in PHP's file system. */
  mounts?: Record<string, string>;
}

/** An in-process PHP interpreter with its own virtual file system. */
export interface PhpSandbox {
  readonly version: PhpVersion;
  /** The underlying php-wasm instance, for anything the sandbox does not wrap. */
  readonly php: PhpWasmInstance;
  /** Runs PHP source (`<?php` is added when missing); never throws on a non-zero exit. */
  runScript(code: string, options?: PhpRunOptions): Promise<PhpRunResult>;
  /** Runs a PHP file that exists in the sandbox's file system. */
  runFile(path: string, options?: PhpRunOptions): Promise<PhpRunResult>;
  /**
   * Runs PHP source that prints one JSON document and returns it decoded; throws with the
   * script's output when it exits non-zero or prints anything else.
   */
  runJson(code: string, options?: PhpRunOptions): Promise<unknown>;
  writeFile(path: string, data: string | Uint8Array): void;
  readFile(path: string): string;
  dispose(): void;
}

// Outside vitest php-wasm assigns no process id, and its file locking needs one per instance.
let nextProcessId = 1;

/** Boots PHP `version` and mounts the given host directories. */
export async function createPhp(version: PhpVersion, options: CreatePhpOptions = {}): Promise<PhpSandbox> {
  const emscriptenOptions = process.env.VITEST ? {} : { processId: nextProcessId++ };
  const php = new PHP(await loadNodeRuntime(version, { emscriptenOptions }));
  for (const [vfsPath, hostPath] of Object.entries(options.mounts ?? {})) {
    php.mkdir(vfsPath);
    await php.mount(vfsPath, createNodeFsMountHandler(hostPath));
  }
  return new WasmPhpSandbox(version, php);
}

class WasmPhpSandbox implements PhpSandbox {
  private disposed = false;

  constructor(
    readonly version: PhpVersion,
    readonly php: PhpWasmInstance,
  ) {}

  runScript(code: string, options: PhpRunOptions = {}): Promise<PhpRunResult> {
    const source = /^\s*<\?php/i.test(code) ? code : `<?php\n${code}`;
    return this.run({ code: source }, options);
  }

  runFile(path: string, options: PhpRunOptions = {}): Promise<PhpRunResult> {
    return this.run({ scriptPath: path }, options);
  }

  async runJson(code: string, options: PhpRunOptions = {}): Promise<unknown> {
    const result = await this.runScript(code, options);
    const failure = (why: string) =>
      new Error(`PHP ${this.version} ${why}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
    if (result.exitCode !== 0) throw failure(`exited with ${result.exitCode}`);
    try {
      return JSON.parse(result.stdout);
    } catch {
      throw failure('printed something other than JSON');
    }
  }

  writeFile(path: string, data: string | Uint8Array): void {
    const directory = path.slice(0, path.lastIndexOf('/'));
    if (directory !== '' && !this.php.isDir(directory)) this.php.mkdir(directory);
    this.php.writeFile(path, data);
  }

  readFile(path: string): string {
    return this.php.readFileAsText(path);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.php.exit();
  }

  private async run(
    target: { code: string } | { scriptPath: string },
    options: PhpRunOptions,
  ): Promise<PhpRunResult> {
    // runStream reports a failing exit code instead of throwing, so tests can assert on it.
    const response = await this.php.runStream({
      ...target,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.body === undefined ? {} : { method: 'POST', body: options.body }),
    });
    const [stdout, stderr, exitCode] = await Promise.all([
      response.stdoutText,
      response.stderrText,
      response.exitCode,
    ]);
    return { stdout, stderr, exitCode };
  }
}
