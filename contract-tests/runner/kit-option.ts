import type { ContractOptions } from './contract-options-api.js';

/**
 * Every option of `petstore-contract`, declared once (issue 43, item 1; decision 047). The parser
 * (parseArgs' config), the --help text, the environment fallbacks, the form and range checks and
 * the mapping to `ContractOptions` are all read from these rows; what an option does is the code
 * that reads its `ContractOptions` key. Adding a flag is a row here plus that code.
 */
export interface KitOption {
  /** The long flag without its dashes: `max-body-bytes`. */
  name: string;
  /** The one-letter spelling (`H` for `-H`). */
  short?: string;
  /** Whether --help shows the short spelling (`-h` works, as everywhere; the line says --help). */
  shortHidden?: true;
  /**
   * How the value is read: a `flag` takes none; `text` one string, `texts` a repeatable one;
   * `integer` and `seconds` a number, its form checked as it is read and its `range` when resolved.
   */
  type: 'flag' | 'text' | 'texts' | 'integer' | 'seconds';
  /** What --help calls the value: `URL`, `N`, `SECONDS`. */
  value?: string;
  /** Where a run's options hold it; none for what the command line reads itself (reports, --help). */
  key?: keyof ContractOptions;
  /** The environment variable read when the flag is absent (an empty one counts as absent). */
  env?: string;
  /** Refused at the start when neither the flag nor its variable gives it. */
  required?: true;
  /**
   * A number's default: `profile` when the run's profile (--thorough or not) decides it
   * (lib/run-profile.ts), `fresh` for a random one each run (the seed, printed so a run repeats).
   */
  default?: number | 'profile' | 'fresh';
  /** A number's allowed range, checked with the default applied (a library caller's value too). */
  range?: readonly [min: number, max: number];
  /** What is wrong with a text value, if anything (`--spec ''`). */
  problem?: (value: string) => string | undefined;
  section: 'Target' | 'Document' | 'Behaviour' | 'Report';
  /**
   * Its --help lines after the flag, wrapped as they print. `{default}` is the default (the default
   * profile's), `{thorough}` the thorough profile's, `{env}` `(env VARIABLE)`.
   */
  help: readonly string[];
}
