import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8LengthInJavaScript } from './utf8.js';

describe('utf8LengthInJavaScript (the byte count of browsers, where there is no Buffer)', () => {
  it('counts what the UTF-8 encoder writes, for any text, lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string({ unit: 'binary-ascii' })),
        (text) => {
          expect(utf8LengthInJavaScript(text)).toBe(new TextEncoder().encode(text).length);
        },
      ),
      { numRuns: 500 },
    );
    // About 2 s alone; past vitest's 5 s default on a machine busy with the rest of the suite.
  }, 30_000);
});
