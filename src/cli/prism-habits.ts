// Prism's `prism mock` command line, read by petstore-mock (docs/mock.md#from-prism): a Prism user's
// script keeps working, and an option the mock cannot honour is refused in one line that says why,
// never a parser's "Unknown option". -d/--dynamic, -p, -h and --seed are the mock's own options.

/** The command line with Prism's habits translated, the lines that say so, and the config they set. */
export interface PrismHabits {
  argv: string[];
  /** One line per option read the Prism way, printed at start (`--quiet` hides them). */
  notes: string[];
  config: { cors?: false };
}

/** Prism's log levels (pino's, and silent), and what each is here. */
const verboseLevels: Readonly<Record<string, '--verbose' | '--quiet' | null>> = {
  trace: '--verbose',
  debug: '--verbose',
  info: null,
  warn: '--quiet',
  error: '--quiet',
  fatal: '--quiet',
  silent: '--quiet',
};

const errorsNote =
  '--errors: already how the mock works: a request that breaks the document is answered 4xx in its error shape, never served anyway';
const multiprocessNote = '--multiprocess: ignored: the mock serves from one process';

/** Options refused, by every spelling Prism's parser (yargs) takes: the one line that says why. */
const refused: Readonly<Record<string, string>> = {
  'json-schema-faker-fillProperties':
    "is not supported: the mock's generator has no such switch (-d/--dynamic draws data afresh)",
  ignoreExamples:
    "is not supported: answers come from the document's examples first; -d/--dynamic (or Prefer: dynamic=true) generates them from the schema",
  'no-errors':
    'is not supported: the mock always answers a request that breaks the document with a 4xx; it cannot serve it anyway',
};

/** yargs reads `--fooBar`, `--foo-bar` and `--no-foo-bar` alike; the camelCase name of a long option. */
function camelName(name: string): string {
  return name.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** `--name`, `--name=value`: the camelCase name, the negation and the inline value of a long option. */
function longOption(token: string): { name: string; negated: boolean; value: string | undefined } | undefined {
  const match = /^--([A-Za-z][\w-]*)(?:=(.*))?$/s.exec(token);
  if (match === null) return undefined;
  const negated = /^no-/.test(match[1]!);
  return { name: camelName(negated ? match[1]!.slice(3) : match[1]!), negated, value: match[2] };
}

/** A boolean option's value as yargs reads it: `--x`, `--x=true` on; `--no-x`, `--x=false` off; anything else undefined. */
function booleanValue(option: { negated: boolean; value: string | undefined }): boolean | undefined {
  if (option.value === undefined) return !option.negated;
  if (option.negated) return undefined;
  return option.value === 'true' ? true : option.value === 'false' ? false : undefined;
}

/**
 * Translates Prism's `prism mock` options into the mock's: a leading `mock` (Prism's command) is
 * dropped, `--errors` and `--cors` (the mock's defaults) and `-m/--multiprocess` are accepted with
 * one line, `--no-cors` sets `cors: false`, `-v LEVEL`/`--verboseLevel LEVEL` becomes `--verbose` or
 * `--quiet` (`-v` alone stays `--version`), and the options the mock cannot honour are one line of
 * error. Nothing after `--` (a wrapped command's own arguments) is read.
 *
 * @example readPrismHabits(['mock', 'api.yaml', '--errors']) // { argv: ['api.yaml'], notes: ['--errors: ...'], config: {} }
 */
export function readPrismHabits(argv: readonly string[]): PrismHabits | { error: string } {
  // The other commands have options of their own.
  if (argv[0] === 'replay' || argv[0] === 'proxy') return { argv: [...argv], notes: [], config: {} };
  const out: string[] = [];
  const notes: string[] = [];
  const config: PrismHabits['config'] = {};
  const end = argv.indexOf('--') === -1 ? argv.length : argv.indexOf('--');
  // Each Prism option holds one value: a second spelling (`--cors --no-cors`, `-v debug -v info`) is refused, never the last kept.
  const seen = new Map<string, string>();
  for (let index = argv[0] === 'mock' ? 1 : 0; index < end; index += 1) {
    const token = argv[index]!;
    const option = longOption(token);
    const name = option?.name;
    const habit =
      token === '-v' && Object.hasOwn(verboseLevels, argv[index + 1] ?? '') && index + 1 < end
        ? 'verboseLevel'
        : token === '-m'
          ? 'multiprocess'
          : option !== undefined &&
              name !== undefined &&
              ['verboseLevel', 'errors', 'cors', 'multiprocess'].includes(name)
            ? name
            : undefined;
    if (habit !== undefined) {
      const first = seen.get(habit);
      if (first !== undefined)
        return {
          error: `--${habit} is given twice${first === token ? '' : ` (as ${first} and ${token})`}: it holds one value, give it once`,
        };
      seen.set(habit, token);
    }
    if (token === '-v' && Object.hasOwn(verboseLevels, argv[index + 1] ?? '') && index + 1 < end) {
      index += 1;
      const level = verboseLevelOption(argv[index]!, notes, out);
      if (level !== undefined) return { error: level };
    } else if (option !== undefined && name === 'verboseLevel' && !option.negated) {
      const value = option.value ?? (index + 1 < end ? argv[++index] : undefined);
      const problem = verboseLevelOption(value, notes, out);
      if (problem !== undefined) return { error: problem };
    } else if (option !== undefined && (name === 'errors' || name === 'cors' || name === 'multiprocess')) {
      const on = booleanValue(option);
      if (on === undefined) return { error: `--${name} takes no value but true or false, got "${option.value}"` };
      if (name === 'errors') {
        if (!on) return { error: `--no-errors ${refused['no-errors']}` };
        notes.push(errorsNote);
      } else if (name === 'cors') {
        if (on) notes.push('--cors: already the default (Access-Control-* headers; preflights answered, not counted)');
        else {
          config.cors = false;
          notes.push('--no-cors: no Access-Control-* headers; a preflight is answered as any OPTIONS request');
        }
      } else notes.push(multiprocessNote);
    } else if (token === '-m') notes.push(multiprocessNote);
    else if (option !== undefined && name !== undefined && refusedName(name) !== undefined) {
      // --no-ignoreExamples is what Prism does by default, and what the mock does: nothing to refuse.
      if (name !== 'ignoreExamples' || booleanValue(option) !== false)
        return { error: `--${refusedName(name)} ${refused[refusedName(name)!]}` };
    } else out.push(token);
  }
  out.push(...argv.slice(end));
  return { argv: out, notes, config };
}

/** The refused option a camelCase name is, by Prism's spelling (`jsonSchemaFakerFillProperties` is `json-schema-faker-fillProperties`). */
function refusedName(name: string): string | undefined {
  return Object.keys(refused).find((spelling) => spelling !== 'no-errors' && camelName(spelling) === name);
}

/** `--verboseLevel LEVEL` as --verbose, --quiet or nothing (info); a level Prism would refuse is refused here too. */
function verboseLevelOption(level: string | undefined, notes: string[], out: string[]): string | undefined {
  if (level === undefined || !Object.hasOwn(verboseLevels, level))
    return `--verboseLevel must be one of ${Object.keys(verboseLevels).join(', ')}, got ${level === undefined ? 'nothing' : `"${level}"`}`;
  const flag = verboseLevels[level]!;
  if (flag !== null) out.push(flag);
  notes.push(
    `--verboseLevel ${level}: ${flag === '--verbose' ? 'read as --verbose (every request logged)' : flag === '--quiet' ? 'read as --quiet (errors only)' : 'the default'}`,
  );
  return undefined;
}
