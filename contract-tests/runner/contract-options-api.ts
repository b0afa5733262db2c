import type { KitClock } from '../lib/kit-clock.js';

/**
 * Options of a contract run, as the CLI flags give them. Each flag's default, range and environment
 * variable are its row of kit-option-table.ts; the interface says what a library caller passes.
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
  /** Most requests the 429 check may send with the rate-limit key. Default: --max-requests' (kit-option-table.ts). */
  maxRequests?: number;
  /** Most seconds the whole run may wait for rate-limit windows. Default: --max-wait's, by profile. */
  maxWaitSeconds?: number;
  /**
   * Most seconds the run may wait on purpose, to see a rate-limit window roll over and a
   * Retry-After honoured. Checks that need more are INCONCLUSIVE for their cell (not for the run).
   * Default: --window-wait's, by profile (a default run never waits a window out on purpose).
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
  /** Seconds allowed per request. Default: --timeout's. */
  timeoutSeconds?: number;
  /** Requests in flight at once. Default: --concurrency's. */
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
  /** Generated bodies per property-based check. Default: the profile's (lib/run-profile.ts). */
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
  onResult?: (result: import('../report/report-schema.js').CheckResult) => void;
  /** Called as each wait for a rate-limit window starts (what for, until when). Default: one line through `log`. */
  onWait?: (notice: import('../lib/rate-budget.js').WaitNotice) => void;
  /**
   * Extra request headers (`-H 'Name: value'`), added to every request unless a check sets the
   * same header. Values of credential-like names (Authorization, Cookie, *Key*, *Token*) are secrets.
   *
   * @example headers: ['X-Tenant: acme', 'X-Session: abc123']
   */
  headers?: readonly string[] | Record<string, string>;
  /** Most seconds the whole run may take; what has not run by then is INCONCLUSIVE. Default: --deadline's, by profile. */
  deadlineSeconds?: number;
  /** Most bytes of a response body the kit reads; the rest is discarded. Default: --max-body-bytes'. */
  maxBodyBytes?: number;
  /** Most categories the whole run may create. Default: --create-budget's, by profile. */
  createBudget?: number;
  /** A SKIP fails the run (exit 1): for pipelines that want proof, not silence. Default false. */
  failOnSkip?: boolean;
  /**
   * The generic layer may send PUT, PATCH, DELETE and POST to a resource path on resources the
   * run did not create (a throwaway server, a mock). Default false: only on what the run created.
   */
  allowDestructive?: boolean;
  /** Most invalid requests the generic layer sends per operation. Default: --invalid-cases'. */
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

/** Options a report does not state: Prism's use is its target, the rest change how, not what, the run judged. */
export const unstatedOptions = ['viaPrism', 'exhaustMainKey', 'unsafePatterns'] as const;

type NumberOrFlagOption = {
  [K in keyof ContractOptions]-?: Required<ContractOptions>[K] extends number | boolean ? K : never;
}[keyof ContractOptions];

/** The options a report states (`settings`), as resolved: every number and flag but the unstated ones. */
export type StatedOptions = {
  [K in Exclude<NumberOrFlagOption, (typeof unstatedOptions)[number]>]-?: Required<ContractOptions>[K];
};
