import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearPatternEngine } from './linear-patterns.js';
import { leadingLookaheads } from './lookahead-conjunction.js';

// Pieces of patterns in the syntax RE2 and ECMAScript read alike, over a small alphabet so random
// values often match: the differential test compares the rewritten conjunction with the platform's
// backtracking RegExp on the same pattern and value.
const atom = fc.constantFrom('a', 'b', '/', '1', '\\d', '[ab]', '[^a]', '.', '(a|b)', '(?:ab|b)', '\\/', '[a\\]]');
const quantified = fc.tuple(atom, fc.constantFrom('', '', '*', '+', '?', '{1,2}')).map(([a, q]) => a + q);
const piece = fc.array(quantified, { minLength: 0, maxLength: 4 }).map((parts) => parts.join(''));
const lookahead = fc
  .tuple(fc.constantFrom('(?=', '(?!'), piece, fc.boolean())
  .map(([open, body, withAlternative]) => (withAlternative ? `${open}${body}|b)` : `${open}${body})`));
const pattern = fc
  .tuple(fc.array(lookahead, { minLength: 1, maxLength: 3 }), piece, fc.boolean())
  .map(([heads, rest, anchoredEnd]) => `^${heads.join('')}${rest}${anchoredEnd ? '$' : ''}`);
const value = fc.string({ unit: fc.constantFrom('a', 'b', '/', '1', ']', 'x'), maxLength: 8 });

describe('leading lookaheads as a conjunction of linear matches', () => {
  it('reads ^(?=X)(?!Z)Y as X and not Z and Y at the start, and nothing else', () => {
    expect(leadingLookaheads('^(?!api/).*')).toEqual({ must: [], mustNot: ['^(?:api/)'], rest: '^(?:.*)' });
    expect(leadingLookaheads('^(?=.*[A-Z])(?=.*\\d).{8,}$')).toEqual({
      must: ['^(?:.*[A-Z])', '^(?:.*\\d)'],
      mustNot: [],
      rest: '^(?:.{8,}$)',
    });
    expect(leadingLookaheads('^(?=[)])a')).toEqual({ must: ['^(?:[)])'], mustNot: [], rest: '^(?:a)' });
    // Not rewritten: no anchor, a lookahead later on, an alternative beside them, a quantified lookahead, the m flag.
    expect(leadingLookaheads('(?!a)b')).toBeUndefined();
    expect(leadingLookaheads('^a(?!b)')).toBeUndefined();
    expect(leadingLookaheads('^(?!a)b|c')).toBeUndefined();
    expect(leadingLookaheads('^(?!a)?b')).toBeUndefined();
    expect(leadingLookaheads('^(?!a)b', 'm')).toBeUndefined();
    expect(leadingLookaheads('^(?!a')).toBeUndefined();
  });

  it('matches exactly what the platform RegExp matches (differential, random patterns and values)', () => {
    fc.assert(
      fc.property(pattern, fc.array(value, { minLength: 1, maxLength: 20 }), (source, values) => {
        expect(linearPatternEngine.refuses?.(source)).toBeUndefined();
        const linear = linearPatternEngine(source, 'u');
        const platform = new RegExp(source, 'u');
        for (const text of values)
          expect(linear.test(text), `/${source}/ on ${JSON.stringify(text)}`).toBe(platform.test(text));
      }),
      { seed: 40, numRuns: 500 },
    );
  });

  it('is case-insensitive under the i flag, as the platform is', () => {
    const linear = linearPatternEngine('^(?!api/)[a-z]+', 'i');
    expect(linear.test('API/x')).toBe(false);
    expect(linear.test('Movies')).toBe(true);
  });

  it('still refuses what is not linear: a lookahead later on, a lookbehind, a backreference in the rest', () => {
    expect(linearPatternEngine.refuses?.('^a(?!b)')).toMatch(/^RE2 cannot run it/);
    expect(linearPatternEngine.refuses?.('^(?!a)(?<=b)c')).toMatch(/^RE2 cannot run it/);
    expect(linearPatternEngine.refuses?.('^(?!a)(b)\\1')).toMatch(/^RE2 cannot run it/);
    expect(linearPatternEngine.refuses?.('^(?!a)b|c')).toMatch(/^RE2 cannot run it/);
  });
});
