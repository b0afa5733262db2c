import { maskSecret } from '../../spec/credential-masking.js';
import { defaultSpecPath } from '../../spec/load-spec.js';
import { normaliseBaseUrl } from '../lib/api-url.js';
import { checkOwnedHeaders } from '../lib/http-client.js';
import { type KitClock, systemClock } from '../lib/kit-clock.js';
import { profileDefaults, profiles, runSeed } from '../lib/run-profile.js';
import { ContractRunError } from './contract-run-error.js';

/**
 * Options of a contract run, as the CLI flags give them.
 *
 * @example
 * await runContract({ baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'demo-pro', rateLimitKey: 'demo-free' });
 */
export interface ContractOptions {
  /** Base URL of the server under test, including the version prefix (`/v1`). */
  baseUrl: string;
  /** The key most checks use. */
  apiKey: string;
  /** A second key the 429 checks may exhaust; without it they are skipped. */
  rateLimitKey?: string;
  /** Never send a POST (nothing can be created); creation and validation checks are skipped. Default false. */
  readOnly?: boolean;
  /** Most requests the 429 check may send with the rate-limit key. Default 1100. */
  maxRequests?: number;
  /** Most seconds the whole run may wait for rate-limit windows. Default 120. */
  maxWaitSeconds?: number;
  /**
   * Most seconds the run may wait on purpose, to see a rate-limit window roll over and a
   * Retry-After honoured. Checks that need more are INCONCLUSIVE for their cell (not for the run).
   * Default 0: a default run never waits a window out on purpose.
   */
  windowWaitSeconds?: number;
  /**
   * The clock the kit reads and waits on. For tests and tools that embed the kit: a server on the
   * same virtual clock lets windows, Retry-After and bans pass without real time. Default: the
   * real clock. Per-request timeouts and --deadline always use real time.
   *
   * @example clock: { now: () => virtualMs, sleep: async (ms) => { virtualMs += ms; }, virtual: true }
   */
  clock?: KitClock;
  /** Seconds allowed per request. Default 10. */
  timeoutSeconds?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Failures of experimental/beta operations fail the run instead of warning. Default false. */
  strict?: boolean;
  /** Route every request through Prism's validating proxy as a second opinion. Default false. */
  viaPrism?: boolean;
  /** Seed of every random pick (generated values, fast-check): the same seed repeats a run's picks. Default: a fresh one, printed. */
  seed?: number;
  /**
   * The thorough profile (lib/run-profile.ts): waits windows out, every variant of every generated
   * class, more property runs, a 10-minute deadline. Options given explicitly win. Default false.
   */
  thorough?: boolean;
  /** With --thorough: the main key may be spent into its 429 (its minute is then gone for other clients of that key). Default false. */
  exhaustMainKey?: boolean;
  /** Generated bodies per property-based check. Default 15. */
  propertyRuns?: number;
  /** The OpenAPI document to derive validators from. Default: the kit's spec. */
  specPath?: string;
  /** Folders outside the document's own that its `$ref`s may read files from. Default: none. */
  allowRefsOutside?: readonly string[];
  /** Judge with patterns RE2 cannot run, each match under a budget (else the document is refused). Default false. */
  unsafePatterns?: boolean;
  /** Run id (names of created data carry it). Default: random. */
  runId?: string;
  /** Where progress messages go (waits, Prism). Default: stderr. */
  log?: (message: string) => void;
  /** Called with each check's result as it finishes (live output); secrets already masked. */
  onResult?: (result: import('../report/report-model.js').CheckResult) => void;
  /** Called as each wait for a rate-limit window starts (what for, until when). Default: one line through `log`. */
  onWait?: (notice: import('../lib/rate-budget.js').WaitNotice) => void;
  /**
   * Extra request headers (`-H 'Name: value'`), added to every request unless a check sets the
   * same header. Values of credential-like names (Authorization, Cookie, *Key*, *Token*) are secrets.
   *
   * @example headers: ['X-Tenant: acme', 'X-Session: abc123']
   */
  headers?: readonly string[] | Record<string, string>;
  /** Most seconds the whole run may take; what has not run by then is INCONCLUSIVE. Default 300. */
  deadlineSeconds?: number;
  /** Most bytes of a response body the kit reads; the rest is discarded. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Most categories the "all means all" check may create. Default 60. */
  createBudget?: number;
  /** A SKIP fails the run (exit 1): for pipelines that want proof, not silence. Default false. */
  failOnSkip?: boolean;
  /**
   * The generic layer may send PUT, PATCH, DELETE and POST to a resource path on resources the
   * run did not create (a throwaway server, a mock). Default false: only on what the run created.
   */
  allowDestructive?: boolean;
  /** Most invalid requests the generic layer sends per operation. Default 6. */
  invalidCases?: number;
  /**
   * The generic layer checks only these operations (operationId, or `METHOD /path` as the
   * document writes it). Default: every operation.
   *
   * @example operations: ['listPets', 'DELETE /pets/{petId}']
   */
  operations?: readonly string[];
  /** Aborting cancels the run and stops Prism. */
  signal?: AbortSignal;
}

/** Options with every default applied, validated. */
export interface ResolvedContractOptions {
  baseUrl: string;
  apiKey: string;
  rateLimitKey: string | undefined;
  readOnly: boolean;
  maxRequests: number;
  maxWaitSeconds: number;
  windowWaitSeconds: number;
  clock: KitClock;
  timeoutSeconds: number;
  concurrency: number;
  strict: boolean;
  viaPrism: boolean;
  seed: number;
  thorough: boolean;
  exhaustMainKey: boolean;
  propertyRuns: number;
  specPath: string;
  allowRefsOutside: readonly string[];
  unsafePatterns: boolean;
  extraHeaders: Record<string, string>;
  deadlineSeconds: number;
  maxBodyBytes: number;
  createBudget: number;
  failOnSkip: boolean;
  allowDestructive: boolean;
  invalidCases: number;
  operations: readonly string[] | undefined;
}

export const defaults = {
  maxRequests: 1100,
  maxWaitSeconds: profiles.default.maxWaitSeconds,
  windowWaitSeconds: profiles.default.windowWaitSeconds,
  timeoutSeconds: 10,
  concurrency: 4,
  propertyRuns: profiles.default.propertyRuns,
  deadlineSeconds: profiles.default.deadlineSeconds,
  maxBodyBytes: 1_048_576,
  createBudget: profiles.default.createBudget,
  invalidCases: 6,
} as const;

/**
 * Applies defaults and checks every option; throws `ContractRunError('usage', ...)` naming the
 * option and what is wrong with it.
 *
 * @example resolveContractOptions({ baseUrl: 'http://127.0.0.1:4010/v1/', apiKey: 'demo-pro' }).baseUrl // 'http://127.0.0.1:4010/v1'
 */
export function resolveContractOptions(options: ContractOptions): ResolvedContractOptions {
  const usage = (message: string) => new ContractRunError('usage', message);
  if (typeof options.baseUrl !== 'string' || options.baseUrl.trim() === '')
    throw usage('Failed to start: --base-url is required (or set PETSTORE_BASE_URL)');
  let baseUrl: string;
  try {
    baseUrl = normaliseBaseUrl(options.baseUrl.trim());
  } catch (error) {
    throw usage((error as Error).message);
  }
  const apiKey = checkKey(options.apiKey, '--api-key', 'PETSTORE_API_KEY');
  const rateLimitKey =
    options.rateLimitKey === undefined
      ? undefined
      : checkKey(options.rateLimitKey, '--rate-limit-key', 'PETSTORE_RATE_LIMIT_KEY');
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
  const profile = profileDefaults(thorough);
  return {
    baseUrl,
    apiKey,
    rateLimitKey,
    thorough,
    exhaustMainKey: options.exhaustMainKey ?? false,
    readOnly: options.readOnly ?? false,
    maxRequests: integerIn(options.maxRequests ?? defaults.maxRequests, '--max-requests', 1, 1_000_000),
    maxWaitSeconds: numberIn(options.maxWaitSeconds ?? profile.maxWaitSeconds, '--max-wait', 0, 86_400),
    windowWaitSeconds: numberIn(options.windowWaitSeconds ?? profile.windowWaitSeconds, '--window-wait', 0, 7 * 86_400),
    clock: options.clock ?? systemClock,
    timeoutSeconds: numberIn(options.timeoutSeconds ?? defaults.timeoutSeconds, '--timeout', 0.001, 600),
    concurrency: integerIn(options.concurrency ?? defaults.concurrency, '--concurrency', 1, 64),
    strict: options.strict ?? false,
    viaPrism: options.viaPrism ?? false,
    seed: integerIn(runSeed(options.seed), '--seed', -(2 ** 31), 2 ** 31 - 1),
    propertyRuns: integerIn(options.propertyRuns ?? profile.propertyRuns, 'propertyRuns', 1, 1_000),
    specPath: options.specPath ?? defaultSpecPath,
    allowRefsOutside: options.allowRefsOutside ?? [],
    unsafePatterns: options.unsafePatterns ?? false,
    extraHeaders: parseHeaders(options.headers ?? []),
    deadlineSeconds: numberIn(options.deadlineSeconds ?? profile.deadlineSeconds, '--deadline', 1, 86_400),
    maxBodyBytes: integerIn(options.maxBodyBytes ?? defaults.maxBodyBytes, '--max-body-bytes', 1_024, 1_073_741_824),
    createBudget: integerIn(options.createBudget ?? profile.createBudget, '--create-budget', 0, 10_000),
    failOnSkip: options.failOnSkip ?? false,
    allowDestructive: options.allowDestructive ?? false,
    invalidCases: integerIn(options.invalidCases ?? defaults.invalidCases, '--invalid-cases', 0, 1_000),
    operations: options.operations,
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

function checkKey(value: string | undefined, flag: string, variable: string): string {
  if (value === undefined || value === '')
    throw new ContractRunError('usage', `Failed to start: ${flag} is required (or set ${variable})`);
  // The key goes into a header: refuse anything that could end it or start another one.
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new ContractRunError('usage', `Failed to use ${flag}: a key must be printable ASCII without spaces`);
  return value;
}

function integerIn(value: number, flag: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ContractRunError('usage', `Failed to use ${flag}: ${value} is not an integer from ${min} to ${max}`);
  return value;
}

function numberIn(value: number, flag: string, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max)
    throw new ContractRunError(
      'usage',
      `Failed to use ${flag}: ${value} is not a number of seconds from ${min} to ${max}`,
    );
  return value;
}
