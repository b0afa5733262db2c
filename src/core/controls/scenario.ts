import { sha256 } from '@noble/hashes/sha2.js';
import { parseScenario, planScenario, scenarioPresets, validateScenario, type Scenario, type ScenarioClient, type ScenarioContext, type ScenarioPlan } from '../config/scenario-file.js';
import { maskSecret, toHex, type ApiKeyEntry } from '../state/key-registry.js';
import type { MockConfig } from '../config/mock-config.js';
import type { StateStore, StoreClient } from '../state/state-store.js';
import type { Authenticator } from '../pipeline/auth.js';

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
}

/** A scenario that cannot be applied: the message is one line naming the field. */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

const encoder = new TextEncoder();

function digestOf(key: string): string {
  return toHex(sha256(encoder.encode(key)));
}

/**
 * Decodes and plans a scenario against the mock's plans and keys: the config and demo keys, and the
 * session's run-time keys when given. Throws ScenarioError with one line (`Failed to load scenario:
 * keys.0.spentt: unknown field`). Synchronous, so a setup can refuse a bad scenario where it is written.
 */
export function prepareScenario(runtime: Pick<ScenarioRuntime, 'config' | 'auth'>, input: ScenarioInput, source = 'scenario', runtimeKeys: readonly ApiKeyEntry[] = []): ScenarioPlan {
  try {
    const scenario = typeof input === 'string' ? parseScenario(input, source) : validateScenario(input, source);
    return planScenario(scenario, scenarioContext(runtime, scenario, runtimeKeys), source);
  } catch (error) {
    throw new ScenarioError((error as Error).message);
  }
}

/** The plans and the keys a scenario names that the mock (or the session) already knows. */
function scenarioContext(runtime: Pick<ScenarioRuntime, 'config' | 'auth'>, scenario: Scenario, runtimeKeys: readonly ApiKeyEntry[]): ScenarioContext {
  const named = new Set<string>();
  for (const preset of scenario.presets ?? []) for (const entry of scenarioPresets[preset].scenario.keys ?? []) named.add(entry.key);
  for (const entry of scenario.keys ?? []) named.add(entry.key);
  const byId = new Map(runtimeKeys.map((entry) => [entry.id, entry]));
  const knownKeys: ScenarioContext['knownKeys'] = {};
  for (const key of named) {
    // A key added to the session at run time shadows a config key, as it does for requests.
    const entry = byId.get(digestOf(key).slice(0, 32)) ?? runtime.auth.configKey(key);
    if (entry) Object.defineProperty(knownKeys, key, { value: { plan: entry.plan, limits: { ...entry.limits } }, enumerable: true });
  }
  return { plans: runtime.config.plans, knownKeys, anonymous: runtime.config.anonymous, banDurationSeconds: runtime.config.ban.durationSeconds };
}

function storeClient(client: ScenarioClient): StoreClient {
  return 'key' in client ? { kind: 'key', id: digestOf(client.key).slice(0, 32) } : { kind: 'anonymous', address: client.address };
}

/**
 * Applies a planned scenario to `session`. Everything that can be refused (a clock that would go
 * back, a sunset date that is not set) is checked before the first change; then the steps run in the
 * plan's order (clock, sunset mode, keys, budgets, bans, categories), so budgets and bans start at the
 * scenario's clock.
 */
export async function applyScenarioPlan(runtime: ScenarioRuntime, session: string, plan: ScenarioPlan, source = 'scenario'): Promise<AppliedScenario> {
  const base = runtime.baseNow();
  const offsetMs = await runtime.store.clockOffset(session, base);
  const nowMs = base + offsetMs;
  // The clock step first, as an advance: the virtual clock never goes back.
  let advanceMs = 0;
  for (const operation of plan.operations) {
    if (operation.op !== 'setClock') continue;
    const to = operation.to;
    if (to.kind === 'offset') {
      advanceMs = to.seconds * 1000;
    } else if (to.kind === 'instant') {
      if (to.atMs < nowMs) throw new ScenarioError(`Failed to load ${source}: clock.at: ${new Date(to.atMs).toISOString()} is before the session's clock (${new Date(nowMs).toISOString()}); the virtual clock only moves forward (use a new X-Mock-Session, or clock.offsetSeconds)`);
      advanceMs = to.atMs - nowMs;
    } else {
      const sunsets = [...runtime.sunsets().values()].filter((value): value is string => value !== null).map((value) => Date.parse(value));
      if (sunsets.length === 0) throw new ScenarioError(`Failed to load ${source}: clock.at: after-sunset needs a deprecated operation with a sunset date (x-deprecation in the spec, or deprecation.<operationId>.sunset in the config)`);
      // Past every sunset date; a clock already past them stays where it is.
      advanceMs = Math.max(0, Math.max(...sunsets) + to.seconds * 1000 - nowMs);
    }
  }
  const applied: AppliedScenario = { session, description: plan.description, clock: '', afterSunset: null, keysAdded: 0, budgetsSet: 0, bans: 0, categoriesCreated: 0 };
  if (advanceMs > 0) await runtime.store.advanceClock(session, advanceMs, base);
  for (const operation of plan.operations) {
    switch (operation.op) {
      case 'setClock':
        break;
      case 'setAfterSunset':
        await runtime.store.setAfterSunset(session, operation.mode, base);
        applied.afterSunset = operation.mode;
        break;
      case 'addKey': {
        const digest = digestOf(operation.key);
        await runtime.store.addKey(session, { masked: maskSecret(operation.key), plan: operation.plan, limits: { ...operation.limits }, id: digest.slice(0, 32), digest }, base);
        applied.keysAdded += 1;
        break;
      }
      case 'spendBudget':
        await runtime.store.setSpent(session, storeClient(operation.client), { minute: operation.minute, day: operation.day }, base);
        applied.budgetsSet += 1;
        break;
      case 'ban':
        await runtime.store.ban(session, storeClient(operation.client), operation.seconds * 1000, base);
        applied.bans += 1;
        break;
      case 'createCategory':
        await runtime.store.createCategory(session, operation.description === undefined ? { name: operation.name } : { name: operation.name, description: operation.description }, base);
        applied.categoriesCreated += 1;
        break;
    }
  }
  applied.clock = new Date(base + (await runtime.store.clockOffset(session, base))).toISOString();
  return applied;
}

/** The presets as `GET /__mock/scenario/presets` lists them. */
export function scenarioPresetList(): { name: string; description: string; scenario: Scenario }[] {
  return Object.entries(scenarioPresets).map(([name, preset]) => ({ name, description: preset.description, scenario: preset.scenario }));
}

