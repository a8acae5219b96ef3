#!/usr/bin/env node
// Typechecks every workspace in as few TypeScript programs as their settings allow. Each workspace
// keeps its own tsconfig.json (its `npm run typecheck` still checks it alone); here the workspaces
// whose compiler options agree (the browser ones with DOM, the server-side ones without) are
// checked together, so the shared sources (core, the server, the test kit) are read and checked
// once per kind instead of once per workspace: about 35 s of CPU instead of 110 s. A workspace
// whose options match no other is checked on its own. The generated configs go to
// node_modules/.cache, never into the tracked tree.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = join(root, 'node_modules', '.cache', 'cryptocheckout-typecheck');
// Options that only place emitted files: they do not change what a check finds.
const EMIT_ONLY = new Set(['rootDir', 'outDir', 'noEmit']);

/** tsconfig files are JSON with comments. */
function readJsonWithComments(file) {
  const text = readFileSync(file, 'utf8').replace(
    /("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (_comment, string) => string ?? '',
  );
  return JSON.parse(text.replace(/,(\s*[}\]])/g, '$1'));
}

function workspaces() {
  const { workspaces: patterns } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return patterns.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(root, pattern.slice(0, -2), entry.name))
      : [join(root, pattern)],
  );
}

const groups = new Map();
for (const dir of workspaces()) {
  const file = join(dir, 'tsconfig.json');
  if (!existsSync(file)) continue;
  const config = readJsonWithComments(file);
  const options = Object.fromEntries(
    Object.entries(config.compilerOptions ?? {}).filter(([name]) => !EMIT_ONLY.has(name)),
  );
  const key = JSON.stringify([config.extends ? resolve(dir, config.extends) : null, options]);
  const group = groups.get(key) ?? {
    extends: config.extends ? resolve(dir, config.extends) : undefined,
    options,
    dirs: [],
    include: [],
  };
  group.dirs.push(relative(root, dir));
  group.include.push(...(config.include ?? ['**/*']).map((pattern) => join(dir, pattern)));
  groups.set(key, group);
}

mkdirSync(cacheDir, { recursive: true });
const programs = [...groups.values()].map((group, index) => {
  const configFile = join(cacheDir, `tsconfig.${index}.json`);
  const config = {
    ...(group.extends ? { extends: group.extends } : {}),
    compilerOptions: { ...group.options, noEmit: true },
    include: group.include,
  };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  return { configFile, dirs: group.dirs };
});

const started = Date.now();
const results = await Promise.all(
  programs.map(
    ({ configFile, dirs }) =>
      new Promise((done) => {
        const child = spawn(
          process.execPath,
          [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', configFile],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let output = '';
        child.stdout.on('data', (chunk) => {
          output += chunk;
        });
        child.stderr.on('data', (chunk) => {
          output += chunk;
        });
        child.on('exit', (code) => done({ dirs, ok: code === 0, output }));
      }),
  ),
);

for (const result of results) {
  console.log(`typecheck ${result.ok ? 'ok    ' : 'FAILED'} ${result.dirs.join(', ')}`);
  if (!result.ok) process.stdout.write(result.output);
}
console.log(
  `typecheck: ${programs.length} programs for ${results.flatMap((result) => result.dirs).length} workspaces in ${Math.round((Date.now() - started) / 1000)} s`,
);
process.exit(results.every((result) => result.ok) ? 0 : 1);
