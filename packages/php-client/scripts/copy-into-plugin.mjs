#!/usr/bin/env node
/**
 * Copies the PHP client (src/) into a plugin, moving it from `CryptoCheckout\Client` to the
 * plugin's own namespace so two plugins on one site never load each other's copy.
 *
 *   node scripts/copy-into-plugin.mjs --dest <dir> --namespace <Prefix> [--guard "<php statement>"] [--clean]
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The namespace the client is written in. */
export const SOURCE_NAMESPACE = 'CryptoCheckout\\Client';

/** Where the client's PHP sources live. */
export const SOURCE_DIR = fileURLToPath(new URL('../src/', import.meta.url));

const NAMESPACE_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(\\[A-Za-z_][A-Za-z0-9_]*)*$/;

// The namespace as a whole name: not preceded by a name character or another namespace segment,
// and not running on into a longer name ("CryptoCheckout\ClientX").
const QUALIFIED_NAME = /(?<![\w\\])(\\?)CryptoCheckout\\Client(?![\w])/g;

// Any leftover spelling, including one escaped inside a PHP string.
const LEFTOVER = /CryptoCheckout\\{1,2}Client(?![\w])/;

/**
 * Rewrites one PHP source from `CryptoCheckout\Client` to `namespace`; when `guard` is given it is
 * inserted after the namespace line of files that run code on load (the autoloader).
 * @param {string} source
 * @param {string} namespace
 * @param {string} [guard]
 * @returns {string}
 */
export function rewriteNamespace(source, namespace, guard) {
  assertNamespace(namespace);
  let rewritten = source.replace(QUALIFIED_NAME, (_match, leadingSlash) => `${leadingSlash}${namespace}`);
  if (LEFTOVER.test(rewritten)) {
    throw new Error(
      `A reference to ${SOURCE_NAMESPACE} could not be rewritten; write it as a plain qualified name.`,
    );
  }
  if (guard !== undefined && /^spl_autoload_register\(/m.test(rewritten)) {
    rewritten = rewritten.replace(/^(namespace [^;]+;\r?\n)/m, `$1\n${guard.trim()}\n`);
  }
  return rewritten;
}

/**
 * Copies every PHP file of the client into `dest`, keeping the folder layout (dest/autoload.php,
 * dest/Client.php, dest/Http/…). Returns the written paths relative to `dest`, sorted.
 * @param {{ dest: string, namespace: string, guard?: string, clean?: boolean }} options
 * @returns {Promise<string[]>}
 */
export async function copyPhpClient({ dest, namespace, guard, clean = false }) {
  assertNamespace(namespace);
  const target = resolve(dest);
  if (clean) await rm(target, { recursive: true, force: true });
  const written = [];
  for (const file of await listPhpFiles(SOURCE_DIR)) {
    const relativePath = relative(SOURCE_DIR, file).split('\\').join('/');
    const destination = join(target, relativePath);
    await mkdir(dirname(destination), { recursive: true });
    await writeFile(destination, rewriteNamespace(await readFile(file, 'utf8'), namespace, guard));
    written.push(relativePath);
  }
  return written.sort();
}

/** @param {string} namespace */
function assertNamespace(namespace) {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw new Error(
      `"${namespace}" is not a PHP namespace (write it like Vendor\\Plugin\\Client, without leading or trailing backslashes).`,
    );
  }
  if (namespace === SOURCE_NAMESPACE) {
    throw new Error(`Give the plugin its own namespace; ${SOURCE_NAMESPACE} is shared by every plugin.`);
  }
}

/**
 * @param {string} directory
 * @returns {Promise<string[]>}
 */
async function listPhpFiles(directory) {
  const files = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await listPhpFiles(path)));
    else if (entry.isFile() && entry.name.endsWith('.php')) files.push(path);
  }
  return files;
}

async function main() {
  const { values } = parseArgs({
    options: {
      dest: { type: 'string' },
      namespace: { type: 'string' },
      guard: { type: 'string' },
      clean: { type: 'boolean', default: false },
    },
  });
  if (values.dest === undefined || values.namespace === undefined) {
    process.stderr.write(
      'Usage: copy-into-plugin.mjs --dest <dir> --namespace <Prefix> [--guard "<php statement>"] [--clean]\n',
    );
    process.exitCode = 2;
    return;
  }
  const written = await copyPhpClient({
    dest: values.dest,
    namespace: values.namespace,
    guard: values.guard,
    clean: values.clean,
  });
  process.stdout.write(
    `Copied ${written.length} files into ${resolve(values.dest)} as ${values.namespace}\n`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
