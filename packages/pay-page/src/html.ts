const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and quoted attribute values alike. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
}

/**
 * Serialises data for a `<script type="application/json">` block. Escaping `<`, `>` and `&` as
 * JSON unicode escapes means no value can close the block or open a comment, whatever it holds;
 * JSON.parse restores them unchanged.
 */
export function jsonForScriptBlock(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Tagged template that escapes every interpolated value, except values wrapped with `trusted()`
 * (markup this module produced itself).
 */
export function html(strings: TemplateStringsArray, ...values: readonly unknown[]): TrustedHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += renderValue(value) + strings[index + 1]!;
  });
  return new TrustedHtml(out);
}

/** Markup that is already safe: output of `html` or of a generator such as the QR renderer. */
export class TrustedHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Marks generated markup as safe to insert unescaped. */
export function trusted(markup: string): TrustedHtml {
  return new TrustedHtml(markup);
}

function renderValue(value: unknown): string {
  if (value instanceof TrustedHtml) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}
