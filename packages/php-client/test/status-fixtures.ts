// Fixtures for the status widget's tests in the plugins' front ends, made by the PHP kernel itself so
// the tests follow what the shops really print and answer. Exported as
// @cryptocheckout/php-client/test-support. The core's own widget test reads the same output, rendered
// once, from packages/core/vectors/buyer-status.json (status-fixtures.test.ts keeps it in step).
import { describeEachPhp, type PhpSandbox, phpJson, phpString } from '@cryptocheckout/php-testkit';
import { beforeAll } from 'vitest';
import { CLIENT_MOUNTS, LOAD_CLIENT } from './harness.js';

/**
 * BuyerStatus::of(), which the status endpoint sends: the core status widget's BuyerStatus
 * (@cryptocheckout/core/browser), repeated here because this package typechecks without DOM types.
 */
export interface BuyerStatus {
  state: string;
  message: string;
  terminal: boolean;
  checkout_url: string | null;
}

/** The order situations the fixtures cover ("_closed": open order, its checkout expired). */
export type StatusCase =
  | 'awaiting_payment'
  | 'awaiting_payment_closed'
  | 'underpaid'
  | 'underpaid_closed'
  | 'late_payment_review'
  | 'paid'
  | 'cancelled';

export interface StatusFixture {
  /** BuyerStatus::of() */
  status: BuyerStatus;
  /** The status endpoint's body: HttpReply::success(status) */
  answer: string;
  /** StatusWidgetMarkup::render() without and with openModal */
  box: string;
  modalBox: string;
}

export interface StatusFixtureOptions {
  statusUrl: string;
  checkoutUrl: string;
  /** English text → translation, applied by the PHP translate callable; other texts stay English. */
  translations?: Record<string, string>;
}

/** Runs the kernel's BuyerStatus, HttpReply and StatusWidgetMarkup for every {@link StatusCase}. */
export async function renderStatusFixtures(
  php: PhpSandbox,
  options: StatusFixtureOptions,
): Promise<Record<StatusCase, StatusFixture>> {
  return (await php.runJson(`${LOAD_CLIENT}
use CryptoCheckout\\Client\\Kernel\\BuyerStatus;
use CryptoCheckout\\Client\\Kernel\\HttpReply;
use CryptoCheckout\\Client\\Kernel\\StatusWidgetMarkup;
use CryptoCheckout\\Client\\Kernel\\StoredCheckout;

$now = 1767225600;
$statusUrl = ${phpString(options.statusUrl)};
$terms = ['transaction_code' => '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f', 'checkout_url' => ${phpString(options.checkoutUrl)}, 'created_at' => $now - 60];
$open = StoredCheckout::fromArray($terms + ['expires_at' => $now + 3600]);
$expired = StoredCheckout::fromArray($terms + ['expires_at' => $now - 60]);
$translations = ${phpJson(options.translations ?? {})};
$translate = static function (string $text, array $args) use ($translations): string {
    return $translations[$text] ?? $text;
};
$cases = [
    'awaiting_payment' => ['awaiting_payment', $open],
    'awaiting_payment_closed' => ['awaiting_payment', $expired],
    'underpaid' => ['underpaid', $open],
    'underpaid_closed' => ['underpaid', $expired],
    'late_payment_review' => ['late_payment_review', $expired],
    'paid' => ['paid', $open],
    'cancelled' => ['cancelled', $expired],
];
$out = [];
foreach ($cases as $name => [$state, $checkout]) {
    $status = BuyerStatus::of($state, [$checkout], $now, $translate);
    $out[$name] = [
        'status' => $status,
        'answer' => HttpReply::success($status)->json(),
        'box' => StatusWidgetMarkup::render($status, $statusUrl, $translate),
        'modalBox' => StatusWidgetMarkup::render($status, $statusUrl, $translate, true),
    ];
}
echo json_encode($out);
`)) as Record<StatusCase, StatusFixture>;
}

/**
 * Declares `body` once per PHP version (describeEachPhp), with `fixtures` filled by the kernel of
 * that version before the first test runs.
 */
export function describeWithStatusFixtures(
  name: string,
  options: StatusFixtureOptions,
  body: (fixtures: Record<StatusCase, StatusFixture>) => void,
): void {
  describeEachPhp(
    name,
    ({ php }) => {
      const fixtures = {} as Record<StatusCase, StatusFixture>;
      beforeAll(async () => {
        Object.assign(fixtures, await renderStatusFixtures(php(), options));
      });
      body(fixtures);
    },
    { mounts: CLIENT_MOUNTS },
  );
}
