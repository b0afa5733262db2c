import { describe, expect, it } from 'vitest';
import { profiles } from '../lib/run-profile.js';
import { resolveContractOptions } from '../runner/contract-options.js';
import type { KitOption } from '../runner/kit-option.js';
import { kitOptions, numberDefault } from '../runner/kit-option-table.js';
import { optionLines } from './help-text.js';
import { cliOptions, helpText, parseCliArgs } from './parse-cli-args.js';

/** The table is the one place an option of petstore-contract is declared (decision 047). */
const target = ['--base-url', 'http://h/v1', '--api-key', 'k'];

/** A value the row's option takes, as typed on a command line. */
function sample(row: KitOption): string[] {
  const values: Record<KitOption['type'], string[]> = {
    flag: [],
    text: ['x'],
    texts: ['x'],
    integer: ['2048'],
    seconds: ['7'],
  };
  const special: Record<string, string[]> = {
    'base-url': ['http://other/v1'],
    'api-key': ['other'],
    header: ['X-Tenant: acme'],
    report: ['json=r.json'],
    reporter: ['json'],
    spec: ['api.yaml'],
  };
  return [`--${row.name}`, ...(special[row.name] ?? values[row.type])];
}

describe('the option table is the single source of petstore-contract options', () => {
  it('parses exactly the options of the table, each with its short spelling', () => {
    expect(Object.keys(cliOptions).sort()).toEqual(kitOptions.map((row) => row.name).sort());
    for (const row of kitOptions) {
      expect(cliOptions[row.name], row.name).toEqual({
        type: row.type === 'flag' ? 'boolean' : 'string',
        ...(row.short === undefined ? {} : { short: row.short }),
        ...(row.type === 'texts' ? { multiple: true } : {}),
      });
    }
    expect(new Set(kitOptions.map((row) => row.name)).size).toBe(kitOptions.length);
    expect(new Set(kitOptions.flatMap((row) => row.key ?? [])).size).toBe(kitOptions.filter((row) => row.key).length);
  });

  it('shows every option in --help, with its lines, and no option --help does not parse', () => {
    for (const row of kitOptions) {
      for (const line of optionLines(row)) expect(helpText.split('\n'), row.name).toContain(line);
      expect(optionLines(row).join('\n'), row.name).not.toMatch(/\{(default|thorough|env)\}|undefined/);
    }
    // Every flag at the start of a line of --help is a row; no flag is listed that the parser refuses.
    const listed = [...helpText.matchAll(/^ {2}(?:-\w, )?--([a-z-]+)/gm)].map((match) => match[1]);
    expect(listed).toEqual(
      (['Target', 'Document', 'Behaviour', 'Report'] as const).flatMap((section) =>
        kitOptions.filter((row) => row.section === section).map((row) => row.name),
      ),
    );
    for (const flag of helpText.match(/(?<![\w-])--[a-z][a-z-]+/g) ?? [])
      expect(Object.keys(cliOptions), flag).toContain(flag.slice(2));
  });

  it('reads every row into the run it names, and nothing a row does not name', () => {
    for (const row of kitOptions) {
      // The row's option with the target, less the target's flag the row is.
      const others = row.name === 'base-url' ? target.slice(2) : row.name === 'api-key' ? target.slice(0, 2) : target;
      const command = parseCliArgs([...others, ...sample(row)], {});
      if (row.name === 'help' || row.name === 'version') {
        expect(command.kind, row.name).toBe(row.name);
        continue;
      }
      if (command.kind !== 'run') throw new Error(`--${row.name} did not start a run`);
      if (row.key === undefined) {
        // The rows without a key are the reports the command line writes itself.
        expect(command.reports.map((report) => report.option).join(' '), row.name).toContain(`--${row.name}`);
        continue;
      }
      expect(command.options[row.key], row.name).toBeDefined();
    }
    const everything = parseCliArgs(kitOptions.filter((row) => row.key !== undefined).flatMap(sample), {});
    if (everything.kind !== 'run') throw new Error('not a run');
    expect(Object.keys(everything.options).sort()).toEqual(kitOptions.flatMap((row) => row.key ?? []).sort());
  });

  it('falls back to the environment variable of each row that names one, and to no other', () => {
    const env = Object.fromEntries(
      kitOptions.flatMap((row) => (row.env === undefined ? [] : [[row.env, `from-${row.name}`]])),
    );
    expect(Object.keys(env)).toEqual(['PETSTORE_BASE_URL', 'PETSTORE_API_KEY', 'PETSTORE_RATE_LIMIT_KEY']);
    const command = parseCliArgs([], { ...env, PETSTORE_TIMEOUT: '3', PETSTORE_SEED: '4' });
    expect(command).toMatchObject({
      options: { baseUrl: 'from-base-url', apiKey: 'from-api-key', rateLimitKey: 'from-rate-limit-key' },
    });
    if (command.kind === 'run')
      expect(Object.keys(command.options).sort()).toEqual(['apiKey', 'baseUrl', 'rateLimitKey']);
  });

  it('applies each number row default and range, per profile, as --help says', () => {
    for (const thorough of [false, true]) {
      const resolved = resolveContractOptions({ baseUrl: 'http://h/v1', apiKey: 'k', thorough });
      for (const row of kitOptions) {
        const value = numberDefault(row, thorough);
        const key = row.key;
        if (value === undefined || key === undefined) continue;
        expect(resolved[key as keyof typeof resolved], row.name).toBe(value);
        expect(row.range, row.name).toBeDefined();
        const [min, max] = row.range!;
        expect(() => resolveContractOptions({ baseUrl: 'http://h/v1', apiKey: 'k', [key]: max + 1 }), row.name).toThrow(
          `Failed to use --${row.name}: ${max + 1} is not ${row.type === 'integer' ? 'an integer' : 'a number of seconds'} from ${min} to ${max}`,
        );
      }
    }
    expect(helpText).toContain(
      `(default ${profiles.default.createBudget}, with\n                          --thorough ${profiles.thorough.createBudget})`,
    );
  });
});
