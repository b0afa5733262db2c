/**
 * One table per command line: each option is declared once (name, short flag, type, default,
 * environment variable, help text, how its value is read, what it sets in the config), and the
 * parser's options, the help's option lines, the validation and the config mapping are made from it
 * (decision 048). node:util's parseArgs does the parsing; spec/repeated-options.ts refuses a repeat.
 */
import { parseArgs } from 'node:util';
import { parseArgsMessage, repeatedOption } from '../../spec/repeated-options.js';

/** One option of a command line. */
export interface OptionRow {
  type: 'string' | 'boolean';
  /** One letter: `-p` for `--port`. */
  short?: string;
  /** Repeatable: every value is kept, in order. */
  multiple?: boolean;
  /** The value's name in the help (`--port N`). */
  value?: string;
  /** Help lines: the first beside the flag, the others under it. */
  help: readonly string[];
  /** The help section that lists it (default `options`); `none` when the help says it in prose (`--spec`). */
  section?: string;
  /** The text read when the option is not given (and its environment variable is unset or blank). */
  default?: string;
  /** The environment variable read when the option is not given; a problem with it names the variable. */
  env?: string;
  /** Reads the text (given, from `env` or the default) into its value; throws one line when it cannot. */
  parse?: (text: string, flag: string) => unknown;
  /** What the value sets in the config; not called when the option is absent (or a boolean is off). */
  config?: (value: never, file: never) => object;
}

export type OptionTable = Readonly<Record<string, OptionRow>>;

/** The value of one option once read: its parse's result, else the parser's string, strings or boolean. */
type RowValue<Row> = Row extends { parse: (text: string, flag: string) => infer Value }
  ? Value
  : Row extends { type: 'boolean' }
    ? boolean
    : Row extends { multiple: true }
      ? string[]
      : string;

/** Every option's value; undefined when not given, unless the row has a default. */
export type OptionValues<Table extends OptionTable> = {
  [Name in keyof Table]: RowValue<Table[Name]> | (Table[Name] extends { default: string } ? never : undefined);
};

/** What parseArgs gave (strings and booleans), before the table's reading. */
export type GivenValues = Record<string, string | boolean | string[] | undefined>;

/** The table as parseArgs' `options`. */
function parserOptions(
  table: OptionTable,
): Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> {
  return Object.fromEntries(
    Object.entries(table).map(([name, row]) => [
      name,
      { type: row.type, ...(row.short ? { short: row.short } : {}), ...(row.multiple ? { multiple: true } : {}) },
    ]),
  );
}

/** A command line split by parseArgs, or the one line that says why it cannot be. */
export type ParsedCommandLine =
  | { values: GivenValues; positionals: string[]; tokens: ReturnType<typeof parseArgs>['tokens']; error?: undefined }
  | { error: string; usage: boolean };

/**
 * Parses `argv` with the table's options (strict, positionals allowed). A parser error is
 * `usage: true` (the caller adds its "Run ... --help" hint); a repeated option is `usage: false`.
 *
 * @example parseCommandLine(['--port', '1', '--port', '2'], { port: { type: 'string', help: [] } }) // { error: '--port is given twice: it holds one value, give it once', usage: false }
 */
export function parseCommandLine(argv: readonly string[], table: OptionTable): ParsedCommandLine {
  const options = parserOptions(table);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    return { error: parseArgsMessage((error as Error).message, options), usage: true };
  }
  const repeated = repeatedOption(parsed.tokens, options);
  if (repeated !== undefined) return { error: repeated, usage: false };
  return { values: parsed.values as GivenValues, positionals: parsed.positionals, tokens: parsed.tokens };
}

/** Where the defaults come from: the environment, and per-run defaults over the table's. */
export interface ReadingContext {
  env?: Readonly<Record<string, string | undefined>>;
  /** Defaults for this run over the table's (a wrapped command's port is a free one); their env is not read. */
  defaults?: Readonly<Record<string, string>>;
}

/**
 * Reads every option in table order: the given text, else its environment variable (blank is unset),
 * else its default, through the row's `parse`. Returns the values, or the first problem in one line.
 *
 * @example readOptionValues({ seed: { type: 'string', default: '1', parse: Number, help: [] } }, {}) // { values: { seed: 1 } }
 */
export function readOptionValues<Table extends OptionTable>(
  table: Table,
  given: GivenValues,
  context: ReadingContext = {},
): { values: OptionValues<Table>; error?: undefined } | { error: string } {
  const values: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(table)) {
    const fromEnv = context.defaults?.[name] === undefined && row.env ? context.env?.[row.env]?.trim() : undefined;
    const text = given[name] ?? (fromEnv || undefined) ?? context.defaults?.[name] ?? row.default;
    if (typeof text !== 'string' || row.parse === undefined) {
      values[name] = text;
      continue;
    }
    const flag = given[name] === undefined && fromEnv ? row.env! : `--${name}`;
    try {
      values[name] = row.parse(text, flag);
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  return { values: values as OptionValues<Table> };
}

/**
 * The config the options set, each row's `config` over the value read (absent and false options set
 * nothing). `file` is the config file's settings a row keeps beside its own (`--store` keeps the prefix).
 */
export function optionsConfig<File>(table: OptionTable, values: Readonly<Record<string, unknown>>, file: File): object {
  const config: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(table)) {
    const value = values[name];
    if (row.config === undefined || value === undefined || value === false) continue;
    Object.assign(config, (row.config as (value: unknown, file: File) => object)(value, file));
  }
  return config;
}

/**
 * The help's lines for one section of the table: `  -p, --port N` padded to `column` (or two spaces
 * past it), then the first help line; the other help lines under it at `column`.
 */
export function helpLines(table: OptionTable, section: string, column: number): string {
  const lines: string[] = [];
  for (const [name, row] of Object.entries(table)) {
    if ((row.section ?? 'options') !== section) continue;
    const flag = `  ${row.short ? `-${row.short}, ` : '    '}--${name}${row.value ? ` ${row.value}` : ''}`;
    const [first = '', ...rest] = row.help;
    // A flag as wide as the column is set off by two spaces, so the help never reads as its value.
    lines.push(`${flag.length < column ? flag.padEnd(column) : `${flag}  `}${first}`);
    for (const line of rest) lines.push(`${' '.repeat(column)}${line}`);
  }
  return lines.join('\n');
}

/** An integer from `min` to `max`, or one line naming `flag` (thrown). */
export function integerOption(min: number, max: number): (text: string, flag: string) => number {
  return (text, flag) => {
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
      throw new Error(`${flag} must be an integer from ${min} to ${max}, got "${text}"`);
    return Number(text);
  };
}

/** One of `choices`, or one line naming `flag` (thrown): `--fail-on must be server, client or any, got "x"`. */
export function choiceOption<const Choice extends string>(
  choices: readonly Choice[],
): (text: string, flag: string) => Choice {
  return (text, flag) => {
    if (!(choices as readonly string[]).includes(text))
      throw new Error(
        `${flag} must be ${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}, got "${text}"`,
      );
    return text as Choice;
  };
}

const byteUnits: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
};

/** A size in bytes: a whole number, optionally with a binary unit (KiB, MiB, GiB; K, M, G say the same). */
export function byteSizeOption(text: string, flag: string): number {
  const match = /^(\d{1,15})\s*([a-z]*)$/i.exec(text.trim());
  const unit = match === null ? undefined : byteUnits[match[2]!.toLowerCase()];
  if (match === null || unit === undefined)
    throw new Error(`${flag} must be a size such as 268435456, 256MiB or 1GiB, got "${text}"`);
  return Number(match[1]) * unit;
}
