import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { MockLaunch } from './targets.js';

/** A bad command line: the bench prints its message in one line and exits 2. */
export class UsageError extends Error {}

/** `parseArgs` (strict, no positionals) with its errors as `UsageError`s. */
export function parseBenchArgs<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** An integer option from `min` to `max`; `fallback` when absent. */
export function integerOption(
  text: string | undefined,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${text}"`);
  return Number(text);
}

/** A comma-separated list of known values (an alias expands to several), without repeats; `fallback` when absent. */
export function listOption<T extends string>(
  text: string | undefined,
  flag: string,
  known: readonly string[],
  fallback: readonly T[],
  aliases: Record<string, T[]> = {},
): T[] {
  if (text === undefined) return [...fallback];
  const out: T[] = [];
  for (const item of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const expanded = aliases[item] ?? (known.includes(item) ? [item as T] : undefined);
    if (!expanded)
      throw new UsageError(
        `${flag}: unknown value "${item}" (known: ${[...known, ...Object.keys(aliases)].join(', ')})`,
      );
    for (const value of expanded) if (!out.includes(value)) out.push(value);
  }
  if (out.length === 0) throw new UsageError(`${flag} needs at least one value`);
  return out;
}

/** `--mock dist|src`; `detected` when absent. */
export function mockLaunchOption(text: string | undefined, detected: MockLaunch): MockLaunch {
  const mock = text ?? detected;
  if (mock !== 'dist' && mock !== 'src') throw new UsageError(`--mock must be dist or src, got "${mock}"`);
  return mock;
}

/**
 * A bench script's options as `read` makes them, or the script's end: `--help` (`read` answers
 * 'help') prints `help` and exits 0; a bad command line (a `UsageError`) is said in one line and exits 2;
 * anything else `read` throws is a bug of the script, and is thrown on.
 *
 * @example const { runs } = optionsOrExit({ script: 'bench:msw', helpCommand: 'npm run bench:msw -- --help', help }, () => ...)
 */
export function optionsOrExit<T>(
  usage: { script: string; helpCommand: string; help: string },
  read: () => T | 'help',
): T {
  let options: T | 'help';
  try {
    options = read();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${usage.script}: ${error.message}\nRun ${usage.helpCommand} for the options.\n`);
    process.exit(2);
  }
  if (options === 'help') {
    process.stdout.write(usage.help);
    process.exit(0);
  }
  return options;
}
