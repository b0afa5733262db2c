import type * as z from 'zod';
import { customPlans, interfacePlans } from '../../../spec/interface/plans.js';
import { onFirstUse, type ZodModule } from '../../../spec/zod-module.js';
import { describeIssues, isoDate, keyFields, type Limits, limitsSchema, planName } from './decoding.js';
import { faultSettingsSchema } from './fault-config.js';
import { scenarioSchema } from './scenario-file.js';
import {
  afterSunsetModeSchema,
  minMemoryBudgetBytes,
  sessionsConfigSchema,
  storeConfigSchema,
  storeDefaults,
} from './store-config.js';

// A host name or IP literal as it appears in a Host header, without a port; a leading dot allows subdomains.
const hostPattern = /^\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$|^\[[0-9A-Fa-f:.]+\]$/;

export type { Limits };

/**
 * What `{}` decodes to, before the interface's plans are merged in: known without decoding, so a mock
 * with the default config never loads zod (the schema below takes its defaults from here, and a
 * test decodes `{}` and compares).
 */
const decodedDefaults = deepFrozen({
  plans: {},
  // A caller without a key draws on the Free plan's budget (the mock's choice: the interface answers it 401).
  anonymous: { perMinute: interfacePlans[0].perMinute, perDay: interfacePlans[0].perDay },
  keys: [],
  demoKeys: true,
  ban: { enabled: true, threshold: 10, durationSeconds: 900 },
  deprecation: {},
  seedCategories: 3,
  maxCategories: 10_000,
  maxCategoryBytes: 16 * 1024 * 1024,
  maxBodyBytes: 1024 * 1024,
  memoryBudgetBytes: storeDefaults.memoryBudgetBytes,
  maxTrackedClients: 10_000,
  requestLogSize: 500,
  allowRemoteControl: false,
  allowedHosts: [],
  cors: true,
  sessions: { maxSessions: storeDefaults.maxSessions, idleSeconds: storeDefaults.sessionIdleMs / 1000 },
  sunset: { afterSunset: 'serve' as const },
});

/** Frozen all the way down: the defaults are copied out, never handed out (zod's `.default` copies one level only). */
function deepFrozen<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFrozen(inner);
  return Object.freeze(value);
}

/** A key the config adds: its secret, its plan or own limits, the scopes it holds. */
const keySchema = onFirstUse((z) =>
  z
    .strictObject({
      ...keyFields(),
      /**
       * OAuth2 / OpenID Connect scopes this key holds: an operation whose requirement asks for a scope
       * the key lacks answers 403. Without it, a key holds every scope.
       */
      scopes: z.array(z.string().min(1).max(200)).max(1_000).optional(),
    })
    .refine((entry) => entry.plan !== undefined || entry.limits !== undefined, { message: 'needs a plan or limits' }),
);
export type KeyConfig = z.infer<ReturnType<typeof keySchema>>;

/** The bounds of what the mock keeps and reads: categories, bodies, memory, tracked clients, the log. */
function boundsFields(z: ZodModule) {
  const positiveInt = z.int().positive();
  return {
    /** How many categories faker seeds at start and after a reset. */
    seedCategories: z.int().min(0).max(10_000).default(decodedDefaults.seedCategories),
    /** Most categories kept; creating more drops the oldest, so a POST flood cannot exhaust memory. */
    maxCategories: positiveInt.max(10_000_000).default(decodedDefaults.maxCategories),
    /**
     * Most bytes of categories kept (the UTF-8 size of the list `GET /categories` serves); creating
     * more drops the oldest, so a few huge categories cannot make the list unservable. At most 256 MiB,
     * well under the longest string JavaScript can build.
     */
    maxCategoryBytes: positiveInt
      .min(1024)
      .max(256 * 1024 * 1024)
      .default(decodedDefaults.maxCategoryBytes),
    maxBodyBytes: positiveInt.max(1024 * 1024 * 1024).default(decodedDefaults.maxBodyBytes),
    /**
     * One memory budget, in bytes, for everything the mock keeps for its sessions in this process:
     * categories and their cached lists, request logs, rate-limit records, run-time keys and the lab, of
     * every session (with Redis, the lab only: Redis bounds the rest with its maxmemory). Past it the
     * least recently used named session is forgotten, never the default one; when only the default
     * session and the writer are left, the write is 507 store_full. The default fits a 1 GiB heap four
     * times over; at least 4 x maxCategoryBytes + 16 MiB (one session's categories and list, twice).
     */
    memoryBudgetBytes: positiveInt.max(64 * 1024 * 1024 * 1024).default(decodedDefaults.memoryBudgetBytes),
    /** Most anonymous clients (by address) tracked at once; the least recently seen are dropped past it. */
    maxTrackedClients: positiveInt.default(decodedDefaults.maxTrackedClients),
    /** How many recent requests `GET /__mock/requests` keeps. */
    requestLogSize: positiveInt.max(100_000).default(decodedDefaults.requestLogSize),
  };
}

/** Who may use the controls, and CORS. */
function accessFields(z: ZodModule) {
  return {
    /** When set, control requests must send `X-Mock-Control-Token: <token>`. */
    controlToken: z.string().min(1).optional(),
    /** Serve the control API to non-loopback clients too. */
    allowRemoteControl: z.boolean().default(decodedDefaults.allowRemoteControl),
    /**
     * Host names (besides loopback names and addresses and the mock's own address) under which the
     * controls answer; `.example.test` also allows its subdomains; `all` switches the Host check off.
     */
    allowedHosts: z
      .union([
        z.literal('all'),
        z.array(z.string().regex(hostPattern, 'must be a host name, e.g. mock.internal or .example.test')),
      ])
      .default(decodedDefaults.allowedHosts),
    cors: z.boolean().default(decodedDefaults.cors),
  };
}

/**
 * Configuration of the mock: plans, keys, the anonymous budget, the ban policy and the limits of
 * the transport. Everything has a default, so `{}` is a valid configuration. Decoded with zod from
 * YAML (`--config FILE`), from the control API, or from code.
 */
export const mockConfigSchema = onFirstUse((z) => {
  const positiveInt = z.int().positive();
  return z.strictObject({
    /** Limits of each plan; merged over the interface's plans (free, pro, business, enterprise). */
    plans: z
      .record(z.string().regex(planName, 'must be a plan name (letters, digits, - and _)'), limitsSchema())
      .default(decodedDefaults.plans),
    /** Budget of each client address for requests without a valid key (applied where `limitAnonymous` says). */
    anonymous: limitsSchema().default(decodedDefaults.anonymous),
    /**
     * Whether requests without a valid key count against `anonymous` (429, then bans). Absent: yes on
     * the Petstore's own document (interface sections 5 and 8) and whenever `anonymous` is given; no
     * on any other document, whose keyless requests are answered (or 401) as it states.
     */
    limitAnonymous: z.boolean().optional(),
    /**
     * Draw generated data afresh for every answer (Prism's `--dynamic`), the document's property
     * examples not used. Absent or false: the same request answers the same bytes, built from the
     * document's examples first (`Prefer: dynamic=true` draws afresh for one request).
     */
    dynamic: z.boolean().optional(),
    /** Keys accepted in addition to the demo keys. */
    keys: z.array(keySchema()).default(decodedDefaults.keys),
    /** Accept demo-free, demo-pro, demo-business and demo-enterprise. */
    demoKeys: z.boolean().default(decodedDefaults.demoKeys),
    ban: z
      .strictObject({
        enabled: z.boolean().default(decodedDefaults.ban.enabled),
        /** How many requests a client may send while limited (each answered 429) before it is banned. */
        threshold: positiveInt.default(decodedDefaults.ban.threshold),
        durationSeconds: positiveInt.default(decodedDefaults.ban.durationSeconds),
      })
      .default(decodedDefaults.ban),
    /** Overrides of deprecation dates, by operationId (the spec's `x-deprecation` holds placeholders). */
    deprecation: z
      .record(z.string(), z.strictObject({ deprecatedAt: isoDate().optional(), sunset: isoDate().optional() }))
      .default(decodedDefaults.deprecation),
    ...boundsFields(z),
    ...accessFields(z),
    /** Isolated worlds selected with `X-Mock-Session`: how many may be alive at once, and when an idle one is forgotten. */
    sessions: sessionsConfigSchema(),
    /** Where the state lives: absent for memory (one process); `{ url: redis://HOST:PORT/DB }` to share it between replicas. */
    store: storeConfigSchema().optional(),
    /**
     * What a deprecated operation does once the virtual clock is past its sunset date: keep serving
     * with its Deprecation and Sunset headers (`serve`, the default), or answer 410 Gone with an Error
     * (`gone`). A scenario can choose per session.
     */
    sunset: z
      .strictObject({ afterSunset: afterSunsetModeSchema().default(decodedDefaults.sunset.afterSunset) })
      .default(decodedDefaults.sunset),
    /**
     * A scenario applied to the default session before the first request (issue 12), as in a scenario
     * file (presets, keys, budgets, bans, clock, categories). Validated when the config is read;
     * `--scenario FILE` applies more after it.
     */
    scenario: scenarioSchema().optional(),
    /** A latency and faults injected into the answers (docs/mock.md#latency-and-faults, decision 042). */
    faults: faultSettingsSchema().optional(),
    /**
     * Rate-limit fields on responses: `x-ratelimit` (X-RateLimit-*), `ietf` (RateLimit-Policy and
     * RateLimit, draft-ietf-httpapi-ratelimit-headers) and `retry-after` (on a 429). Absent, the spec
     * decides: the fields its responses declare (the Petstore's: X-RateLimit-* and Retry-After). A
     * spec that declares none and no 429 is served without rate limits unless this is set.
     */
    rateLimitHeaders: z.array(z.enum(['x-ratelimit', 'ietf', 'retry-after'])).optional(),
    /**
     * Run as the judging proxy of this upstream API base URL (`https://staging.example.com/v1`) instead
     * of serving the mock: `petstore-mock proxy URL` says the same (docs/proxy.md).
     */
    proxy: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) base URL such as https://staging.example.com/v1' })
      .optional(),
  });
});

export type MockConfigInput = z.input<ReturnType<typeof mockConfigSchema>>;
export type MockConfig = z.output<ReturnType<typeof mockConfigSchema>>;

/** The plans of the interface (section 8). Enterprise is "custom": generous enough for load tests. */
export const defaultPlans: Record<string, Limits> = {
  ...Object.fromEntries(
    interfacePlans.map((plan) => [plan.name.toLowerCase(), { perMinute: plan.perMinute, perDay: plan.perDay }]),
  ),
  // The interface's custom plans (Enterprise): the mock's choice, generous enough for load tests.
  ...Object.fromEntries(customPlans.map((name) => [name.toLowerCase(), { perMinute: 1_000_000, perDay: 100_000_000 }])),
};

/** One demo key per plan, `demo-<plan>`, made from the plan table so a new plan gets its key (custom plans last). */
export const demoKeys: KeyConfig[] = [...interfacePlans.map((plan) => plan.name), ...customPlans].map((name) => ({
  key: `demo-${name.toLowerCase()}`,
  plan: name.toLowerCase(),
}));

/**
 * Decodes a configuration, or throws one readable error naming every bad field.
 *
 * @example parseMockConfig({ plans: { pro: { perMinute: 0 } } })
 * // Error: Invalid config: plans.pro.perMinute: must be a positive integer ...
 */
export function parseMockConfig(input: unknown, source = 'config'): MockConfig {
  const config = isEmptyConfig(input) ? (structuredClone(decodedDefaults) as MockConfig) : decode(input, source);
  if (config.memoryBudgetBytes < 4 * config.maxCategoryBytes + minMemoryBudgetBytes) {
    throw new Error(
      `Failed to load ${source}: memoryBudgetBytes: ${config.memoryBudgetBytes} is less than 4 x maxCategoryBytes + 16 MiB (${4 * config.maxCategoryBytes + minMemoryBudgetBytes}): a session's full categories and their list must fit, with the default session's`,
    );
  }
  const plans = { ...defaultPlans, ...config.plans };
  for (const [index, entry] of config.keys.entries()) {
    if (entry.plan !== undefined && entry.limits === undefined && planLimits(plans, entry.plan) === undefined) {
      throw new Error(
        `Failed to load ${source}: keys.${index}.plan: unknown plan "${entry.plan}" (known: ${Object.keys(plans).join(', ')})`,
      );
    }
  }
  // An `anonymous` budget written in the config asks for it to be applied (`limitAnonymous`).
  const anonymousGiven = typeof input === 'object' && input !== null && Object.hasOwn(input, 'anonymous');
  return config.limitAnonymous === undefined && anonymousGiven
    ? { ...config, plans, limitAnonymous: true }
    : { ...config, plans };
}

function decode(input: unknown, source: string): MockConfig {
  const result = mockConfigSchema().safeParse(input);
  if (!result.success) throw new Error(`Failed to load ${source}: ${describeIssues(result.error.issues)}`);
  return result.data;
}

/** No config, or a plain `{}`: the defaults, decoded without zod. */
function isEmptyConfig(input: unknown): boolean {
  if (input === undefined || input === null) return true;
  if (typeof input !== 'object' || Object.getPrototypeOf(input) !== Object.prototype) return false;
  for (const _ in input) return false;
  return true;
}

/**
 * The limits of a plan, or undefined. Looks at the plans' own properties only: "toString" is not a plan.
 *
 * @example planLimits(config.plans, 'pro') // { perMinute: 300, perDay: 10000 }
 */
export function planLimits(plans: Record<string, Limits>, plan: string): Limits | undefined {
  return Object.hasOwn(plans, plan) ? plans[plan] : undefined;
}
