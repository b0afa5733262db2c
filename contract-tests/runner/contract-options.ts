import { maskSecret } from '../../spec/credential-masking.js';
import { defaultSpecPath } from '../../spec/load-spec.js';
import { normaliseBaseUrl } from '../lib/api-url.js';
import type { ContractTarget } from '../lib/contract-target.js';
import { checkOwnedHeaders } from '../lib/http-client.js';
import { systemClock } from '../lib/kit-clock.js';
import { profileDefaults, profiles, runSeed } from '../lib/run-profile.js';
import type { ContractReport } from '../report/report-model.js';
import { type ContractOptions, unstatedOptions } from './contract-options-api.js';
import { ContractRunError } from './contract-run-error.js';
import type { KitOption } from './kit-option.js';
import { kitOption, kitOptions, missingMessage, numberDefault } from './kit-option-table.js';

export type { ContractOptions } from './contract-options-api.js';

/** What a caller gives that the run calls or reads itself, and -H's lines (resolved into `extraHeaders`). */
type Unresolved = 'rateLimitKey' | 'operations' | 'headers' | 'runId' | 'log' | 'onResult' | 'onWait' | 'signal';

/**
 * Options with every default applied, validated: each option of `ContractOptions`, present (a new
 * one is here without another line), the rate-limit key and the operations only when given.
 */
export type ResolvedContractOptions = Required<Omit<ContractOptions, Unresolved>> & {
  rateLimitKey: string | undefined;
  operations: readonly string[] | undefined;
  extraHeaders: Record<string, string>;
};

/** The keys of the options whose value is of type `T`. */
type KeysOf<T> = {
  [K in keyof ResolvedContractOptions]: ResolvedContractOptions[K] extends T ? K : never;
}[keyof ResolvedContractOptions];

/** The options that hold a number, resolved: each from its row's default and range. */
type NumberSettings = Pick<ResolvedContractOptions, KeysOf<number>>;

/** The options that are a flag, resolved: each false unless given. */
type FlagSettings = Pick<ResolvedContractOptions, KeysOf<boolean>>;

/** Each number's default in a default run (the rows of kit-option-table.ts), and the profile's property runs. */
export const defaults = {
  ...(Object.fromEntries(
    kitOptions.flatMap((row) => {
      const value = row.key === undefined ? undefined : numberDefault(row, false);
      return value === undefined ? [] : [[row.key, value]];
    }),
  ) as Readonly<Omit<NumberSettings, 'seed' | 'propertyRuns'>>),
  propertyRuns: profiles.default.propertyRuns,
};

/**
 * Applies defaults and checks every option; throws `ContractRunError('usage', ...)` naming the
 * option and what is wrong with it.
 *
 * @example resolveContractOptions({ baseUrl: 'http://127.0.0.1:4010/v1/', apiKey: 'demo-pro' }).baseUrl // 'http://127.0.0.1:4010/v1'
 */
export function resolveContractOptions(options: ContractOptions): ResolvedContractOptions {
  const usage = (message: string) => new ContractRunError('usage', message);
  if (typeof options.baseUrl !== 'string' || options.baseUrl.trim() === '')
    throw usage(missingMessage(kitOption('baseUrl')));
  let baseUrl: string;
  try {
    baseUrl = normaliseBaseUrl(options.baseUrl.trim());
  } catch (error) {
    throw usage((error as Error).message);
  }
  const apiKey = checkKey(options.apiKey, kitOption('apiKey'));
  const rateLimitKey =
    options.rateLimitKey === undefined ? undefined : checkKey(options.rateLimitKey, kitOption('rateLimitKey'));
  if (rateLimitKey !== undefined && rateLimitKey === apiKey) {
    throw usage(
      'Failed to use --rate-limit-key: it must differ from --api-key (the kit drives it into 429 and then stops using it)',
    );
  }
  const thorough = options.thorough ?? false;
  if (options.exhaustMainKey === true && !thorough)
    throw usage(
      'Failed to use --exhaust-main-key: it belongs to --thorough (a default run never spends the main key into a 429)',
    );
  return {
    baseUrl,
    apiKey,
    rateLimitKey,
    ...resolvedFlags(options),
    ...resolvedNumbers(options, thorough),
    clock: options.clock ?? systemClock,
    propertyRuns: integerIn(options.propertyRuns ?? profileDefaults(thorough).propertyRuns, 'propertyRuns', [1, 1_000]),
    specPath: options.specPath ?? defaultSpecPath,
    allowRefsOutside: options.allowRefsOutside ?? [],
    extraHeaders: parseHeaders(options.headers ?? []),
    operations: options.operations,
  };
}

/** Every flag's row: false unless given. */
function resolvedFlags(options: ContractOptions): FlagSettings {
  const flags = kitOptions.filter((row) => row.type === 'flag' && row.key !== undefined);
  return Object.fromEntries(flags.map((row) => [row.key, options[row.key!] ?? false])) as unknown as FlagSettings;
}

/** Every number's row: its value, else its default (for this profile), checked against its range. */
function resolvedNumbers(options: ContractOptions, thorough: boolean): NumberSettings {
  const resolved: Record<string, number> = {};
  for (const row of kitOptions) {
    if (row.key === undefined || row.range === undefined) continue;
    const given = options[row.key] as number | undefined;
    const value = row.default === 'fresh' ? runSeed(given) : (given ?? numberDefault(row, thorough)!);
    resolved[row.key] = (row.type === 'seconds' ? numberIn : integerIn)(value, `--${row.name}`, row.range);
  }
  return resolved as unknown as NumberSettings;
}

/** What only the run knows, which the target adds to the options: its id, where requests go, when it must end. */
type RunFacts = 'runId' | 'baseUrl' | 'namePrefix' | 'initialBudget' | 'deadlineAtMs';

/**
 * The resolved options every check reads as `run.target`, times in milliseconds: each option the
 * target has, as resolved; the runner adds the run's own facts (its id, Prism's URL, the deadline).
 *
 * @example const target: ContractTarget = { ...targetOptions(settings), runId, baseUrl, namePrefix, initialBudget, deadlineAtMs };
 */
export function targetOptions(settings: ResolvedContractOptions): Omit<ContractTarget, RunFacts> {
  // What the target holds in other units, or not at all (the run's own settings, the generic layer's document).
  const { baseUrl, timeoutSeconds, maxWaitSeconds, windowWaitSeconds, deadlineSeconds, ...options } = settings;
  const { failOnSkip, allowRefsOutside, unsafePatterns, operations, ...read } = options;
  return {
    ...read,
    directBaseUrl: baseUrl,
    timeoutMs: Math.round(timeoutSeconds * 1000),
    maxWaitMs: Math.round(maxWaitSeconds * 1000),
    windowWaitMs: Math.round(windowWaitSeconds * 1000),
  };
}

const unstatedFlags = new Set<string>(unstatedOptions);

/**
 * The resolved options a report states (`settings`): every number and flag as resolved, the keys
 * and credential-like header values masked; the runner adds the run's name prefix. No text is
 * stated unless named here, so a new option that holds a secret never reaches a report by itself.
 *
 * @example reportedOptions(settings, maskSecret, (name, value) => value).apiKey // 'demo…'
 */
export function reportedOptions(
  settings: ResolvedContractOptions,
  maskKey: (key: string) => string,
  maskHeader: (name: string, value: string) => string,
): Omit<ContractReport['settings'], 'namePrefix'> {
  const stated = Object.entries(settings).filter(
    ([name, value]) => (typeof value === 'number' || typeof value === 'boolean') && !unstatedFlags.has(name),
  );
  return {
    ...(Object.fromEntries(stated) as Omit<ContractReport['settings'], 'namePrefix' | 'apiKey' | 'rateLimitKey'>),
    apiKey: maskKey(settings.apiKey),
    rateLimitKey: settings.rateLimitKey === undefined ? undefined : maskKey(settings.rateLimitKey),
    extraHeaders: Object.fromEntries(
      Object.entries(settings.extraHeaders).map(([name, value]) => [name, maskHeader(name, value)]),
    ),
  };
}

/**
 * `-H 'Name: value'` lines (or a record) as a header record. Refuses malformed lines, header
 * names the checks set themselves, and values that could end the header.
 *
 * @example parseHeaders(['X-Tenant: acme']) // { 'x-tenant': 'acme' }
 */
export function parseHeaders(input: readonly string[] | Record<string, string>): Record<string, string> {
  const entries: [string, string][] = Array.isArray(input)
    ? (input as readonly string[]).map((line) => {
        const colon = line.indexOf(':');
        if (colon <= 0)
          throw new ContractRunError(
            'usage',
            `Failed to use -H ${JSON.stringify(maskSecret(line))}: write it as 'Name: value'`,
          );
        return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
      })
    : Object.entries(input as Record<string, string>);
  const out: Record<string, string> = {};
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
      throw new ContractRunError('usage', `Failed to use -H ${JSON.stringify(rawName)}: not a valid header name`);
    if (checkOwnedHeaders.has(name))
      throw new ContractRunError(
        'usage',
        `Failed to use -H ${rawName}: the checks set this header themselves (use --api-key for the key)`,
      );
    if (/[\r\n\0]/.test(value) || /[^\t\x20-\x7e\x80-\xff]/.test(value))
      throw new ContractRunError(
        'usage',
        `Failed to use -H ${rawName}: the value holds characters a header cannot carry`,
      );
    out[name] = value;
  }
  return out;
}

function checkKey(value: string | undefined, row: KitOption): string {
  const flag = `--${row.name}`;
  if (value === undefined || value === '') throw new ContractRunError('usage', missingMessage(row));
  // The key goes into a header: refuse anything that could end it or start another one.
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new ContractRunError('usage', `Failed to use ${flag}: a key must be printable ASCII without spaces`);
  return value;
}

function integerIn(value: number, flag: string, [min, max]: readonly [number, number]): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ContractRunError('usage', `Failed to use ${flag}: ${value} is not an integer from ${min} to ${max}`);
  return value;
}

function numberIn(value: number, flag: string, [min, max]: readonly [number, number]): number {
  if (!Number.isFinite(value) || value < min || value > max)
    throw new ContractRunError(
      'usage',
      `Failed to use ${flag}: ${value} is not a number of seconds from ${min} to ${max}`,
    );
  return value;
}
