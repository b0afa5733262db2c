/**
 * The body most clients of this API send, read without `JSON.parse`: the compact JSON of a flat
 * object of strings, `{"name":"dog","description":"Domestic dogs"}`, as `JSON.stringify` writes it
 * (so every browser and Node client, fetch and axios alike). On Node 20, `JSON.parse` of the bench's
 * 34-byte category costs about 3,900 instructions (entering the native parser, then a handle and a
 * string-table lookup for every key) where this scan costs about half (decision 015, ninth pass).
 * Any other text, valid or not, is left to `JSON.parse`, so the value is always `JSON.parse`'s.
 */

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;
const comma = 0x2c;
const openBrace = 0x7b;
const closeBrace = 0x7d;

/**
 * Longer texts go to `JSON.parse`: the scan costs about 35 instructions a character, the native
 * parser a few, and measured with the work each saves after it (the copy of the declared fields, the
 * category's JSON written again), the two meet at about a thousand characters.
 */
const maxScannedLength = 1_024;

/**
 * The names a scan may give an object, in their order: printable ASCII that JSON writes as it is;
 * never an integer-like name (`JSON.parse` puts those first), nor one `Object.prototype` has
 * (`__proto__`, `constructor`, ...): the scan assigns, where `JSON.parse` defines, and an assignment
 * to `__proto__` sets the prototype. (Code that has already polluted `Object.prototype` with a setter
 * of a declared name is not defended against.)
 */
export function compactObjectNames(names: readonly string[]): readonly string[] {
  return names.filter((name) => /^[\x20-\x7e]+$/.test(name) && !/["\\]/.test(name) && !/^\d+$/.test(name) && !(name in Object.prototype));
}

/**
 * `JSON.parse(text)` when `text` is the compact JSON of an object whose keys are among `names`, in
 * their order and each once, and whose values are strings of printable ASCII that need no escape
 * (no `"` or `\`), at most 1,024 characters in all; undefined for any other text. When it answers,
 * `JSON.stringify` of the answer is `text` again, byte for byte: a caller may keep the text as the
 * object's JSON. Property tests hold both to `JSON.parse` and `JSON.stringify`.
 *
 * @example parseCompactStringObject('{"name":"dog"}', ['name', 'description']) // { name: 'dog' }
 * @example parseCompactStringObject('{ "name": "dog" }', ['name']) // undefined: not compact
 */
export function parseCompactStringObject(text: string, names: readonly string[]): Record<string, string> | undefined {
  const length = text.length;
  // The shortest answer is {"a":""}.
  if (length < 8 || length > maxScannedLength || text.charCodeAt(0) !== openBrace || text.charCodeAt(length - 1) !== closeBrace) return undefined;
  const object: Record<string, string> = {};
  let index = 1;
  let nextName = 0;
  for (;;) {
    if (text.charCodeAt(index) !== quote) return undefined;
    // The key: the first of the names still ahead that the text spells, up to its closing quote.
    let name: string | undefined;
    while (nextName < names.length) {
      const candidate = names[nextName]!;
      nextName += 1;
      const keyEnd = index + 1 + candidate.length;
      if (text.charCodeAt(keyEnd) === quote && text.startsWith(candidate, index + 1)) {
        name = candidate;
        index = keyEnd;
        break;
      }
    }
    if (name === undefined) return undefined;
    if (text.charCodeAt(index + 1) !== colon || text.charCodeAt(index + 2) !== quote) return undefined;
    const valueStart = index + 3;
    let valueEnd = valueStart;
    for (;;) {
      const code = text.charCodeAt(valueEnd);
      if (code === quote) break;
      // Past the end the code is NaN, which fails the range check too.
      if (!(code >= 0x20 && code <= 0x7e) || code === backslash) return undefined;
      valueEnd += 1;
    }
    object[name] = text.slice(valueStart, valueEnd);
    const after = text.charCodeAt(valueEnd + 1);
    index = valueEnd + 2;
    if (after === closeBrace) return index === length ? object : undefined;
    if (after !== comma) return undefined;
  }
}
