import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODULE_ROOT, PLUGIN_ROOT } from './harness/harness.js';

// The README's promise about when invoices are checked is the kernel's PollPolicy, and the cron
// line it gives runs the poll that often.

const README = readFileSync(join(PLUGIN_ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
const POLL_POLICY = readFileSync(
  createRequire(import.meta.url).resolve('@cryptocheckout/php-client/src/Kernel/PollPolicy.php'),
  'utf8',
);

/** A number of seconds as the README says it. */
const SAID: Record<number, string> = {
  60: 'once a minute',
  300: 'every five minutes',
  600: 'every ten minutes',
};

describe('README', () => {
  it("states the kernel's polling promise with PollPolicy's numbers", () => {
    const interval = Number(/INTERVAL_SECONDS = (\d+);/.exec(POLL_POLICY)?.[1]);
    const [, open, late] =
      /int \$openRecheckSeconds = (\d+), int \$lateRecheckSeconds = (\d+)/.exec(POLL_POLICY) ?? [];
    expect([interval, Number(open), Number(late)]).toEqual([300, 60, 600]);
    expect(README).toContain(`the poll runs ${SAID[interval]} (WHMCS's cron, above)`);
    expect(README).toContain(
      `A checkout is checked at every poll while it can be paid (at most ${SAID[Number(open)]}), at the first poll after its expiry`,
    );
    expect(README).toContain(`then ${SAID[Number(late)]} through the 24-hour late window`);
    expect(README).toContain(
      'a booked payment is looked at once more by a later poll, which repairs an invoice that a stale save put back to Unpaid',
    );
  });

  it('gives the cron line that runs the poll every five minutes, on the hook the module registers', () => {
    expect(README).toContain('*/5 * * * * php -q /path/to/whmcs/crons/cron.php');
    const hook = readFileSync(join(MODULE_ROOT, 'includes/hooks/cryptocheckout.php'), 'utf8');
    expect(hook).toMatch(/add_hook\('AfterCronJob', 1, function \(\$vars\) \{[\s\S]*Gateway::poll\(\);/);
    expect(README).toContain("The module's poll runs on every run of the cron (hook `AfterCronJob`).");
  });
});
