/**
 * Which declared response answers a status, as OpenAPI matches them (3.x, "Responses Object"): the
 * exact status, then its range (`4XX`), then `default`. One reading for the mock (which shape to
 * answer in), the kit and the proxy (which schema to judge by).
 */

/**
 * The keys a response of `status` may be declared under, most specific first (upper case: callers
 * that keep keys as written also try the lower-case spelling).
 *
 * @example statusKeysOf(404) // ['404', '4XX', 'DEFAULT']
 */
function statusKeysOf(status: number): readonly [string, string, string] {
  return [String(status), `${Math.floor(status / 100)}XX`, 'DEFAULT'];
}

/**
 * The first declared response `lookUp` finds under the keys of `status`, or undefined.
 *
 * @example responseByStatus(404, (key) => declared.get(key)) // the '404' entry, else '4XX', else 'DEFAULT'
 */
export function responseByStatus<T>(status: number, lookUp: (key: string) => T | undefined): T | undefined {
  for (const key of statusKeysOf(status)) {
    const found = lookUp(key);
    if (found !== undefined) return found;
  }
  return undefined;
}
