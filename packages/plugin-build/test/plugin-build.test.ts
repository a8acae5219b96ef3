import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bundleScripts,
  copyClient,
  copySources,
  listFiles,
  writePackage,
  ZIP_EPOCH,
  zipTimeFor,
} from '../src/index.mjs';

const ENTRY = fileURLToPath(new URL('../src/index.mjs', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'plugin-build-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let folders = 0;
/** A fresh folder under the test's scratch folder, with `files` written into it. */
function folder(files: Record<string, string> = {}): string {
  const dir = join(scratch, `f${folders++}`);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('bundleScripts', () => {
  it('bundles each entry into one minified self-contained script and reports its sizes', async () => {
    const root = folder({
      'src/entry.ts': "import { greet } from './greet.js';\ndocument.title = greet('shop');\n",
      'src/greet.ts': "export function greet(name: string): string {\n  return 'hello ' + name;\n}\n",
    });
    const outdir = join(root, 'out');
    const log: string[] = [];
    const sizes = await bundleScripts({
      root,
      entryPoints: { front: 'src/entry.ts' },
      outdir,
      log: (line) => log.push(line),
    });

    const bundle = readFileSync(join(outdir, 'front.js'));
    expect(bundle.toString()).toContain('hello ');
    expect(bundle.toString()).not.toMatch(/\b(import|export)\b/);
    expect(bundle.toString().trim().split('\n')).toHaveLength(1);
    expect(sizes).toEqual({
      'front.js': { bytes: bundle.length, gzipBytes: gzipSync(bundle, { level: 9 }).length },
    });
    expect(gunzipSync(gzipSync(bundle)).equals(bundle)).toBe(true);
    expect(log).toEqual([`script front.js: ${bundle.length} B, ${sizes['front.js']!.gzipBytes} B gzipped`]);
  });

  it('fails on an entry that does not compile', async () => {
    const root = folder({ 'src/broken.ts': 'export const = ;\n' });
    await expect(
      bundleScripts({ root, entryPoints: { broken: 'src/broken.ts' }, outdir: join(root, 'out') }),
    ).rejects.toThrow();
  });
});

describe('copyClient', () => {
  it('replaces the destination with the PHP client under the plugin namespace and guard', async () => {
    const dest = join(
      folder({ 'vendor/client/Stale.php': '<?php // from an old build' }),
      'vendor',
      'client',
    );
    const log: string[] = [];
    const files = await copyClient({
      dest,
      namespace: 'Acme\\Shop\\Vendor\\Client',
      guard: "defined('ACME') || exit;",
      log: (line) => log.push(line),
    });
    expect(files).toContain('Client.php');
    expect(files).toContain('Kernel/StatusWidgetMarkup.php');
    expect(existsSync(join(dest, 'Stale.php'))).toBe(false);
    expect(readFileSync(join(dest, 'Client.php'), 'utf8')).toContain('namespace Acme\\Shop\\Vendor\\Client;');
    expect(readFileSync(join(dest, 'autoload.php'), 'utf8')).toContain("defined('ACME') || exit;");
    expect(log).toEqual([`PHP client: ${files.length} files as Acme\\Shop\\Vendor\\Client`]);
  });
});

describe('copySources and listFiles', () => {
  it('copies the sources but what is built elsewhere, and lists files sorted with forward slashes', async () => {
    const from = folder({
      'main.php': '<?php',
      'views/js/front.js': 'built',
      'views/js/index.php': '<?php',
      'lib/b.php': '<?php',
      'lib/a.php': '<?php',
    });
    const to = join(folder(), 'stage');
    const log: string[] = [];
    const count = await copySources({
      from,
      to,
      skip: (path) => path.endsWith('.js'),
      log: (line) => log.push(line),
    });
    expect(await listFiles(to)).toEqual(['lib/a.php', 'lib/b.php', 'main.php', 'views/js/index.php']);
    expect(count).toBe(4);
    expect(log).toEqual(['sources: 4 files']);
  });
});

describe('writePackage', () => {
  const stageFiles = (files: Record<string, string>) => async (dir: string) => {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), content);
    }
  };

  it('zips what the stage step built, minus the excluded files, always to the same bytes', async () => {
    const out = folder();
    const files = { 'plugin/main.php': '<?php echo 1;', 'plugin/src/A.php': '<?php', 'plugin/src/A.ts': 'x' };
    const log: string[] = [];
    const first = await writePackage({
      outFile: join(out, 'one', 'plugin.zip'),
      stage: stageFiles(files),
      exclude: [/\.ts$/],
      log: (line) => log.push(line),
    });
    const second = await writePackage({
      outFile: join(out, 'two.zip'),
      stage: stageFiles(files),
      exclude: [/\.ts$/],
    });

    expect(first.entries).toEqual(['plugin/main.php', 'plugin/src/A.php']);
    const zip = readFileSync(first.file);
    expect(first.bytes).toBe(zip.length);
    expect(zip.equals(readFileSync(second.file))).toBe(true);
    const unzipped = unzipSync(zip);
    expect(Object.keys(unzipped)).toEqual(['plugin/main.php', 'plugin/src/A.php']);
    expect(strFromU8(unzipped['plugin/main.php']!)).toBe('<?php echo 1;');
    expect(log).toEqual([`wrote ${first.file} (2 files, ${zip.length} B)`]);
  });

  it('stamps every entry with a time that follows the content, so OPcache sees an upgrade', () => {
    const one = { 'plugin/main.php': strToU8('<?php echo 1;') };
    const two = { 'plugin/main.php': strToU8('<?php echo 2;') };
    const time = zipTimeFor(one);
    expect(zipTimeFor({ ...one })).toEqual(time);
    expect(zipTimeFor(two)).not.toEqual(time);
    expect(time.getTime()).toBeGreaterThanOrEqual(ZIP_EPOCH.getTime());
    expect(time.getTime() - ZIP_EPOCH.getTime()).toBeLessThan(366 * 24 * 3600 * 1000);
    expect(time.getTime() % 2000).toBe(0);
    // The time is what the zip's entries carry (fflate writes local time in DOS format at byte 10).
    const zip = zipSync(one, { mtime: time });
    const dosTime = new DataView(zip.buffer, zip.byteOffset).getUint16(10, true);
    expect(dosTime).toBe((time.getHours() << 11) | (time.getMinutes() << 5) | (time.getSeconds() >> 1));
  });

  it('removes its staging folder, and writes nothing when the stage step fails', async () => {
    const out = folder();
    let staged = '';
    await writePackage({
      outFile: join(out, 'ok.zip'),
      stage: async (dir) => {
        staged = dir;
        writeFileSync(join(dir, 'a.txt'), 'a');
      },
    });
    expect(existsSync(staged)).toBe(false);

    await expect(
      writePackage({
        outFile: join(out, 'failed.zip'),
        stage: async (dir) => {
          staged = dir;
          throw new Error('bundling failed');
        },
      }),
    ).rejects.toThrow('bundling failed');
    expect(existsSync(staged)).toBe(false);
    expect(existsSync(join(out, 'failed.zip'))).toBe(false);
  });
});

describe('runScript', () => {
  function script(body: string): string {
    const path = join(folder(), 'script.mjs');
    writeFileSync(
      path,
      `import { runScript } from ${JSON.stringify(pathToFileURL(ENTRY).href)};\nrunScript(import.meta.url, ${body});\n`,
    );
    return path;
  }
  const run = (path: string, ...args: string[]) =>
    spawnSync(process.execPath, [path, ...args], { encoding: 'utf8', cwd: scratch });

  it('runs main with --out made absolute and prints its progress', () => {
    const result = run(
      script("async ({ out, log }) => { log('step one'); log('out=' + out); }"),
      '--out',
      'dist',
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`step one\nout=${join(scratch, 'dist')}\n`);
  });

  it('reports a failure on one line with exit code 1', () => {
    const failing = script("async () => { throw new Error('the PHP client is missing'); }");
    expect(run(failing)).toMatchObject({ status: 1, stderr: 'the PHP client is missing\n' });
    expect(run(failing, '--bogus')).toMatchObject({
      status: 1,
      stderr: expect.stringContaining("'--bogus'"),
    });
  });

  it('does nothing when the script is imported rather than run', () => {
    const imported = script("async ({ log }) => log('ran')");
    const importer = join(folder(), 'importer.mjs');
    writeFileSync(importer, `await import(${JSON.stringify(pathToFileURL(imported).href)});\n`);
    expect(run(importer)).toMatchObject({ status: 0, stdout: '' });
  });
});
