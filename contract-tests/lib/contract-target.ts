import type { KitClock } from './kit-clock.js';

/**
 * Everything the suite needs to know about the server under test, resolved once by the runner
 * and handed to every check as `run.target`. Checks never build a host or port themselves.
 *
 * @example run.target.baseUrl; // 'http://127.0.0.1:4010/v1'
 */
export interface ContractTarget {
  /** Short random id of this run; created data carries it in its name. */
  runId: string;
  /** Where the checks send their requests: the server, or Prism's proxy in front of it. No trailing slash. */
  baseUrl: string;
  /** The server under test itself. Equal to `baseUrl` unless the run goes through Prism. */
  directBaseUrl: string;
  viaPrism: boolean;
  apiKey: string;
  /** A second key that the suite may drive into 429; absent when the 429 checks are off. */
  rateLimitKey: string | undefined;
  /** The --thorough profile: every variant of every generated class, waits and budgets spent (lib/run-profile.ts). */
  thorough: boolean;
  /** The main key may be driven into its 429 (--exhaust-main-key, --thorough only). */
  exhaustMainKey: boolean;
  readOnly: boolean;
  strict: boolean;
  timeoutMs: number;
  concurrency: number;
  /** Most requests the 429 check may send with the rate-limit key. */
  maxRequests: number;
  /** Most time the whole run may spend waiting for rate-limit windows (pacing, unprovoked 429s). */
  maxWaitMs: number;
  /**
   * Most time the run may spend waiting on purpose, to see a window roll over or a Retry-After
   * honoured (--window-wait). A check whose wait does not fit is INCONCLUSIVE for its cell only.
   */
  windowWaitMs: number;
  /** The run's real-time deadline (epoch ms): a wait on the real clock must end before it. */
  deadlineAtMs: number;
  /** The kit's clock: every timestamp it judges and every wait it makes (see kit-clock.ts). */
  clock: KitClock;
  /** fast-check seed of the property-based checks. */
  seed: number;
  /** How many generated bodies each property-based check sends. */
  propertyRuns: number;
  /** Prefix of the name of every category the run creates: `contract-test-<runId>`. */
  namePrefix: string;
  /** The OpenAPI document the suite derives its validators from. */
  specPath: string;
  /** Rate-limit headers of the main key as the runner's reachability probe saw them. */
  initialBudget: ObservedBudget | undefined;
  /** Headers given with -H, added to every request unless the check sets the same name. */
  extraHeaders: Record<string, string>;
  /** Most bytes of a response body the kit reads; the rest is discarded (--max-body-bytes). */
  maxBodyBytes: number;
  /** Most categories the "all means all" check may create (--create-budget). */
  createBudget: number;
  /** The generic layer may send PUT, PATCH, DELETE and POST to a resource path it did not create (--allow-destructive). */
  allowDestructive: boolean;
  /** Most invalid requests the generic layer sends per operation (--invalid-cases). */
  invalidCases: number;
}

/** What one response said about a key's rate budget. */
export interface ObservedBudget {
  remaining: string | undefined;
  reset: string | undefined;
  receivedAtMs: number;
}
