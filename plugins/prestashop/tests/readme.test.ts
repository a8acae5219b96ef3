import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLUGIN_ROOT } from './harness/harness.js';

// The README is what a merchant reads before trusting the module with orders: it must make the
// kernel's promises (PollPolicy) and say where an upgrade moved the data. The cron line it gives
// is the one the Status panel shows (module.test.ts checks that one against PollPolicy).

const readme = readFileSync(join(PLUGIN_ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');

describe('README', () => {
  it("states the kernel's polling promise and a cron line that runs the poll every five minutes", () => {
    expect(readme).toContain(
      'the poll runs every five minutes; a checkout is checked at every poll while it can be paid (at most once a minute), at the first poll after its expiry (so an expired order is cancelled and its stock freed within one poll interval), then every ten minutes through the 24-hour late window; a booked payment is looked at once more by a later poll, which repairs an order that a stale save put back to unpaid.',
    );
    expect(readme).toContain(
      '*/5 * * * * curl -fsS "https://shop.example/module/cryptocheckout/poll?token=<token>" > /dev/null',
    );
    expect(readme).not.toMatch(/\*\/(?!5 )\d+ \* \* \* \*/);
  });

  it('says where the upgrade to 1.3.0 moved the data, and what it does on a failure', () => {
    for (const table of [
      'PREFIX_cryptocheckout_checkouts',
      'PREFIX_cryptocheckout_orders',
      'PREFIX_cryptocheckout_state',
      'PREFIX_cryptocheckout_transaction',
      'PREFIX_cryptocheckout_checkout`',
      'PREFIX_cryptocheckout_claim',
    ]) {
      expect(readme).toContain(table);
    }
    expect(readme).toContain('Open orders keep being watched by the poll, paid ones stay paid');
    expect(readme).toContain('Running the upgrade again adds nothing.');
    expect(readme).toContain(
      'If a checkout cannot be moved (the database refuses a write), nothing is dropped',
    );
  });

  it('names every setting with its default, and the display modes every plugin stores', () => {
    for (const row of [
      '| Service URL | (empty) |',
      '| Network | Polygon |',
      '| Asset | USDC |',
      '| Wallet address | (empty) |',
      '| Display | Redirect to the payment page |',
      '| Delete data on uninstall | No |',
      '| Debug logging | No |',
    ]) {
      expect(readme).toContain(row);
    }
    expect(readme).toContain('(stored as `redirect`)');
    expect(readme).toContain('(`modal`)');
  });
});
