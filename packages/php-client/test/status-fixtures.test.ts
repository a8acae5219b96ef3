import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { VECTORS_ROOT } from './harness.js';
import { describeWithStatusFixtures } from './status-fixtures.js';

// packages/core/vectors/buyer-status.json is this kernel's status box and status answer rendered
// once, so the core's status widget test runs without PHP. This test keeps the file equal to what
// every PHP version renders. After an intended change of the PHP output, rewrite the file with
//   UPDATE_VECTORS=1 npx vitest run packages/php-client/test/status-fixtures.test.ts
// and review its diff.

const VECTOR_FILE = join(VECTORS_ROOT, 'buyer-status.json');
// Fixed URLs and no translations: the core test relabels the box itself where it needs to.
const STATUS_URL = 'https://shop.example/wp-json/cryptocheckout/v1/orders/12/status?key=wc_order_abc';
const CHECKOUT_URL = 'https://pay.example/pay/3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';

let updated = false;

describeWithStatusFixtures(
  'buyer status vectors (core/vectors/buyer-status.json)',
  { statusUrl: STATUS_URL, checkoutUrl: CHECKOUT_URL },
  (fixtures) => {
    it('are exactly what the kernel renders', () => {
      const rendered = { statusUrl: STATUS_URL, checkoutUrl: CHECKOUT_URL, cases: { ...fixtures } };
      // The first PHP version writes the file; the others are still compared with it.
      if (process.env.UPDATE_VECTORS === '1' && !updated) {
        writeFileSync(VECTOR_FILE, `${JSON.stringify(rendered, null, 2)}\n`);
        updated = true;
      }
      expect(JSON.parse(readFileSync(VECTOR_FILE, 'utf8'))).toEqual(rendered);
    });
  },
);
