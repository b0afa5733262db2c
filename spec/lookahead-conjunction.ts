/**
 * A pattern that opens with lookaheads at its start, `^(?=X)(?!Z)Y`, read as what it means: X matches
 * at the start, Z does not, and Y matches at the start. Each part is a pattern RE2 runs in linear time,
 * so the whole is linear too, though RE2 has no lookaround (Sonarr's `^(?!api/).*`, the password rule
 * `^(?=.*[A-Z])(?=.*\d).{8,}$`). A lookahead is fixed at the start, and tested once, whatever Y does:
 * the conjunction is exact, not an approximation. Anything else (a lookahead later in the pattern, a
 * lookbehind, an alternative beside the lookaheads at the top level, the `m` flag) is not rewritten.
 */
export interface LookaheadConjunction {
  /** Patterns that must match at the start of the value (from `(?=X)`), each as `^(?:X)`. */
  must: string[];
  /** Patterns that must not match at the start (from `(?!X)`), each as `^(?:X)`. */
  mustNot: string[];
  /** What follows the lookaheads, as `^(?:Y)`. */
  rest: string;
}

/**
 * The conjunction `pattern` means when it is `^` then lookaheads then a rest without a top-level `|`;
 * undefined otherwise.
 *
 * @example leadingLookaheads('^(?!api/).*') // { must: [], mustNot: ['^(?:api/)'], rest: '^(?:.*)' }
 */
export function leadingLookaheads(pattern: string, flags = ''): LookaheadConjunction | undefined {
  if (!pattern.startsWith('^') || flags.includes('m')) return undefined;
  const must: string[] = [];
  const mustNot: string[] = [];
  let at = 1;
  while (pattern.startsWith('(?=', at) || pattern.startsWith('(?!', at)) {
    const close = closingParen(pattern, at);
    if (close === undefined) return undefined;
    // A quantified lookahead is not a plain condition (and is a syntax error in Unicode mode).
    if (/^[?*+{]/.test(pattern.slice(close + 1, close + 2))) return undefined;
    (pattern[at + 2] === '=' ? must : mustNot).push(`^(?:${pattern.slice(at + 3, close)})`);
    at = close + 1;
  }
  if (at === 1) return undefined;
  const rest = pattern.slice(at);
  if (hasTopLevelAlternative(rest)) return undefined;
  return { must, mustNot, rest: `^(?:${rest})` };
}

/** Index of the `)` that closes the group opened at `open`, read as ECMAScript does (escapes, classes). */
function closingParen(pattern: string, open: number): number | undefined {
  let depth = 0;
  for (let index = open; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') index += 1;
    else if (char === '[') index = classEnd(pattern, index);
    else if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return undefined;
}

function hasTopLevelAlternative(pattern: string): boolean {
  let depth = 0;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') index += 1;
    else if (char === '[') index = classEnd(pattern, index);
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === '|' && depth === 0) return true;
  }
  return false;
}

/** Index of the `]` that ends the class opened at `open` (in ECMAScript the first unescaped one, even right after `[`). */
function classEnd(pattern: string, open: number): number {
  for (let index = open + 1; index < pattern.length; index += 1) {
    if (pattern[index] === '\\') index += 1;
    else if (pattern[index] === ']') return index;
  }
  return pattern.length;
}
