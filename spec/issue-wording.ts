// How a refusal quotes what another program sent (a config, a scenario, a report read back): a key of
// the input as it is when it is a plain word, anything else short and escaped, so a key of a megabyte
// or one that holds control characters stays a short line. The config's reader, the lab report's and
// the JSON report's (parseLabReport, parseJsonReport) word their paths with it.

/** At most 30 characters of untrusted text, JSON-escaped (control characters as `\u001b`). */
export function quoteShort(text: string): string {
  return JSON.stringify(text.length > 30 ? `${text.slice(0, 30)}…` : text);
}

/**
 * A key of the input in an error path: plain words as they are, anything else short and escaped.
 *
 * @example describeIssuePath(['clients', 0, 'x'.repeat(99)]) // 'clients.0."xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"'
 */
export function describeIssuePath(path: readonly PropertyKey[]): string {
  return path.map(describePathSegment).join('.');
}

function describePathSegment(segment: PropertyKey): string {
  const text = String(segment);
  return /^[A-Za-z0-9_-]{1,40}$/.test(text) ? text : quoteShort(text);
}
