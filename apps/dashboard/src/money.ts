/** Exact sums of decimal amount strings: money is added as scaled integers, never as floats. */

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Adds decimal strings exactly ("0.10" + "0.20" → "0.30"). The result has as many decimals as
 * the most precise input (at least `minimumFractionDigits`).
 * @throws RangeError for a value that is no plain decimal string.
 */
export function sumDecimals(values: readonly string[], minimumFractionDigits = 0): string {
  let scale = minimumFractionDigits;
  const parsed = values.map((value) => {
    const match = DECIMAL.exec(value);
    if (!match) throw new RangeError(`Not a decimal amount: ${JSON.stringify(value)}`);
    const [, sign = '', whole = '0', fraction = ''] = match;
    scale = Math.max(scale, fraction.length);
    return { negative: sign === '-', whole, fraction };
  });
  let total = 0n;
  for (const { negative, whole, fraction } of parsed) {
    const units = BigInt(whole + fraction.padEnd(scale, '0'));
    total += negative ? -units : units;
  }
  return fromUnits(total, scale);
}

function fromUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}
