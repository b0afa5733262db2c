import { parseArgs } from 'node:util';
import { repeatedOption } from '../../spec/repeated-options.js';
import type { ContractOptions } from '../runner/contract-options.js';
import { ContractRunError } from '../runner/contract-run-error.js';
import type { KitOption } from '../runner/kit-option.js';
import { kitOptions, missingMessage } from '../runner/kit-option-table.js';
import { type ReportTarget, reportTargets } from './report-targets.js';

/** What the command line asks for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; options: ContractOptions; reports: ReportTarget[] };

/** `petstore-contract --help`, made from the option table. */
export { helpText } from './help-text.js';

/**
 * The flags, for node:util's parseArgs, made from the option table (values are checked after
 * parsing, with messages of our own): a flag is a boolean, every other option a string.
 */
export const cliOptions: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> =
  Object.fromEntries(
    kitOptions.map((row) => [
      row.name,
      {
        type: row.type === 'flag' ? 'boolean' : 'string',
        ...(row.short === undefined ? {} : { short: row.short }),
        ...(row.type === 'texts' ? { multiple: true } : {}),
      },
    ]),
  );

/**
 * Turns argv (and the PETSTORE_* environment variables as fallbacks) into a command. Throws
 * `ContractRunError('usage', ...)` naming the bad flag.
 *
 * @example parseCliArgs(['--base-url', 'http://127.0.0.1:4010/v1', '--api-key', 'demo-pro'], {})
 * // { kind: 'run', options: { baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'demo-pro', ... }, reports: [{ format: 'human', path: undefined }] }
 */
export function parseCliArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliCommand {
  let values;
  let repeated: string | undefined;
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: cliOptions,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    ({ values } = parsed);
    repeated = repeatedOption(parsed.tokens, cliOptions);
  } catch (error) {
    throw new ContractRunError(
      'usage',
      `Failed to read the command line: ${describeParseError(error as Error & { code?: string })}`,
    );
  }

  if (repeated !== undefined) throw new ContractRunError('usage', `Failed to read the command line: ${repeated}`);
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const reports = reportTargets(values as Parameters<typeof reportTargets>[0]);
  return { kind: 'run', options: contractOptions(values, env), reports };
}

/** What parseArgs read, by flag name. */
type ParsedValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/**
 * The run's options from every row of the table with a `ContractOptions` key: the flag, else its
 * environment variable; a required one missing, a number in the wrong form or a text with a
 * problem refused, naming the flag.
 */
function contractOptions(values: ParsedValues, env: Readonly<Record<string, string | undefined>>): ContractOptions {
  const given = (row: KitOption) => values[row.name] ?? (row.env === undefined ? undefined : nonEmpty(env[row.env]));
  for (const row of kitOptions)
    if (row.required === true && given(row) === undefined) throw new ContractRunError('usage', missingMessage(row));
  const options: Record<string, unknown> = {};
  for (const row of kitOptions) {
    const value = given(row);
    if (row.key === undefined || value === undefined) continue;
    options[row.key] = row.type === 'integer' || row.type === 'seconds' ? numberOf(value as string, row) : value;
  }
  for (const row of kitOptions) {
    const problem = typeof values[row.name] === 'string' ? row.problem?.(values[row.name] as string) : undefined;
    if (problem !== undefined) throw new ContractRunError('usage', `Failed to use --${row.name}: ${problem}`);
  }
  return options as unknown as ContractOptions;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** A number as the command line writes it: an integer, or seconds (a decimal, never negative). */
function numberOf(text: string, row: KitOption): number {
  const pattern = row.type === 'integer' ? /^-?\d+$/ : /^\d+(\.\d+)?$/;
  if (!pattern.test(text.trim())) {
    throw new ContractRunError(
      'usage',
      `Failed to use --${row.name}: ${JSON.stringify(text)} is not ${row.type === 'integer' ? 'an integer' : 'a number of seconds'}`,
    );
  }
  return Number(text);
}

/**
 * node:util's parseArgs messages as one line in the kit's words: the multi-line "ambiguous"
 * hint and the positional-argument advice do not fit a one-line error, and a near miss of an
 * option name gets a suggestion.
 */
function describeParseError(error: Error & { code?: string }): string {
  const option = /'(-{1,2}[^' =]+)/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const suggestion = option === undefined ? undefined : closestOption(option);
      return `unknown option ${option ?? error.message}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(/'([^']*)'/.exec(error.message)?.[1] ?? '')}: every value follows its option (--base-url URL), and a value with spaces needs quotes`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${option} takes no value`;
      if (/ambiguous/.test(error.message))
        return `${option} needs a value; a value starting with "-" is written ${option}=-VALUE`;
      return `${option} needs a value`;
    default:
      return error.message.split('\n')[0]!;
  }
}

/** The option a mistyped one most likely meant (edit distance up to 2, or a unique prefix). */
function closestOption(typed: string): string | undefined {
  const names = Object.keys(cliOptions).map((name) => `--${name}`);
  const word = typed.replace(/^-+/, '');
  const prefixed = names.filter((name) => word.length >= 3 && name.slice(2).startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(word, name.slice(2));
    if (distance <= 2 && (best === undefined || nearer(distance, name, best))) best = { name, distance };
  }
  return best?.name;
}

/**
 * Nearer, or as near and the longer of two names one of which begins the other: `--reportr`
 * means --reporter rather than --report, whichever row comes first in the table.
 */
function nearer(distance: number, name: string, best: { name: string; distance: number }): boolean {
  return distance < best.distance || (distance === best.distance && name.startsWith(best.name));
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
