/**
 * Ids told apart exactly. The interface's `id` is "integer, format int64" (section 2): up to 2^63 - 1, while a
 * JSON number read by JSON.parse is a double, exact only to 2^53. A service whose ids are larger (snowflake ids, a
 * sequence started high) hands out unique ids that JSON.parse reads as equal: 1152921504606846001 and
 * 1152921504606846002 are both 1152921504606846000. Judged on those doubles, a conforming service "repeats" ids and
 * "lists" one category under another's id. So the kit reads bodies with `parseJson`, which keeps every value as
 * JSON.parse gives it (validators, reports and excerpts see the same numbers as before) and remembers, beside each
 * object, the exact value of any integer member beyond 2^53; `idOf` compares by that.
 */

/** A resource's id as the kit compares it: the JSON number, or an integer beyond 2^53 exactly. */
export type ExactId = number | bigint;

/** The exact integer members of parsed objects, by object and member name (only those beyond 2^53). */
const exactIntegers = new WeakMap<object, Map<string, bigint>>();

/** A string no JSON text holds raw (U+0000 must be escaped in JSON): stands in for a large integer while parsing. */
const marker = '\u0000exact-integer:';

/**
 * One JSON token the scan below steps over: a string (whose digits are no number) or a number, as RFC 8259
 * writes them. Each alternative is unambiguous, so the scan is linear in the text.
 */
const jsonToken = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** A run of 16 digits: no integer beyond 2^53 (16 digits) without one, so most bodies skip the scan. */
const longDigitRun = /\d{16}/;

/**
 * JSON.parse's value of `text`, and beside each object the exact value of its integer members beyond 2^53
 * (read with `idOf`). Throws as JSON.parse does on a text that is not JSON.
 *
 * @example idOf(parseJson('{"id":1152921504606846001}') as object) // 1152921504606846001n
 */
export function parseJson(text: string): unknown {
  if (!longDigitRun.test(text)) return JSON.parse(text);
  let marked = false;
  const substituted = text.replace(jsonToken, (token) => {
    if (token.startsWith('"') || !/^-?\d+$/.test(token) || Number.isSafeInteger(Number(token))) return token;
    marked = true;
    return JSON.stringify(`${marker}${token}`);
  });
  if (!marked) return JSON.parse(text);
  try {
    return JSON.parse(substituted, restoreExactIntegers);
  } catch {
    // Not JSON: JSON.parse of the text itself throws the error that names the text's own positions.
    return JSON.parse(text);
  }
}

/** JSON.parse's reviver: a marked integer becomes its number again, its exact value kept beside its object. */
function restoreExactIntegers(this: object, key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith(marker)) return value;
  const digits = value.slice(marker.length);
  const members = exactIntegers.get(this) ?? new Map<string, bigint>();
  exactIntegers.set(this, members.set(key, BigInt(digits)));
  return Number(digits);
}

/**
 * The `id` member of a parsed object, exactly: a bigint for an integer beyond 2^53 that `parseJson` read, else the
 * member as JSON.parse gave it (a number, or whatever else the service sent).
 *
 * @example idOf({ id: 7 }) // 7
 */
export function idOf(item: object): unknown {
  return exactMember(item, 'id');
}

/**
 * A member of a parsed object, exactly: a bigint for an integer beyond 2^53 that `parseJson` read, else the
 * member as JSON.parse gave it.
 *
 * @example exactMember(parseJson('{"petId":9007199254740993}') as object, 'petId') // 9007199254740993n
 */
export function exactMember(item: object, key: string): unknown {
  return exactIntegers.get(item)?.get(key) ?? (item as Record<string, unknown>)[key];
}

/**
 * JSON.stringify's text of `value`, with each bigint written as its exact integer (JSON.stringify refuses bigints):
 * a request that sends an id the service gave back, exactly.
 *
 * @example stringifyJson({ id: 1152921504606846001n }) // '{"id":1152921504606846001}'
 */
export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, member: unknown) =>
    typeof member === 'bigint' ? `${marker}${member}` : member,
  );
  return text.replace(/"\\u0000exact-integer:(-?\d+)"/g, '$1');
}
