import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mockHelp, mockOptions } from './mock-options.js';
import {
  byteSizeOption,
  choiceOption,
  helpLines,
  integerOption,
  type OptionTable,
  optionsConfig,
  parseCommandLine,
  readOptionValues,
} from './option-table.js';
import { proxyHelp, proxyOptions } from './proxy-command.js';
import { replayHelp, replayOptions } from './replay-command.js';

const tables: [string, OptionTable, string][] = [
  ['petstore-mock', mockOptions, mockHelp()],
  ['petstore-mock replay', replayOptions, replayHelp],
  ['petstore-mock proxy', proxyOptions, proxyHelp],
];

/** The options an option line of a help starts with (`  -p, --port N  ...`, `      --watch  ...`). */
function listedOptions(help: string): string[] {
  return help.split('\n').flatMap((line) => /^ {2}(?:-[a-zA-Z], | {4})--([a-z][a-z-]*)/.exec(line)?.[1] ?? []);
}

/** A command line that gives the option once, with a value when it takes one. */
function givenOnce(name: string, table: OptionTable): string[] {
  return table[name]!.type === 'boolean' ? [`--${name}`] : [`--${name}`, 'x'];
}

describe.each(tables)('%s: each option is declared once, in its table', (_command, table, help) => {
  it('every option of the table is in --help, with its short flag', () => {
    for (const [name, row] of Object.entries(table)) {
      expect(help).toContain(`--${name}`);
      if (row.short !== undefined) expect(help).toContain(`-${row.short}, --${name}`);
    }
  });

  it('every option line of --help is an option of the table, listed once', () => {
    const listed = listedOptions(help);
    expect(new Set(listed).size).toBe(listed.length);
    for (const name of listed) expect(Object.keys(table)).toContain(name);
    // Only an option the help says in prose (--spec beside SPEC) is not on a line of its own.
    const unlisted = Object.entries(table).filter(([name]) => !listed.includes(name));
    expect(unlisted.every(([, row]) => row.section === 'none')).toBe(true);
  });

  it('every option of the table is parsed, by its long and its short name', () => {
    for (const [name, row] of Object.entries(table)) {
      const parsed = parseCommandLine(givenOnce(name, table), table);
      expect(parsed.error).toBeUndefined();
      expect(parsed.error === undefined && parsed.values[name]).toEqual(
        row.type === 'boolean' ? true : row.multiple ? ['x'] : 'x',
      );
      if (row.short !== undefined) {
        const short = parseCommandLine([`-${row.short}`, ...givenOnce(name, table).slice(1)], table);
        expect(short.error === undefined && Object.keys(short.values)).toEqual([name]);
      }
    }
  });

  it('an option outside the table is refused in one line', () => {
    expect(parseCommandLine(['--not-an-option'], table)).toEqual({
      error: 'unknown option --not-an-option',
      usage: true,
    });
  });
});

describe('nothing in src/cli is parsed outside a table', () => {
  it("node:util's parseArgs is imported by option-table.ts alone", () => {
    const callers = readdirSync(new URL('.', import.meta.url))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'option-table.ts')
      .filter((file) =>
        /import\s*\{[^}]*\bparseArgs\b[^}]*\}\s*from\s*'node:util'/.test(
          readFileSync(new URL(file, import.meta.url), 'utf8'),
        ),
      );
    expect(callers).toEqual([]);
  });
});

describe('parseCommandLine', () => {
  it('refuses an option that holds one value given twice, by either spelling', () => {
    expect(parseCommandLine(['-p', '1', '--port', '2'], mockOptions)).toEqual({
      error: '--port is given twice (as -p and --port): it holds one value, give it once',
      usage: false,
    });
  });

  it('keeps every value of a repeatable option, in order', () => {
    const parsed = parseCommandLine(['--scenario', 'a.yaml', '--scenario', 'b.yaml'], mockOptions);
    expect(parsed.error === undefined && parsed.values.scenario).toEqual(['a.yaml', 'b.yaml']);
  });
});

describe('readOptionValues', () => {
  const table = {
    port: { type: 'string', default: '4010', env: 'PORT', parse: integerOption(0, 65_535), help: [] },
    name: { type: 'string', help: [] },
  } as const;

  it('reads the given text, else the environment variable (blank is unset), else the default', () => {
    expect(readOptionValues(table, { port: '80' }, { env: { PORT: '81' } })).toEqual({
      values: { port: 80, name: undefined },
    });
    expect(readOptionValues(table, {}, { env: { PORT: ' 81 ' } })).toEqual({ values: { port: 81, name: undefined } });
    expect(readOptionValues(table, {}, { env: { PORT: '  ' } })).toEqual({ values: { port: 4010, name: undefined } });
  });

  it('names the environment variable when its value is refused, and the flag when the given one is', () => {
    expect(readOptionValues(table, {}, { env: { PORT: 'http' } })).toEqual({
      error: 'PORT must be an integer from 0 to 65535, got "http"',
    });
    expect(readOptionValues(table, { port: '-1' }, { env: { PORT: '81' } })).toEqual({
      error: '--port must be an integer from 0 to 65535, got "-1"',
    });
  });

  it("a run's own default replaces the table's and its environment variable", () => {
    expect(readOptionValues(table, {}, { env: { PORT: '81' }, defaults: { port: '0' } })).toEqual({
      values: { port: 0, name: undefined },
    });
  });
});

describe('optionsConfig', () => {
  it('sets what the given options say, over the config file where a row keeps its other settings', () => {
    const config = optionsConfig(
      mockOptions,
      { store: 'redis://db:6379/0', 'memory-budget': 1024, dynamic: true, 'allow-remote-control': false },
      { store: { url: 'redis://old', keyPrefix: 'p:' } },
    );
    expect(config).toEqual({
      store: { url: 'redis://db:6379/0', keyPrefix: 'p:' },
      memoryBudgetBytes: 1024,
      dynamic: true,
    });
  });

  it('an empty --control-token sets nothing', () => {
    expect(optionsConfig(mockOptions, { 'control-token': '' }, undefined)).toEqual({});
  });
});

describe('value readers', () => {
  it('choiceOption names the flag and every choice', () => {
    expect(() => choiceOption(['server', 'client', 'any'])('both', '--fail-on')).toThrow(
      '--fail-on must be server, client or any, got "both"',
    );
  });

  it('byteSizeOption reads binary units', () => {
    expect(byteSizeOption('256MiB', '--memory-budget')).toBe(256 * 1024 ** 2);
    expect(byteSizeOption('1g', '--memory-budget')).toBe(1024 ** 3);
    expect(() => byteSizeOption('1TB', '--memory-budget')).toThrow(
      '--memory-budget must be a size such as 268435456, 256MiB or 1GiB, got "1TB"',
    );
  });
});

describe('helpLines', () => {
  it('pads the flag to the column, sets a wider one off by two spaces, and indents the other lines', () => {
    const table = {
      port: { type: 'string', short: 'p', value: 'N', help: ['Port', 'more'] },
      'a-very-long-option-name': { type: 'boolean', help: ['Long'] },
    } as const;
    expect(helpLines(table, 'options', 20)).toBe(
      ['  -p, --port N      Port', '                    more', '      --a-very-long-option-name  Long'].join('\n'),
    );
  });
});

describe('--latency of the mock and of the proxy', () => {
  it('names where its text was read (the flag the table passes), not a flag written into its parser', () => {
    for (const parse of [mockOptions.latency.parse, proxyOptions.latency.parse]) {
      expect(() => parse('soon', 'PETSTORE_LATENCY')).toThrow(/^PETSTORE_LATENCY: latency "soon" is not a duration/);
      expect(() => parse('300-50ms', '--latency')).toThrow(/^--latency: latency "300-50ms"/);
    }
    expect(mockOptions.latency.parse('20-30ms', '--latency')).toBe('20-30ms');
  });
});
