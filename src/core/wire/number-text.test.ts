import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { integerText } from './number-text.js';

describe('integerText', () => {
  it('writes what a template writes, for any number', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.nat(),
          fc.integer(),
          fc.double(),
          fc.constantFrom(0, -0, 9, 10, 0x3fffffff, 0x40000000, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY),
        ),
        (value) => {
          expect(integerText(value)).toBe(`${value}`);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
