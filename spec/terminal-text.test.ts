import { describe, expect, it } from 'vitest';
import { colourEnabled, sanitiseForTerminal } from './terminal-text.js';

describe('terminal text', () => {
  it('escapes control characters, DEL, C1 and bidi controls', () => {
    expect(sanitiseForTerminal('ok\u001b[2J\u0000\u007f\u009b\u202e\n')).toBe(
      'ok\\x1b[2J\\x00\\x7f\\x9b\\u{202e}\\x0a',
    );
    expect(sanitiseForTerminal('café 🐶 قطط')).toBe('café 🐶 قطط');
  });

  it('colours only a terminal, unless NO_COLOR or FORCE_COLOR say otherwise', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourEnabled({ isTTY: false }, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });
});
