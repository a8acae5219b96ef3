// The module's storage scenarios, written once and run on both databases the tests have: the
// harness's SQLite (php-wasm, module.test.ts) and a real MariaDB (Debian's PHP, mariadb.test.ts).
// Each is PHP that expects the module's classes and an installed CheckoutRepository, and prints
// JSON; the matching check says what must come out.

import { phpString } from '@cryptocheckout/php-testkit';
import { expect } from 'vitest';
import { WALLET } from './harness/harness.js';

/** 80 checkouts of every kind over 9 orders; prints the SQL selection and the kernel's, per batch size. */
export const DUE_CHECKOUTS_PHP = `
$repository = new CryptoCheckout\\PrestaShop\\CheckoutRepository();
$now = 1800000000;
mt_srand(7);
$pick = function (array $choices) { return $choices[mt_rand(0, count($choices) - 1)]; };
for ($i = 1; $i <= 80; $i++) {
    $checkout = new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\StoredCheckout();
    $checkout->transactionCode = sprintf('cccccccc-0000-4000-8000-%012d', $i);
    $checkout->checkoutUrl = 'https://pay.example.com/pay/' . $checkout->transactionCode;
    $checkout->serviceUrl = 'https://pay.example.com';
    $checkout->fiatAmount = '10.00';
    $checkout->fiatCurrency = 'EUR';
    $checkout->walletAddress = ${phpString(WALLET)};
    $checkout->walletCurrency = 'USDC';
    $checkout->walletNetwork = 'POLYGON';
    $checkout->createdAt = $now - 5 * 86400 + $i * 3700;
    // Open, in its late window, long over, or never told by the service.
    $checkout->expiresAt = $pick([$now + 600, $now - 3600, $now - 3 * 86400, null]);
    $checkout->watchUntil = $checkout->expiresAt === null ? $now + 1800 : $checkout->expiresAt + 25 * 3600;
    $checkout->checkedAt = $pick([null, $now - 30, $now - 60, $now - 90, $now - 599, $now - 600, $now - 7200]);
    $checkout->resolution = $pick([null, null, null, 'booked', 'flagged']);
    $repository->add(1 + $i % 9, $checkout);
}
$entries = [];
for ($order = 1; $order <= 9; $order++) {
    foreach ($repository->checkouts($order) as $checkout) {
        $entries[] = [(string) $order, $checkout];
    }
}
$compared = [];
foreach ([1, 3, 10, 50, 200] as $batch) {
    $policy = new CryptoCheckout\\PrestaShop\\Vendor\\Client\\Kernel\\PollPolicy($batch);
    $compared[] = ['batch' => $batch, 'sql' => $repository->due($policy, $now), 'kernel' => $policy->select($entries, $now)];
}
echo json_encode($compared);`;

/** The SQL selects exactly what the kernel's PollPolicy selects, for every batch size. */
export function expectDueMatchesKernel(result: unknown): void {
  const compared = result as Array<{ batch: number; sql: string[][]; kernel: string[][] }>;
  for (const { batch, sql, kernel } of compared) {
    expect(sql, `batch ${batch}`).toEqual(kernel);
    expect(sql.length, `batch ${batch}`).toBe(Math.min(batch, compared.at(-1)!.kernel.length));
  }
  // Enough of them are due, and enough are not, for the comparison to mean something.
  expect(compared.at(-1)!.kernel.length).toBeGreaterThan(15);
  expect(compared.at(-1)!.kernel.length).toBeLessThan(60);
}

/** Two requests swap the same order's claim; prints what each swap and read saw. */
export const CLAIM_SWAPS_PHP = `
$repository = new CryptoCheckout\\PrestaShop\\CheckoutRepository();
echo json_encode([
    'first' => $repository->swapClaim(7, null, 'a|x|1|one'),
    'second' => $repository->swapClaim(7, null, 'b|x|1|two'),
    'held' => $repository->readClaim(7),
    'wrongRelease' => $repository->swapClaim(7, 'b|x|1|two', null),
    'release' => $repository->swapClaim(7, 'a|x|1|one', null),
    'free' => $repository->readClaim(7),
    'again' => $repository->swapClaim(7, null, 'c|x|2|three'),
    'other' => $repository->readClaim(8),
]);`;

/** Exactly one of two swaps of the same claim wins; a release by the loser changes nothing. */
export const CLAIM_SWAPS_EXPECTED = {
  first: true,
  second: false,
  held: 'a|x|1|one',
  wrongRelease: false,
  release: true,
  free: null,
  again: true,
  other: null,
};
