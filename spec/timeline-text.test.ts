import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeXml, fitText, textWidth } from './timeline-text.js';

describe('timeline text', () => {
  it('cuts text to a width with an ellipsis, on whole code points', () => {
    expect(fitText('demo-free', 200, 12)).toEqual({ text: 'demo-free', cut: false });
    const cut = fitText('checkout-service-production-eu-west-1-canary', 120, 12, true);
    expect(cut.cut).toBe(true);
    expect(cut.text).toMatch(/^checkout-s[a-z-]*…$/);
    expect(textWidth(cut.text, 12, true)).toBeLessThanOrEqual(120);
    expect(fitText('🐕🐕🐕🐕🐕🐕🐕🐕', 48, 12).text).toBe('🐕🐕…');
  });

  it('never returns more than fits, and always a prefix of the text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 12, max: 600 }), (text, width) => {
        const fitted = fitText(text, width, 11);
        expect(textWidth(fitted.text, 11)).toBeLessThanOrEqual(width);
        if (!fitted.cut) expect(fitted.text).toBe(text);
        else expect(text.startsWith(fitted.text.slice(0, -1))).toBe(true);
        // Never half a surrogate pair.
        expect(escapeXml(fitted.text)).not.toContain('\ufffd');
      }),
    );
  });

  it('estimates wider than DejaVu Sans draws, the widest common system font', () => {
    // DejaVu Sans advance widths in ems (from its hmtx table): "0" 0.636, "m" 0.974, "W" 0.989, "i" 0.278.
    expect(textWidth('0', 10)).toBeGreaterThanOrEqual(6.36);
    expect(textWidth('m', 10)).toBeGreaterThanOrEqual(9.74);
    expect(textWidth('W', 10)).toBeGreaterThanOrEqual(9.89);
    expect(textWidth('i', 10)).toBeGreaterThanOrEqual(2.78);
  });

  it('escapes markup and characters XML cannot carry', () => {
    expect(escapeXml(`<script>&"'`)).toBe('&lt;script&gt;&amp;&quot;&apos;');
    expect(escapeXml('a\u0000b\ud800c')).toBe('a\ufffdb\ufffdc');
  });
});
