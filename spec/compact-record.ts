/**
 * Objects of a document whose keys look like array indexes (a response map's `"200"`, `"404"`),
 * built small. V8 stores such a key, when assigned, as element 200 or 404 of a holey array: 2.5 KB
 * for `"200"`, 5 KB with `"404"`, where JSON.parse builds the same object in about 270 bytes (a
 * dictionary of elements). A document of 100,000 operations held three such copies of every
 * response map: over 1 GiB of heap for 14 MB of YAML.
 */
const indexKey = /^(0|[1-9]\d{0,9})$/;

/**
 * An empty object to fill with `keys`: a JSON.parse'd shell holding them (so assigning each keeps the
 * small layout) when one of them looks like an index, else `{}`. Assign every key it holds.
 *
 * @example const out = recordShell(Object.keys(responses)); for (const key in responses) out[key] = copy(responses[key]);
 */
export function recordShell(keys: readonly string[]): Record<string, unknown> {
  if (!keys.some((key) => indexKey.test(key))) return {};
  const shell: Record<string, unknown> = {};
  for (const key of keys) if (key !== '__proto__') shell[key] = 0;
  return JSON.parse(JSON.stringify(shell)) as Record<string, unknown>;
}

/**
 * `record` itself, or a small copy of it when one of its keys looks like an index (see above).
 *
 * @example compactRecord(parsedResponses) // the same keys and values, about 270 bytes
 */
export function compactRecord<T extends object>(record: T): T {
  return Object.keys(record).some((key) => indexKey.test(key)) ? copyRecord(record) : record;
}

/**
 * A shallow copy of `record`, small when its keys look like indexes (see above); a literal `__proto__`
 * key stays a plain key.
 *
 * @example copyRecord(parsedResponses) // a new object with the same keys and values
 */
export function copyRecord<T extends object>(record: T): T {
  const keys = Object.keys(record);
  // A spread defines each key (a "__proto__" key stays a plain key) in one step V8 does natively.
  if (!keys.some((key) => indexKey.test(key))) return { ...record };
  const copy = recordShell(keys);
  for (const key of keys) {
    const value = (record as Record<string, unknown>)[key];
    // defineProperty keeps a literal "__proto__" key a plain key.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
    else copy[key] = value;
  }
  return copy as T;
}
