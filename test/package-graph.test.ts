import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The workspace packages form a graph without loops, and no package reaches into another one's files
// by relative path: such an import hides a dependency from package.json, npm and turbo (core once
// imported php-testkit's sources that way, while php-testkit depends on the server, which depends on
// core). Benches and scripts at the repository root are not workspaces and are not checked.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCOPE = '@cryptocheckout/';
const SOURCE = /\.(?:ts|mts|cts|tsx|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', 'test-results', 'artifacts']);
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

interface Workspace {
  /** Absolute folder. */
  dir: string;
  /** Folder relative to the root, with forward slashes. */
  path: string;
  /** Absent for a workspace folder without package.json (its sources are still scanned). */
  name?: string;
  /** The workspace packages it depends on, dev dependencies included. */
  uses: string[];
}

/** The root package.json's workspace folders ("dir" or "dir/*"). */
function workspaces(): Workspace[] {
  const patterns = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] })
    .workspaces;
  const dirs = patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [join(ROOT, pattern)];
    const parent = join(ROOT, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
  return dirs
    .filter((dir) => existsSync(dir))
    .map((dir) => {
      const path = relative(ROOT, dir).split(sep).join('/');
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest)) return { dir, path, uses: [] };
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
      const uses = DEPENDENCY_FIELDS.flatMap((field) =>
        Object.keys((json[field] as Record<string, string> | undefined) ?? {}),
      ).filter((name) => name.startsWith(SCOPE));
      return { dir, path, name: json.name as string, uses: [...new Set(uses)] };
    });
}

/** Every loop in the dependency graph, each as "a → b → a". */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (name: string) => {
    const onStack = stack.indexOf(name);
    if (onStack >= 0) {
      cycles.push([...stack.slice(onStack), name].join(' → '));
      return;
    }
    if (done.has(name)) return;
    stack.push(name);
    for (const next of graph.get(name) ?? []) visit(next);
    stack.pop();
    done.add(name);
  };
  for (const name of graph.keys()) visit(name);
  return cycles;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return SKIPPED_DIRS.has(entry.name) || entry.name.startsWith('.') ? [] : sourceFiles(path);
    }
    return entry.isFile() && SOURCE.test(entry.name) ? [path] : [];
  });
}

// Module specifiers (static, side-effect and dynamic imports, re-exports, require, vi.mock) and
// `new URL('…', import.meta.url)` paths; template literals with substitutions are not followed.
const SPECIFIERS = [
  /\b(?:from|import)\s*['"]([^'"\n]+)['"]/g,
  /\b(?:import|require|vi\.mock|vi\.doMock)\s*\(\s*['"]([^'"\n]+)['"]/g,
  /\bnew URL\(\s*(?:'([^'\n]+)'|"([^"\n]+)"|`([^`$\n]+)`)/g,
];

/** The specifiers in `text` with their 1-based line numbers. */
function specifiersOf(text: string): { line: number; specifier: string }[] {
  return SPECIFIERS.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((match) => ({
      line: text.slice(0, match.index).split('\n').length,
      specifier: match.slice(1).find((group) => group !== undefined)!,
    })),
  ).sort((a, b) => a.line - b.line);
}

const inside = (dir: string, path: string) => path === dir || path.startsWith(dir + sep);

describe('workspace package graph', () => {
  const all = workspaces();
  const packages = all.filter((workspace) => workspace.name !== undefined);

  it('finds the workspaces', () => {
    expect(packages.map((workspace) => workspace.name)).toEqual(
      expect.arrayContaining([`${SCOPE}core`, `${SCOPE}server`, `${SCOPE}php-testkit`]),
    );
  });

  it('has no dependency loop (dependencies and devDependencies)', () => {
    const graph = new Map(packages.map((workspace) => [workspace.name!, workspace.uses]));
    expect(findCycles(graph)).toEqual([]);
  });

  it('imports another workspace only by its package name', () => {
    const crossings: string[] = [];
    for (const workspace of all) {
      for (const file of sourceFiles(workspace.dir)) {
        const text = readFileSync(file, 'utf8');
        for (const { line, specifier } of specifiersOf(text)) {
          if (!specifier.startsWith('.')) continue;
          const target = resolve(dirname(file), specifier);
          if (inside(workspace.dir, target)) continue;
          const other = all.find((candidate) => inside(candidate.dir, target));
          if (other !== undefined) {
            crossings.push(`${relative(ROOT, file)}:${line}: '${specifier}' reaches into ${other.path}`);
          }
        }
      }
    }
    expect(crossings).toEqual([]);
  });

  it('declares every workspace package it imports', () => {
    const undeclared: string[] = [];
    for (const workspace of packages) {
      for (const file of sourceFiles(workspace.dir)) {
        const text = readFileSync(file, 'utf8');
        for (const { line, specifier } of specifiersOf(text)) {
          if (!specifier.startsWith(SCOPE)) continue;
          const name = specifier.split('/').slice(0, 2).join('/');
          if (name !== workspace.name && !workspace.uses.includes(name)) {
            undeclared.push(
              `${relative(ROOT, file)}:${line}: ${name} is not in ${workspace.path}/package.json`,
            );
          }
        }
      }
    }
    expect(undeclared).toEqual([]);
  });
});

describe('package graph checks', () => {
  it('name a loop', () => {
    const graph = new Map([
      ['core', ['php-testkit']],
      ['php-testkit', ['server']],
      ['server', ['core']],
      ['pay-page', ['core']],
    ]);
    expect(findCycles(graph)).toEqual(['core → php-testkit → server → core']);
    expect(findCycles(new Map([['server', ['core']]]))).toEqual([]);
  });

  it('find the specifiers of a file, with their lines', () => {
    const text = [
      "import { a } from '../../php-testkit/src/index.js';",
      'import {',
      '  b,',
      "} from './b.js';",
      "const c = await import('../c.js');",
      "const d = new URL('../../core/vectors/', import.meta.url);",
      'const e = new URL(`$' + '{base}/x`, import.meta.url);',
      "import './side-effect.js';",
    ].join('\n');
    expect(specifiersOf(text)).toEqual([
      { line: 1, specifier: '../../php-testkit/src/index.js' },
      { line: 4, specifier: './b.js' },
      { line: 5, specifier: '../c.js' },
      { line: 6, specifier: '../../core/vectors/' },
      { line: 8, specifier: './side-effect.js' },
    ]);
  });
});
