import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPrismHabits } from './prism-habits.js';

describe('readPrismHabits', () => {
  it("drops Prism's command name and the options that are the mock's defaults, each with one line", () => {
    const read = readPrismHabits(['mock', 'api.yaml', '--errors', '--cors', '-m', '-p', '4010']);
    expect(read).toEqual({
      argv: ['api.yaml', '-p', '4010'],
      notes: [
        expect.stringMatching(/^--errors: /),
        expect.stringMatching(/^--cors: /),
        expect.stringMatching(/^--multiprocess: /),
      ],
      config: {},
    });
  });

  it.each([
    [['-v', 'trace'], ['--verbose']],
    [['-v', 'debug'], ['--verbose']],
    [['--verboseLevel', 'info'], []],
    [['--verbose-level=warn'], ['--quiet']],
    [['-v', 'silent'], ['--quiet']],
    [['-v'], ['-v']],
    [
      ['-v', 'api.yaml'],
      ['-v', 'api.yaml'],
    ],
  ])('reads %j as %j (-v alone, or before a file, stays --version)', (given, argv) => {
    expect(readPrismHabits(given)).toMatchObject({ argv });
  });

  it('sets cors: false for --no-cors and --cors=false', () => {
    for (const flag of ['--no-cors', '--cors=false'])
      expect(readPrismHabits([flag])).toMatchObject({ argv: [], config: { cors: false } });
  });

  it('refuses what the mock cannot honour, by every spelling yargs takes', () => {
    for (const given of [
      ['--no-errors'],
      ['--errors=false'],
      ['--ignore-examples'],
      ['--ignoreExamples=true'],
      ['--json-schema-faker-fill-properties'],
      ['--no-json-schema-faker-fillProperties'],
      ['--errors=maybe'],
      ['--verboseLevel'],
    ])
      expect(readPrismHabits(given), given.join(' ')).toHaveProperty('error');
    expect(readPrismHabits(['--no-ignore-examples'])).toEqual({ argv: [], notes: [], config: {} });
  });

  it("leaves a wrapped command's arguments and the other commands alone", () => {
    expect(readPrismHabits(['--errors', '--', 'npm', 'test', '--errors', '-m'])).toMatchObject({
      argv: ['--', 'npm', 'test', '--errors', '-m'],
    });
    expect(readPrismHabits(['replay', 'log.jsonl', '-m'])).toMatchObject({
      argv: ['replay', 'log.jsonl', '-m'],
      notes: [],
    });
    expect(readPrismHabits(['proxy', 'http://x', '--errors'])).toMatchObject({
      argv: ['proxy', 'http://x', '--errors'],
    });
  });

  it('refuses a Prism option given twice, by any spelling, never keeping the last', () => {
    expect(readPrismHabits(['--cors', '--no-cors'])).toEqual({
      error: '--cors is given twice (as --cors and --no-cors): it holds one value, give it once',
    });
    expect(readPrismHabits(['-v', 'debug', '--verboseLevel=info'])).toEqual({
      error: '--verboseLevel is given twice (as -v and --verboseLevel=info): it holds one value, give it once',
    });
    expect(readPrismHabits(['--errors', '--errors'])).toEqual({
      error: '--errors is given twice: it holds one value, give it once',
    });
    expect(readPrismHabits(['-m', '--multiprocess'])).toMatchObject({ error: expect.stringContaining('given twice') });
    // After --, the wrapped command's own.
    expect(readPrismHabits(['--cors', '--', 'x', '--no-cors'])).toMatchObject({ argv: ['--', 'x', '--no-cors'] });
  });

  it('never reads past the first --, whatever comes before and after it (property)', () => {
    const token = fc.constantFrom(
      'mock',
      '--errors',
      '--no-errors',
      '--no-cors',
      '--cors=maybe',
      '-v',
      'debug',
      '--verboseLevel',
      '-m',
      '--ignoreExamples',
      'api.yaml',
      '--port=0',
      '--',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 6 }), fc.array(token, { maxLength: 6 }), (before, after) => {
        const head = before.filter((item) => item !== '--');
        const habits = readPrismHabits([...head, '--', ...after]);
        // A refusal or a translation is about the options before it; the wrapped command's words are its own.
        if ('error' in habits) return;
        expect(habits.argv.slice(habits.argv.indexOf('--'))).toEqual(['--', ...after]);
      }),
      { numRuns: 500 },
    );
  });
});
