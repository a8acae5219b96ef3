/**
 * Query strings as plain objects with the first value of each key: the hosted pages take the
 * first of a repeated parameter, the API refuses repeats (see the onRequest hook in app.ts).
 */
export function parseQueryFirstValueWins(query: string): Record<string, string> {
  const parsed: Record<string, string> = Object.create(null);
  for (const [key, value] of new URLSearchParams(query)) {
    if (!(key in parsed)) parsed[key] = value;
  }
  return parsed;
}

/** The first key that appears twice in a query string, if any. */
export function repeatedQueryKey(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  const seen = new Set<string>();
  for (const key of new URLSearchParams(url.slice(start + 1)).keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}
