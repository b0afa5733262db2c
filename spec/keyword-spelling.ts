import { enforcedKeywords } from './schema-keywords.js';

// What a schema keyword JSON Schema 2020-12 does not know was likely meant to be: the start-up warning
// about unknown keywords names it ("did you mean").

/**
 * The keyword `unknown` is likely a misspelling of (one the validator enforces, at most two edits
 * away, or the same but for case), or undefined.
 *
 * @example likelyMeant('maxLenght') // 'maxLength'
 */
export function likelyMeant(unknown: string): string | undefined {
  if (unknown.length < 4) return undefined;
  let best: { keyword: string; distance: number } | undefined;
  for (const keyword of enforcedKeywords) {
    const distance = keyword.toLowerCase() === unknown.toLowerCase() ? 0 : editDistance(keyword, unknown, 2);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { keyword, distance };
  }
  return best?.keyword;
}

/** Levenshtein distance (a transposition counts two), or `limit + 1` once it is over `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...current) > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}
