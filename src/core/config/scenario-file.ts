import type * as z from 'zod';
import { onFirstUse } from '../../../spec/zod-module.js';
import { describeIssues, isoDate, isWellFormed, keyFields, type Limits } from './decoding.js';
import { type FaultSettings, faultSettingsSchema, flakyNetworkFaults } from './fault-config.js';
import {
  type CategoryOperation,
  categoryOperations,
  clientWindowsSchema,
  type ExactWindows,
  exactWindows,
  scenarioCategoriesSchema,
} from './scenario-windows.js';
import { afterSunsetModeSchema } from './store-config.js';
import { readYamlText } from './yaml-text.js';

/**
 * Scenario files (issue 12 section 3): the state a session starts from, in one step: keys with their
 * plan or limits and the budget already spent in either window, keys or anonymous clients banned for
 * N seconds, the clock at an instant or offset (or just past the sunset date), categories, and what the
 * deprecated operation does after its sunset. `--scenario FILE`, `POST /__mock/scenario` and the MSW
 * option all read the same YAML, validated like the config (unknown fields refused by name, one line).
 *
 * The result is a plain `ScenarioPlan`, an ordered list of small operations the integration applies
 * through the state store. Browser-safe.
 *
 * @example
 * const scenario = parseScenario(`presets: [minute-almost-spent]\nkeys:\n  - key: team-key\n    plan: pro\n    spent: { day: full }\n`);
 * const plan = planScenario(scenario, { plans, knownKeys, banDurationSeconds: 900 });
 */

export const scenarioPresetNames = [
  'minute-almost-spent',
  'minute-spent',
  'day-almost-spent',
  'day-spent',
  'banned-key',
  'after-sunset',
  'after-sunset-gone',
  'flaky-network',
] as const;
export type ScenarioPresetName = (typeof scenarioPresetNames)[number];

/** The scenario file's schema and its parts, made with zod when a scenario is first read. */
const scenarioSchemas = onFirstUse((z) => {
  /** A count of requests, or `full` (the whole window), or `one-left` (all but one). */
  const spentMessage = 'must be a whole number >= 0, "full" or "one-left"';
  // A refine, not min(0): describeIssues words every small minimum as "a positive integer".
  const spentAmount = z.union(
    [z.int().refine((count) => count >= 0 && count <= 1_000_000_000, spentMessage), z.enum(['full', 'one-left'])],
    { error: spentMessage },
  );
  const Spent = z.strictObject({ minute: spentAmount.optional(), day: spentAmount.optional() });
  /** Banned for this many seconds from the scenario's clock, or `policy`: the ban policy's duration. */
  const bannedSeconds = z
    .union(
      [
        z
          .int()
          .positive()
          .max(30 * 86_400),
        z.literal('policy'),
      ],
      {
        error: 'must be a whole number of seconds (1 to 2592000) or "policy"',
      },
    )
    .optional();

  const ScenarioKey = z.strictObject({
    ...keyFields(),
    /** Requests already counted in the current minute and day windows. */
    spent: Spent.optional(),
    bannedSeconds,
    windows: clientWindowsSchema().optional(),
  });

  const ScenarioAnonymous = z.strictObject({
    /** The client address (in the browser, the MSW setup's fixed name). */
    address: z.string().min(1).max(200).refine(isWellFormed, 'must be well-formed Unicode (no lone surrogate)'),
    spent: Spent.optional(),
    bannedSeconds,
    windows: clientWindowsSchema().optional(),
  });

  const scenario = z.strictObject({
    /** What the scenario reproduces, for whoever reads it. */
    description: z.string().max(2_000).optional(),
    /** Named presets, applied first, in order (see `scenarioPresets`). */
    presets: z
      .array(z.enum(scenarioPresetNames, { error: `must be a preset: ${scenarioPresetNames.join(', ')}` }))
      .max(20)
      .optional(),
    clock: z
      .strictObject({
        /** An instant (ISO 8601), or "after-sunset": one second past the deprecated operation's sunset date. */
        at: z.union([isoDate(), z.literal('after-sunset')]).optional(),
        /** Seconds ahead of now. */
        offsetSeconds: z
          .int()
          .min(0)
          .max(100 * 365 * 86_400)
          .optional(),
      })
      .refine((clock) => (clock.at === undefined) !== (clock.offsetSeconds === undefined), {
        message: 'give either at or offsetSeconds',
      })
      .optional(),
    keys: z.array(ScenarioKey).max(10_000).optional(),
    anonymous: z.array(ScenarioAnonymous).max(10_000).optional(),
    /** Categories to create; with ids (consecutive, ascending, all or none), the session's list replaced by exactly these. */
    categories: scenarioCategoriesSchema().optional(),
    sunset: z.strictObject({ afterSunset: afterSunsetModeSchema() }).optional(),
    /** The session's latency and faults (decision 042), replacing the config's. */
    faults: faultSettingsSchema().optional(),
  });
  return { spent: Spent, anonymous: ScenarioAnonymous, scenario };
});

/** A scenario file, as `parseScenario` decodes it. */
export const scenarioSchema = (): ReturnType<typeof scenarioSchemas>['scenario'] => scenarioSchemas().scenario;
export type Scenario = z.output<ReturnType<typeof scenarioSchema>>;

/** The presets: what each sets up, for `--help`, the README and `GET /__mock/scenario/presets`. */
export const scenarioPresets: Record<ScenarioPresetName, { description: string; scenario: Scenario }> = {
  'minute-almost-spent': {
    description: 'demo-free is one request from its minute limit: the next request is served, the one after is a 429',
    scenario: { keys: [{ key: 'demo-free', spent: { minute: 'one-left' } }] },
  },
  'minute-spent': {
    description: 'demo-free has spent its minute: the next request is a 429 with Retry-After 60',
    scenario: { keys: [{ key: 'demo-free', spent: { minute: 'full' } }] },
  },
  'day-almost-spent': {
    description:
      'demo-free is one request from its day limit: the next request is served, then 429s until the day window ends',
    scenario: { keys: [{ key: 'demo-free', spent: { day: 'one-left' } }] },
  },
  'day-spent': {
    description:
      'demo-free has spent its day: every request is a 429 whose Retry-After is about a day, whatever the minute says',
    scenario: { keys: [{ key: 'demo-free', spent: { day: 'full' } }] },
  },
  'banned-key': {
    description:
      "demo-free is banned for the ban policy's duration (900 s by default): every request is a 429 key_banned",
    scenario: { keys: [{ key: 'demo-free', bannedSeconds: 'policy' }] },
  },
  'after-sunset': {
    description:
      'the clock is one second past the sunset date of the deprecated GET /pets/{petId}; it keeps serving with its Deprecation and Sunset headers',
    scenario: { clock: { at: 'after-sunset' }, sunset: { afterSunset: 'serve' } },
  },
  'after-sunset-gone': {
    description:
      'the clock is one second past the sunset date, and the deprecated GET /pets/{petId} answers 410 Gone with an Error',
    scenario: { clock: { at: 'after-sunset' }, sunset: { afterSunset: 'gone' } },
  },
  'flaky-network': {
    description:
      'every answer waits 50-300 ms; of the requests, about 5 % are reset, 5 % answer a declared 5xx (or 429), 3 % drip their body over 2 s, 2 % get no answer for 10 s (timeout), drawn from the seed',
    scenario: { faults: flakyNetworkFaults },
  },
};

/** Who a budget or a ban is for: a key, or an anonymous client by address. */
export type ScenarioClient = { key: string } | { address: string };

/** One step of a scenario, applied in order through the state store. */
export type ScenarioOperation =
  | {
      op: 'setClock';
      to:
        | { kind: 'instant'; atMs: number }
        | { kind: 'offset'; seconds: number }
        | { kind: 'after-sunset'; seconds: number };
    }
  | { op: 'setAfterSunset'; mode: 'gone' | 'serve' }
  | { op: 'addKey'; key: string; plan: string; limits: Limits }
  | { op: 'spendBudget'; client: ScenarioClient; minute: number; day: number }
  | { op: 'ban'; client: ScenarioClient; seconds: number }
  | { op: 'setWindows'; client: ScenarioClient; windows: ExactWindows }
  | CategoryOperation;

export interface ScenarioPlan {
  description: string | null;
  operations: ScenarioOperation[];
  /** The session's latency and faults, when the scenario (or a preset of it) sets them. */
  faults?: FaultSettings;
}

/**
 * Reads a scenario from YAML (or JSON) text; throws one line naming every bad field.
 *
 * @example parseScenario('keys:\n  - key: demo-free\n    spnet: {}\n') // Error: Failed to load scenario: keys.0.spnet: unknown field
 */
export function parseScenario(text: string, source = 'scenario'): Scenario {
  let value: unknown;
  try {
    value = readYamlText(text);
  } catch (error) {
    throw new Error(`Failed to load ${source}: not valid YAML (${(error as Error).message})`);
  }
  // A file that is not a scenario at all (`--scenario /etc/passwd`) is named, never quoted.
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length > 0 && !keys.some((key) => Object.hasOwn(scenarioSchema().shape, key))) {
      throw new Error(
        `Failed to load ${source}: none of its ${keys.length} top-level keys is a scenario field (${Object.keys(scenarioSchema().shape).join(', ')}); is it the right file?`,
      );
    }
  }
  return validateScenario(value ?? {}, source);
}

/** Validates an already decoded scenario (the body of `POST /__mock/scenario`, the MSW option). */
export function validateScenario(value: unknown, source = 'scenario'): Scenario {
  const result = scenarioSchema().safeParse(value);
  if (!result.success) throw new Error(`Failed to load ${source}: ${describeScenarioIssues(result.error.issues)}`);
  return result.data;
}

/** Like the config's messages, but an unknown field is named with its path: `keys.0.spentt: unknown field`. */
export function describeScenarioIssues(issues: readonly z.core.$ZodIssue[]): string {
  const unknown: string[] = [];
  const others: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') {
      others.push(issue);
      continue;
    }
    const where = issue.path.map((segment) => String(segment)).join('.');
    for (const key of issue.keys.slice(0, 3)) {
      const name = /^[A-Za-z0-9_-]{1,40}$/.test(key)
        ? key
        : JSON.stringify(key.length > 30 ? `${key.slice(0, 30)}…` : key);
      unknown.push(`${where === '' ? '' : `${where}.`}${name}: unknown field`);
    }
  }
  return [...unknown.slice(0, 5), ...(others.length > 0 ? [describeIssues(others)] : [])].join('; ');
}

type ClientParts = Pick<
  z.output<ReturnType<typeof scenarioSchemas>['anonymous']>,
  'spent' | 'windows' | 'bannedSeconds'
>;

export interface ScenarioContext {
  /** The mock's plans (config plans merged over the interface's). */
  plans: Record<string, Limits>;
  /** Keys the mock already accepts (demo and config keys), with their plan and limits. */
  knownKeys: Record<string, { plan: string; limits: Limits }>;
  /** The anonymous budget. */
  anonymous: Limits;
  /** The ban policy's duration: what the `banned-key` preset bans for. */
  banDurationSeconds: number;
}

/**
 * Turns a scenario into the operations that set it up: presets first, then the file's own parts, in
 * the order clock, sunset, keys, budgets, bans, categories (budgets are spent in windows that start
 * at the scenario's clock). Throws one line when something cannot be applied (an unknown plan, a key
 * the mock does not know and the scenario gives no plan for, more spent than the window holds).
 */
export function planScenario(scenario: Scenario, context: ScenarioContext, source = 'scenario'): ScenarioPlan {
  const parts: Scenario[] = [...(scenario.presets ?? []).map((name) => scenarioPresets[name].scenario), scenario];
  const clockOps: ScenarioOperation[] = [];
  const sunsetOps: ScenarioOperation[] = [];
  const keyOps: ScenarioOperation[] = [];
  const spendOps: ScenarioOperation[] = [];
  const banOps: ScenarioOperation[] = [];
  const windowOps: ScenarioOperation[] = [];
  const categoryOps: ScenarioOperation[] = [];
  let faults: FaultSettings | undefined;
  const keyLimits = new Map<string, Limits>(
    Object.entries(context.knownKeys).map(([key, entry]) => [key, entry.limits]),
  );
  const fail = (where: string, message: string): never => {
    throw new Error(`Failed to load ${source}: ${where}: ${message}`);
  };
  // A client's budget, exact windows and ban, in the order they are applied (windows, budgets, bans).
  const clientOps = (client: ScenarioClient, entry: ClientParts, limits: Limits, where: string) => {
    if (entry.spent) spendOps.push({ op: 'spendBudget', client, ...spentCounts(entry.spent, limits, where, fail) });
    if (entry.windows !== undefined) windowOps.push({ op: 'setWindows', client, windows: exactWindows(entry.windows) });
    const seconds = entry.bannedSeconds === 'policy' ? context.banDurationSeconds : entry.bannedSeconds;
    if (seconds !== undefined) banOps.push({ op: 'ban', client, seconds });
  };
  parts.forEach((part, partIndex) => {
    const prefix = partIndex < parts.length - 1 ? `preset ${scenario.presets![partIndex]}: ` : '';
    if (part.clock) {
      const to: Extract<ScenarioOperation, { op: 'setClock' }>['to'] =
        part.clock.offsetSeconds !== undefined
          ? { kind: 'offset', seconds: part.clock.offsetSeconds }
          : part.clock.at === 'after-sunset'
            ? { kind: 'after-sunset', seconds: 1 }
            : { kind: 'instant', atMs: Date.parse(part.clock.at!) };
      clockOps.splice(0, clockOps.length, { op: 'setClock', to });
    }
    if (part.sunset) sunsetOps.splice(0, sunsetOps.length, { op: 'setAfterSunset', mode: part.sunset.afterSunset });
    if (part.faults !== undefined) faults = part.faults;
    (part.keys ?? []).forEach((entry, index) => {
      const where = `${prefix}keys.${index}`;
      let limits = keyLimits.get(entry.key);
      if (entry.plan !== undefined || entry.limits !== undefined) {
        const plan = entry.limits && entry.plan === undefined ? 'custom' : entry.plan!;
        limits = entry.limits ?? (Object.hasOwn(context.plans, plan) ? context.plans[plan] : undefined);
        if (!limits) fail(`${where}.plan`, `unknown plan "${plan}" (known: ${Object.keys(context.plans).join(', ')})`);
        keyOps.push({ op: 'addKey', key: entry.key, plan, limits: { ...limits! } });
        keyLimits.set(entry.key, limits!);
      } else if (!limits) {
        fail(`${where}.key`, 'not a key the mock knows; give it a plan or limits');
      }
      clientOps({ key: entry.key }, entry, limits!, where);
    });
    (part.anonymous ?? []).forEach((entry, index) => {
      clientOps({ address: entry.address }, entry, context.anonymous, `${prefix}anonymous.${index}`);
    });
    const categories = categoryOperations(part.categories ?? []);
    // A list with ids is the session's list, exactly: it replaces the categories of the parts before too.
    if (categories[0]?.op === 'restoreCategories') categoryOps.splice(0, categoryOps.length, ...categories);
    else categoryOps.push(...categories);
  });
  return {
    description: scenario.description ?? null,
    operations: [...clockOps, ...sunsetOps, ...keyOps, ...windowOps, ...spendOps, ...banOps, ...categoryOps],
    ...(faults === undefined ? {} : { faults }),
  };
}

/**
 * The counts to put in the windows. A request counts in both windows, so the day holds at least what
 * the minute holds: `spent: { minute: 59 }` on a fresh key is 59 in the minute and 59 in the day.
 */
function spentCounts(
  spent: z.output<ReturnType<typeof scenarioSchemas>['spent']>,
  limits: Limits,
  where: string,
  fail: (where: string, message: string) => never,
): { minute: number; day: number } {
  const resolve = (
    amount: number | 'full' | 'one-left' | undefined,
    limit: number,
    window: 'minute' | 'day',
  ): number => {
    if (amount === undefined) return 0;
    if (amount === 'full') return limit;
    if (amount === 'one-left') return limit - 1;
    if (amount > limit) fail(`${where}.spent.${window}`, `${amount} is more than the ${window} limit of ${limit}`);
    return amount;
  };
  const day = resolve(spent.day, limits.perDay, 'day');
  const minute = Math.min(resolve(spent.minute, limits.perMinute, 'minute'), limits.perDay);
  // A day spent to the full leaves no room in the minute; a spent minute is counted in the day too.
  return { minute, day: Math.max(day, minute) };
}

/**
 * Several scenarios as one, in order (the config's, then each `--scenario FILE`): presets, keys,
 * anonymous clients and categories are joined; the last clock and sunset choice win; a key named
 * twice gets the later file's settings applied after the earlier ones.
 *
 * @example mergeScenarios([{ presets: ['banned-key'] }, { clock: { offsetSeconds: 60 } }]) // { presets: ['banned-key'], clock: { offsetSeconds: 60 } }
 */
export function mergeScenarios(scenarios: readonly Scenario[]): Scenario {
  const merged: Scenario = {};
  const join = <T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined =>
    a === undefined ? b : b === undefined ? a : [...a, ...b];
  for (const scenario of scenarios) {
    if (scenario.description !== undefined)
      merged.description = (
        merged.description === undefined ? scenario.description : `${merged.description}; ${scenario.description}`
      ).slice(0, 2_000);
    const presets = join(merged.presets, scenario.presets);
    if (presets !== undefined) merged.presets = presets;
    if (scenario.clock !== undefined) merged.clock = scenario.clock;
    const keys = join(merged.keys, scenario.keys);
    if (keys !== undefined) merged.keys = keys;
    const anonymous = join(merged.anonymous, scenario.anonymous);
    if (anonymous !== undefined) merged.anonymous = anonymous;
    const categories = join(merged.categories, scenario.categories);
    if (categories !== undefined) merged.categories = categories;
    if (scenario.sunset !== undefined) merged.sunset = scenario.sunset;
    if (scenario.faults !== undefined) merged.faults = scenario.faults;
  }
  return merged;
}

/** The presets as lines for `--help` and the README. */
export function describeScenarioPresets(indent = '  '): string {
  const width = Math.max(...scenarioPresetNames.map((name) => name.length));
  return scenarioPresetNames
    .map((name) => `${indent}${name.padEnd(width)}  ${scenarioPresets[name].description}`)
    .join('\n');
}
