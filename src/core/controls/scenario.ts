import { maskSecret } from '../../../spec/credential-masking.js';
import { keyDigestHex } from '../../../spec/interface/key-id.js';
import type { Category, NewCategory } from '../../../spec/schemas.js';
import type { MockConfig } from '../config/mock-config.js';
import {
  parseScenario,
  planScenario,
  type Scenario,
  type ScenarioClient,
  type ScenarioContext,
  type ScenarioPlan,
  scenarioPresets,
  validateScenario,
} from '../config/scenario-file.js';
import type { Authenticator } from '../pipeline/auth.js';
import type { FaultSessions } from '../state/fault-sessions.js';
import type { ApiKeyEntry } from '../state/key-registry.js';
import {
  type ClientWindows,
  type RuntimeKey,
  ScenarioRefusedError,
  type SpentCounts,
  type StateStore,
  type StoreClient,
  type StoreScenario,
} from '../state/state-store.js';

/**
 * Scenario files applied through the state store (issue 12 section 3): the same plan, whether it came
 * from `--scenario FILE`, `scenario:` in the config, `POST /__mock/scenario` or the MSW option, is
 * checked whole first (nothing is applied when any part is wrong) and then applied to one session,
 * on its virtual clock, so it works alike on the memory and the Redis store. Browser-safe.
 *
 * @example
 * const plan = prepareScenario(runtime, 'presets: [minute-almost-spent]');
 * await applyScenarioPlan(runtime, 'default', plan); // demo-free: the next request 200, Remaining 0
 */
export interface ScenarioRuntime {
  store: StateStore;
  config: MockConfig;
  auth: Authenticator;
  baseNow(): number;
  /** The sunset date (ISO, or null when none is set) of each deprecated operation. */
  sunsets(): ReadonlyMap<string, string | null>;
  /** The sessions' fault settings, which a scenario's `faults` replaces (decision 042). */
  faults?: FaultSessions;
}

/** A scenario as given: YAML (or JSON) text, or an already decoded object. */
export type ScenarioInput = string | Scenario | Record<string, unknown>;

/** What a scenario did to a session (the answer of `POST /__mock/scenario`). */
export interface AppliedScenario {
  session: string;
  description: string | null;
  /** The session's virtual clock after the scenario. */
  clock: string;
  afterSunset: 'gone' | 'serve' | null;
  keysAdded: number;
  budgetsSet: number;
  bans: number;
  categoriesCreated: number;
  /** The session's latency and faults were set by the scenario. */
  faults: boolean;
}

/** A scenario that cannot be applied: the message is one line naming the field. */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

function digestOf(key: string): string {
  return keyDigestHex(key);
}

/**
 * Decodes and plans a scenario against the mock's plans and keys: the config and demo keys, and the
 * session's run-time keys when given. Throws ScenarioError with one line (`Failed to load scenario:
 * keys.0.spentt: unknown field`). Synchronous, so a setup can refuse a bad scenario where it is written.
 */
export function prepareScenario(
  runtime: Pick<ScenarioRuntime, 'config' | 'auth'>,
  input: ScenarioInput,
  source = 'scenario',
  runtimeKeys: readonly ApiKeyEntry[] = [],
): ScenarioPlan {
  try {
    const scenario = typeof input === 'string' ? parseScenario(input, source) : validateScenario(input, source);
    return planScenario(scenario, scenarioContext(runtime, scenario, runtimeKeys), source);
  } catch (error) {
    throw new ScenarioError((error as Error).message);
  }
}

/** The plans and the keys a scenario names that the mock (or the session) already knows. */
function scenarioContext(
  runtime: Pick<ScenarioRuntime, 'config' | 'auth'>,
  scenario: Scenario,
  runtimeKeys: readonly ApiKeyEntry[],
): ScenarioContext {
  const named = new Set<string>();
  for (const preset of scenario.presets ?? [])
    for (const entry of scenarioPresets[preset].scenario.keys ?? []) named.add(entry.key);
  for (const entry of scenario.keys ?? []) named.add(entry.key);
  const byId = new Map(runtimeKeys.map((entry) => [entry.id, entry]));
  const knownKeys: ScenarioContext['knownKeys'] = {};
  for (const key of named) {
    // A key added to the session at run time shadows a config key, as it does for requests.
    const entry = byId.get(digestOf(key).slice(0, 32)) ?? runtime.auth.configKey(key);
    if (entry)
      Object.defineProperty(knownKeys, key, {
        value: { plan: entry.plan, limits: { ...entry.limits } },
        enumerable: true,
      });
  }
  return {
    plans: runtime.config.plans,
    knownKeys,
    anonymous: runtime.config.anonymous,
    banDurationSeconds: runtime.config.ban.durationSeconds,
  };
}

function storeClient(client: ScenarioClient): StoreClient {
  return 'key' in client
    ? { kind: 'key', id: digestOf(client.key).slice(0, 32) }
    : { kind: 'anonymous', address: client.address };
}

/**
 * Applies a planned scenario to `session` in one step of the store (`StateStore.applyScenario`):
 * everything that can refuse it (a clock that would go back or run more than 100 years ahead, a sunset
 * date that is not set, a category larger than maxCategoryBytes, the memory budget) is checked before
 * the first change, so a refused scenario changes nothing, on either store. The steps then run in the
 * plan's order (clock, sunset mode, keys, budgets, bans, categories): budgets and bans start at the
 * scenario's clock.
 */
export async function applyScenarioPlan(
  runtime: ScenarioRuntime,
  session: string,
  plan: ScenarioPlan,
  source = 'scenario',
): Promise<AppliedScenario> {
  const base = runtime.baseNow();
  const scenario = storeScenarioOf(runtime, plan, source);
  let offsetMs: number;
  try {
    ({ offsetMs } = await runtime.store.applyScenario(session, scenario, base));
  } catch (error) {
    if (error instanceof ScenarioRefusedError)
      throw new ScenarioError(`Failed to load ${source}: ${refusedField(error, plan)}: ${error.message}`);
    // A step no store takes (a client's address, a count out of range): named by the store's own words.
    if (error instanceof RangeError) throw new ScenarioError(`Failed to load ${source}: ${error.message}`);
    throw error;
  }
  // Applied once the store took the rest: a refused scenario changes nothing.
  if (plan.faults !== undefined) runtime.faults?.set(session, plan.faults);
  return {
    session,
    faults: plan.faults !== undefined,
    description: plan.description,
    clock: new Date(base + offsetMs).toISOString(),
    afterSunset: scenario.afterSunset ?? null,
    keysAdded: scenario.keys.length,
    budgetsSet: scenario.spends.length + (scenario.clients?.length ?? 0),
    bans: scenario.bans.length,
    categoriesCreated: scenario.categories.length + (scenario.categoryList?.length ?? 0),
  };
}

/** The plan as the store applies it: keys with their digests, clients by id, the clock as a move the store checks against the session's. */
function storeScenarioOf(runtime: ScenarioRuntime, plan: ScenarioPlan, source: string): StoreScenario {
  let clock: StoreScenario['clock'];
  let afterSunset: StoreScenario['afterSunset'];
  const keys: RuntimeKey[] = [];
  const spends: { client: StoreClient; spent: SpentCounts }[] = [];
  const bans: { client: StoreClient; ms: number }[] = [];
  const categories: NewCategory[] = [];
  const clients: { client: StoreClient; windows: ClientWindows }[] = [];
  let categoryList: Category[] | undefined;
  for (const operation of plan.operations) {
    if (operation.op === 'setClock') clock = clockMove(runtime, operation.to, source);
    else if (operation.op === 'setAfterSunset') afterSunset = operation.mode;
    else if (operation.op === 'spendBudget')
      spends.push({ client: storeClient(operation.client), spent: { minute: operation.minute, day: operation.day } });
    else if (operation.op === 'ban') bans.push({ client: storeClient(operation.client), ms: operation.seconds * 1000 });
    else if (operation.op === 'setWindows')
      clients.push({ client: storeClient(operation.client), windows: { ...operation.windows } });
    else if (operation.op === 'restoreCategories')
      categoryList = operation.categories.map((category) => ({ ...category }));
    else if (operation.op === 'createCategory')
      categories.push(
        operation.description === undefined
          ? { name: operation.name }
          : { name: operation.name, description: operation.description },
      );
    else {
      const digest = digestOf(operation.key);
      keys.push({
        masked: maskSecret(operation.key),
        plan: operation.plan,
        limits: { ...operation.limits },
        id: digest.slice(0, 32),
        digest,
      });
    }
  }
  return {
    ...(clock === undefined ? {} : { clock }),
    ...(afterSunset === undefined ? {} : { afterSunset }),
    keys,
    spends,
    bans,
    categories,
    ...(clients.length === 0 ? {} : { clients }),
    ...(categoryList === undefined ? {} : { categoryList }),
  };
}

/** A scenario clock as a store's move: an offset ahead, an instant, or just past every sunset date. */
function clockMove(
  runtime: ScenarioRuntime,
  to: Extract<ScenarioPlan['operations'][number], { op: 'setClock' }>['to'],
  source: string,
): StoreScenario['clock'] {
  if (to.kind === 'offset') return { kind: 'advance', ms: to.seconds * 1000 };
  if (to.kind === 'instant') return { kind: 'to', atMs: to.atMs };
  const sunsets = [...runtime.sunsets().values()]
    .filter((value): value is string => value !== null)
    .map((value) => Date.parse(value));
  if (sunsets.length === 0)
    throw new ScenarioError(
      `Failed to load ${source}: clock.at: after-sunset needs a deprecated operation with a sunset date (x-deprecation in the spec, or deprecation.<operationId>.sunset in the config)`,
    );
  // Past every sunset date; a clock already past them stays where it is.
  return { kind: 'atLeast', atMs: Math.max(...sunsets) + to.seconds * 1000 };
}

/** The scenario field a store's refusal is about. */
function refusedField(error: ScenarioRefusedError, plan: ScenarioPlan): string {
  if (error.part === 'category') return `categories.${error.index}`;
  const clock = plan.operations.find((operation) => operation.op === 'setClock');
  return clock !== undefined && clock.op === 'setClock' && clock.to.kind === 'offset'
    ? 'clock.offsetSeconds'
    : 'clock.at';
}

/** The presets as `GET /__mock/scenario/presets` lists them. */
export function scenarioPresetList(): { name: string; description: string; scenario: Scenario }[] {
  return Object.entries(scenarioPresets).map(([name, preset]) => ({
    name,
    description: preset.description,
    scenario: preset.scenario,
  }));
}

/** How a snapshot's clients are named in a scenario: a key by its pseudonym, an address by its. */
export interface SnapshotNaming {
  /** The key's name in the scenario (the export: its pseudonym) and its plan, by key id; undefined: left out. */
  key(id: string): { key: string; plan: string; limits: { perMinute: number; perDay: number } } | undefined;
  address(address: string): string;
}

/**
 * A store snapshot (`StateStore.snapshot`, `startingState`) as a scenario file says it: keys with their
 * plan and limits and exact windows, anonymous clients the same, the categories with their ids (the
 * list replaced), the after-sunset mode. The clock is not in it (the export line carries the time).
 * A key the naming does not know is left out (counted in `omitted`).
 *
 * @example scenarioOfSnapshot(await store.snapshot('default', now), { key: (id) => ..., address: anonymousPseudonym })
 */
export function scenarioOfSnapshot(
  state: StoreScenario,
  naming: SnapshotNaming,
): { scenario: Scenario; omitted: number } {
  const iso = (ms: number) => new Date(ms).toISOString();
  const windowsOf = (windows: ClientWindows) => ({
    minuteStart: iso(windows.minuteStartMs),
    minute: windows.minuteCount,
    dayStart: iso(windows.dayStartMs),
    day: windows.dayCount,
    strikes: windows.strikes,
    bannedUntil: windows.bannedUntilMs === null ? null : iso(windows.bannedUntilMs),
  });
  const keys = new Map<string, NonNullable<Scenario['keys']>[number]>();
  let omitted = 0;
  for (const key of state.keys) {
    const named = naming.key(key.id);
    if (named) keys.set(key.id, { key: named.key, plan: named.plan, limits: { ...named.limits } });
  }
  const anonymous: NonNullable<Scenario['anonymous']> = [];
  for (const { client, windows } of state.clients ?? []) {
    if (client.kind === 'anonymous') {
      anonymous.push({ address: naming.address(client.address), windows: windowsOf(windows) });
      continue;
    }
    const named = naming.key(client.id);
    if (!named) {
      omitted += 1;
      continue;
    }
    keys.set(client.id, { key: named.key, plan: named.plan, limits: { ...named.limits }, windows: windowsOf(windows) });
  }
  const scenario: Scenario = {};
  if (keys.size > 0) scenario.keys = [...keys.values()];
  if (anonymous.length > 0) scenario.anonymous = anonymous;
  if (state.categoryList !== undefined) scenario.categories = state.categoryList.map((category) => ({ ...category }));
  if (state.afterSunset !== undefined) scenario.sunset = { afterSunset: state.afterSunset };
  return { scenario, omitted };
}
