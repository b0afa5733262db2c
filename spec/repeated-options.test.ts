import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseArgsMessage, repeatedOption } from './repeated-options.js';

const options = {
  port: { type: 'string', short: 'p' },
  'api-key': { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  quiet: { type: 'boolean' },
} as const;

const check = (args: string[]) =>
  repeatedOption(parseArgs({ args, options, strict: true, allowPositionals: true, tokens: true }).tokens, options);

describe('repeatedOption', () => {
  it('accepts each option once, and a repeatable one many times', () => {
    expect(check(['--port', '1', '-H', 'a: 1', '--header', 'b: 2', '--quiet'])).toBeUndefined();
  });

  it('refuses a value option given twice, never repeating the values (a key may be one)', () => {
    expect(check(['--api-key', 'secret-1', '--api-key=secret-2'])).toBe(
      '--api-key is given twice: it holds one value, give it once',
    );
    expect(check(['--api-key', 'secret-1', '--api-key', 'secret-2'])).not.toContain('secret');
  });

  it('counts the short and the long spelling as one option', () => {
    expect(check(['-p', '1', '--port', '2'])).toBe(
      '--port is given twice (as -p and --port): it holds one value, give it once',
    );
  });

  it('refuses a flag given twice', () => {
    expect(check(['--quiet', '--quiet'])).toBe('--quiet is given twice: it holds one value, give it once');
  });

  it('reads nothing after the -- terminator (the wrapped command has options of its own)', () => {
    expect(check(['--port', '1', '--', 'node', '--port', '2'])).toBeUndefined();
  });
});

describe('parseArgsMessage', () => {
  const message = (args: string[]) => {
    try {
      parseArgs({ args, options, strict: true, allowPositionals: true });
      return undefined;
    } catch (error) {
      return parseArgsMessage((error as Error).message, options);
    }
  };

  it('names an unknown option in one line, without advice that would make it a wrapped command', () => {
    expect(message(['--nope'])).toBe('unknown option --nope');
    expect(message(['--no-quiet'])).toBe('unknown option --no-quiet (no option takes a --no- form: leave --quiet out)');
    expect(message(['--no-port'])).toBe('unknown option --no-port');
    expect(message(['--port'])).toMatch(/argument missing/);
  });
});
