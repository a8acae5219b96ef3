import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nativePhp, serveNative } from './native-wordpress.js';

const php = nativePhp();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The processes serving `folder` (`php -S … -t folder`): the parents and the workers they forked. */
function processesServing(folder: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let command: string;
    let status: string;
    try {
      command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue;
    }
    if (command.split('\0').includes(folder) && !/^State:\s+Z/m.test(status)) found.push(Number(entry));
  }
  return found;
}

describe.skipIf(php === null)('native WordPress server (Debian PHP)', () => {
  it('stops the workers php -S forked, not only its parent', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'cryptocheckout-native-php-'));
    folders.push(folder);
    const site = join(folder, 'site');
    mkdirSync(site);
    writeFileSync(join(site, 'wp-login.php'), '<?php echo "up";');
    const server = await serveNative(php!.binary, site, 3);
    // The site's parent and 3 workers, the runner's parent and 2 workers.
    expect(processesServing(site).length).toBe(7);
    expect(await (await fetch(`${server.url}/wp-login.php`)).text()).toBe('up');

    await server.stop();
    expect(processesServing(site)).toEqual([]);
  });
});
