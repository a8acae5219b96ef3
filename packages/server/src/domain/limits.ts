import { compareDecimals, decimalPlaces, parseDecimal } from '@cryptocheckout/core';
import { ServiceProblem } from './service-problem.js';

/**
 * The most one checkout, or one payment, may be worth in USD: a thousand times the largest rail
 * maximum (1,000,000 USD). Amounts cross the edge only below it, so sums of payments stay far inside
 * the 15 integer digits the decimal arithmetic takes, and no transaction can make its lookup or the
 * background sweep fail (docs/api.md, Limits).
 */
export const MAX_USD_AMOUNT = '1000000000';

/**
 * Refuses a USD amount above {@link MAX_USD_AMOUNT}. Takes any plain decimal string, however many
 * digits it has (a converted amount may exceed what the decimal helpers parse).
 * @throws ServiceProblem `invalid_request` naming `field`; `what` says which amount, for the message.
 */
export function assertWithinUsdLimit(amountUsd: string, field: string, what: string): void {
  const integerDigits = amountUsd.split('.')[0]!.replace(/^0+(?=\d)/, '');
  const tooLarge =
    integerDigits.length > MAX_USD_AMOUNT.length ||
    (integerDigits.length === MAX_USD_AMOUNT.length && compareDecimals(amountUsd, MAX_USD_AMOUNT) > 0);
  if (tooLarge) {
    throw new ServiceProblem(
      'invalid_request',
      `${what} is worth more than ${Number(MAX_USD_AMOUNT).toLocaleString('en-US')} USD, the most one checkout or payment may be; use a smaller amount.`,
      field,
    );
  }
}

/**
 * Checks a sandbox payment's `amount_usd`: above 0, whole cents, within {@link MAX_USD_AMOUNT}.
 * @throws ServiceProblem `invalid_request` naming `amount_usd`.
 */
export function checkedSandboxAmountUsd(amountUsd: string): string {
  assertWithinUsdLimit(amountUsd, 'amount_usd', `amount_usd ${amountUsd.slice(0, 24)}`);
  const canonical = parseDecimal(amountUsd, 'amount_usd');
  if (decimalPlaces(canonical) > 2) {
    throw new ServiceProblem(
      'invalid_request',
      'amount_usd has at most 2 decimals (cents), like "12.50".',
      'amount_usd',
    );
  }
  if (compareDecimals(canonical, '0') <= 0) {
    throw new ServiceProblem('invalid_request', 'amount_usd must be greater than 0.', 'amount_usd');
  }
  return canonical;
}
