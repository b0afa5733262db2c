import type { SpecModel } from '../../spec/interface/spec-model.js';
import type { ContractTarget } from './contract-target.js';
import type { Evidence, Exchange } from './exchange.js';
import type { ApiRequest } from './http-client.js';
import type { RunState } from './run-state.js';

/** How a check presents itself: the interface rule it comes from, and what it tries. */
export interface CheckDefinition {
  /** Stable id, used by expectation files: `auth.missing-key:listCategories`. */
  id: string;
  /** The interface rule: `§5.3`, `§4 createCategory.1`, `§8`. */
  rule: string;
  /** What is checked, in the words of the rule: `missing Authorization -> 401 + Error`. */
  title: string;
  /** The operation it aims at, as `METHOD /path`, when there is one. */
  operation?: string;
  /** Spec operationId, for `x-stability`: failures of experimental/beta operations are warnings unless --strict. */
  operationId?: string;
  /** Sends POST requests: skipped under --read-only (a broken server could create data from any POST). */
  writes?: boolean;
  /**
   * Most requests that could create a category (a POST, or any request with a body) the check may
   * send, from the run's options: the runner adds them up into the bound it prints before the
   * first one, and refuses to send one past it. Any check that may POST declares it.
   *
   * @example maxCreates: (target) => target.propertyRuns
   */
  maxCreates?: (target: ContractTarget) => number | Promise<number>;
  /**
   * The check's creations are the run's bulk (list.all: enough categories to cross page sizes): it
   * draws on what --create-budget has left once every other check has its share, and is
   * INCONCLUSIVE, naming --create-budget, when that is less than it needs.
   */
  bulkCreates?: boolean;
}

/** One check as data: what it is, and the function that runs it. */
export interface CheckSpec extends CheckDefinition {
  run: (run: CheckRun) => Promise<void>;
}

/**
 * A group of checks the report shows together. `concurrent` areas run their checks side by side
 * (up to --concurrency); `sequential` ones one after the other, alone, because they read the
 * rate budget of a key and other traffic would blur it; `exclusive` ones additionally run with
 * nothing else in flight (see `runChecks`).
 */
export interface CheckArea {
  name: string;
  mode: 'concurrent' | 'sequential';
  checks: CheckSpec[];
}

/** What a check's body works with. */
export interface CheckRun {
  readonly target: ContractTarget;
  readonly spec: SpecModel;
  readonly state: RunState;
  /** Sends a request on behalf of this check (paced, timed out, bounded, recorded). */
  send(request: ApiRequest): Promise<Exchange>;
  /** `Bearer <main key>`, or of another key. */
  bearer(key?: string): string;
  /** A name for created data: `contract-test-<runId>-<label>`, recognisable because the interface has no delete. */
  categoryName(label: string): string;
  /** How many requests that could create data this check may still send (its share of --create-budget). */
  creationsLeft(): number;
  /** Ends the check as INFO: the interface leaves this open, here is what the server does. */
  info(message: string, evidence?: Evidence[]): void;
  /** Ends the check as WARN (it still counts as conforming). */
  warn(message: string, evidence?: Evidence[]): void;
  /** A note on a passing check (shown in the report). */
  note(message: string): void;
  /** Ends the check as SKIP with a reason (a deliberate skip: an option is missing). */
  skip(reason: string): never;
  /** Ends the check as SKIP because something outside its rule stopped it: the run is INCONCLUSIVE. */
  inconclusive(reason: string): never;
  /** Counts the deterministic cases the check tried (shown in the coverage matrix). */
  cases(count: number): void;
  /** Counts responses judged without sending (checks over the run's exchanges). */
  judged(count: number): void;
}

/** The meta a check leaves for the runner: outcome, message, evidence, counts. */
export interface CheckMeta {
  outcome: 'info' | 'warn' | undefined;
  message: string | undefined;
  evidence: Evidence[];
  requests: number;
  /** Responses this check saw or judged: a PASS needs at least one. */
  observed: number;
  cases: number | undefined;
}

export { OverBudget, SkipCheck } from './check-errors.js';

/**
 * Declares an area of checks as data. The body registers checks with the `check` function it is
 * given; nothing runs until the runner schedules the area.
 *
 * @example
 * export default defineArea('listCategories (§4)', 'concurrent', (check) => {
 *   check({ id: 'list.ok', rule: '§4 listCategories', title: '200 + JSON array', operation: 'GET /categories', operationId: 'listCategories' }, async (run) => {
 *     const exchange = await run.send({ operationId: 'listCategories', method: 'GET', path: '/categories', authorization: run.bearer(), identity: 'main' });
 *     expectStatus(exchange, 200);
 *   });
 * });
 */
export function defineArea(
  name: string,
  mode: CheckArea['mode'],
  define: (check: (definition: CheckDefinition, body: (run: CheckRun) => Promise<void>) => void) => void,
): CheckArea {
  const checks: CheckSpec[] = [];
  define((definition, body) => {
    if (checks.some((existing) => existing.id === definition.id))
      throw new Error(`Failed to define check ${definition.id}: the id is used twice in ${name}`);
    checks.push({ ...definition, run: body });
  });
  return { name, mode, checks };
}

/** The check's full name: the rule first, so every line of every report names it. */
export function checkName(definition: Pick<CheckDefinition, 'rule' | 'title' | 'operation'>): string {
  return `${definition.rule} ${definition.title}${definition.operation === undefined ? '' : ` [${definition.operation}]`}`;
}

/** Is the operation experimental or beta and the run not strict? (For checks that judge many operations.) */
export function isSoft(run: CheckRun, operationId: string): boolean {
  return !run.target.strict && run.spec.operations.get(operationId)?.stability !== undefined;
}
