/** A PHP single-quoted string literal holding `text` verbatim. */
export function phpString(text: string): string {
  return `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`;
}

/**
 * A PHP expression that yields `value` the way PHP's own `json_decode($json, true)` would see it
 * on the wire, so fractional numbers reach PHP as floats exactly as they do in production.
 */
export function phpJson(value: unknown): string {
  return `json_decode(${phpString(JSON.stringify(value))}, true)`;
}
