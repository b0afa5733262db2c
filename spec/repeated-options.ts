/**
 * node:util's parseArgs keeps the last of a repeated option that holds one value: `--reporter json
 * --reporter junit` silently became junit, and a CI script that sets `--port` twice ran on the second.
 * Both bins (`petstore-mock` with its `replay` and `proxy` commands, `petstore-contract`) read their
 * parseArgs tokens through this one check, so a repeat is refused in one line instead.
 */

/** The part of a parseArgs option's config this check reads. */
interface OptionConfig {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}

/** The part of a parseArgs token this check reads (`tokens: true`). */
interface OptionToken {
  kind: string;
  name?: string;
  rawName?: string;
}

/**
 * Why the command line gives an option that holds one value more than once, in one line; undefined
 * when it gives each at most once. Options with `multiple: true` may repeat; the short and long
 * spellings of one option (`-p 1 --port 2`) are one option.
 *
 * @example
 * const parsed = parseArgs({ args, options, strict: true, tokens: true });
 * const problem = repeatedOption(parsed.tokens, options); // '--reporter is given twice: it holds one value, give it once'
 */
export function repeatedOption(
  tokens: readonly OptionToken[] | undefined,
  options: Readonly<Record<string, OptionConfig>>,
): string | undefined {
  const seen = new Map<string, OptionToken>();
  for (const token of tokens ?? []) {
    if (token.kind === 'option-terminator') break;
    if (token.kind !== 'option' || token.name === undefined) continue;
    const config = options[token.name];
    if (config === undefined || config.multiple === true) continue;
    const first = seen.get(token.name);
    if (first === undefined) {
      seen.set(token.name, token);
      continue;
    }
    // The values are not repeated back: one of them may be a key (--api-key twice).
    const spellings = first.rawName !== token.rawName ? ` (as ${first.rawName} and ${token.rawName})` : '';
    return `--${token.name} is given twice${spellings}: it holds one value, give it once`;
  }
  return undefined;
}

/**
 * node:util's parseArgs message for an unknown option, in one line that says what to do: its advice
 * (put it after `--`) would make it a wrapped command's argument, and a `--no-NAME` is named as the
 * negation these commands do not take (leave NAME out). Other messages pass as they are.
 *
 * @example parseArgsMessage("Unknown option '--no-quiet'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--no-quiet\"", { quiet: { type: 'boolean' } }) // 'unknown option --no-quiet (no option takes a --no- form: leave --quiet out)'
 */
export function parseArgsMessage(message: string, options: Readonly<Record<string, OptionConfig>>): string {
  const unknown = /^Unknown option '([^']*)'/.exec(message);
  if (unknown === null) return message;
  const name = unknown[1]!;
  const negated = /^--no-(.+)$/.exec(name)?.[1];
  return negated !== undefined && options[negated]?.type === 'boolean'
    ? `unknown option ${name} (no option takes a --no- form: leave --${negated} out)`
    : `unknown option ${name}`;
}
