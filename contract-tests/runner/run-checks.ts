import type { SpecModel } from '../../spec/interface/spec-model.js';
import { type CheckArea, type CheckMeta, type CheckRun, type CheckSpec, SkipCheck } from '../lib/check.js';
import { CheckFailure, InconclusiveError, OverBudget } from '../lib/check-errors.js';
import type { ContractTarget } from '../lib/contract-target.js';
import type { ContractHttpClient } from '../lib/http-client.js';
import type { RunState } from '../lib/run-state.js';
import type { CheckResult } from '../report/report-model.js';
import { type CreationShare, checkCreationBound, createsData } from './creation-bound.js';

/** What the scheduler needs besides the checks. */
export interface RunChecksContext {
  target: ContractTarget;
  spec: SpecModel;
  state: RunState;
  client: ContractHttpClient;
  /** Aborted at the run's deadline (its reason is the message). */
  signal: AbortSignal;
  /** Longest time one check may take; it is then INCONCLUSIVE and the run goes on. */
  checkDeadlineMs: number;
  /** Called as each check finishes, in the order they finish: the live output. */
  onResult?: (result: CheckResult) => void;
  /** Run start, for each result's start/end offsets. */
  startedAtMs: number;
  /** Each check's share of --create-budget (creation-bound.ts); without it, what each declares. */
  creationShares?: ReadonlyMap<string, CreationShare>;
}

/**
 * The kit's own small runner (it replaced vitest at run time, see docs/decisions/007): areas run
 * in order; the checks of a `concurrent` area side by side, up to --concurrency at once; those of
 * a `sequential` area one at a time. Every check is bounded by its own deadline and by the run's:
 * whatever has not finished when the run's deadline passes is INCONCLUSIVE, and the results of
 * everything else are kept, so a report is always produced. Results come back in definition
 * order; `onResult` streams them in finishing order.
 *
 * @example const results = await runChecks(suiteAreas, { target, spec, state, client, signal, checkDeadlineMs: 60_000, startedAtMs: Date.now() });
 */
export async function runChecks(areas: readonly CheckArea[], context: RunChecksContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const area of areas) {
    const slots: (CheckResult | undefined)[] = area.checks.map(() => undefined);
    const limit = area.mode === 'concurrent' ? context.target.concurrency : 1;
    let next = 0;
    const worker = async () => {
      while (next < area.checks.length) {
        const index = next++;
        const result = await runOne(area, area.checks[index]!, context);
        slots[index] = result;
        context.onResult?.(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, area.checks.length) }, worker));
    results.push(...(slots as CheckResult[]));
  }
  return results;
}

async function runOne(area: CheckArea, check: CheckSpec, context: RunChecksContext): Promise<CheckResult> {
  const { target, spec } = context;
  const one = new OneCheck(area, check, context);
  if (context.signal.aborted) return one.inconclusive(`not run: ${String(context.signal.reason)}`);
  if (check.writes && target.readOnly) {
    one.meta.message = 'read-only run: this check sends POST requests';
    return one.finish('SKIP');
  }
  const stability = check.operationId === undefined ? undefined : spec.operations.get(check.operationId)?.stability;
  // The run printed a bound on what it may create, summed from each check's share of --create-budget: hold each to it.
  one.holdTo(await checkCreationBound(check, target));
  const run = one.checkRun();
  try {
    await one.withinDeadlines(() => check.run(run));
  } catch (error) {
    return one.fromError(error, stability);
  }
  return one.fromOutcome();
}

/**
 * One check as it runs: what it has said and sent so far (`meta`), what it may still create, and
 * how its end becomes a result. `created` counts the requests that could create data, held to
 * `mayCreate` (its share of --create-budget, else what it declared).
 */
class OneCheck {
  readonly meta: CheckMeta = {
    outcome: undefined,
    message: undefined,
    evidence: [],
    requests: 0,
    observed: 0,
    cases: undefined,
  };
  readonly #area: CheckArea;
  readonly #check: CheckSpec;
  readonly #context: RunChecksContext;
  readonly #started = Date.now();
  #declared = 0;
  #mayCreate = 0;
  #created = 0;

  constructor(area: CheckArea, check: CheckSpec, context: RunChecksContext) {
    this.#area = area;
    this.#check = check;
    this.#context = context;
  }

  /** The check's creation bound: what it declared (maxCreates), and its share of --create-budget when the run set one. */
  holdTo(declared: number): void {
    this.#declared = declared;
    this.#mayCreate = this.#context.creationShares?.get(this.#check.id)?.share ?? declared;
  }

  finish(status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult {
    const { meta } = this;
    return {
      id: this.#check.id,
      rule: this.#check.rule,
      title: this.#check.title,
      operation: this.#check.operation,
      area: this.#area.name,
      status,
      message: meta.message,
      evidence: meta.evidence,
      requests: meta.requests,
      ...(meta.cases === undefined ? {} : { cases: meta.cases }),
      startMs: this.#started - this.#context.startedAtMs,
      durationMs: Date.now() - this.#started,
      ...extra,
    };
  }

  inconclusive(reason: string): CheckResult {
    // What stopped it, without the detail: "rate budget exhausted", "the run deadline was reached (--deadline 300 s)".
    this.#context.state.stoppers.add(reason.replace(/^(stopped|not run): /, '').replace(/:.*$/s, ''));
    this.meta.message = reason;
    return this.finish('SKIP', { inconclusive: true });
  }

  /** What the check is given to run with: its target, its sender and the ways it reports. */
  checkRun(): CheckRun {
    const { target, spec, state } = this.#context;
    const meta = this.meta;
    return {
      target,
      spec,
      state,
      send: (request) => this.#send(request),
      bearer: (key = target.apiKey) => `Bearer ${key}`,
      categoryName: (label) => `${target.namePrefix}-${label}`,
      creationsLeft: () => Math.max(0, this.#mayCreate - this.#created),
      info: (message, evidence = []) => Object.assign(meta, { outcome: 'info', message, evidence }),
      warn: (message, evidence = []) => Object.assign(meta, { outcome: 'warn', message, evidence }),
      note: (message) => {
        meta.message = meta.message === undefined ? message : `${meta.message}; ${message}`;
      },
      skip: (reason) => {
        throw new SkipCheck(reason, false);
      },
      inconclusive: (reason) => {
        throw new SkipCheck(reason, true);
      },
      cases: (count) => {
        meta.cases = (meta.cases ?? 0) + count;
      },
      judged: (count) => {
        meta.observed += count;
      },
    };
  }

  /** Sends for the check, holding a request that could create data to the check's creation bound. */
  async #send(request: Parameters<CheckRun['send']>[0]): ReturnType<CheckRun['send']> {
    const { target } = this.#context;
    const mayCreate = this.#mayCreate;
    if (createsData(request)) {
      if (this.#created >= mayCreate && mayCreate < this.#declared)
        throw new OverBudget(
          `${request.method} ${request.path} could create a category, and this check's share of the run's creation budget is spent (${mayCreate} of the ${this.#declared} it would use; --create-budget ${target.createBudget}): a higher --create-budget would check the rest`,
        );
      if (this.#created >= mayCreate) {
        throw new InconclusiveError(
          `not sent: ${request.method} ${request.path} could create data, and this check declared at most ${mayCreate} such requests${target.readOnly ? ' (read-only run)' : ''} (maxCreates): the bound printed at the start of the run must hold`,
        );
      }
      this.#created += 1;
    }
    this.meta.requests += 1;
    const exchange = await this.#context.client.send(this.#check.id, request);
    if (exchange.response !== undefined) this.meta.observed += 1;
    return exchange;
  }

  /** The check's run, cut at its own deadline or the run's (either then throws InconclusiveError). */
  async withinDeadlines(run: () => Promise<void>): Promise<void> {
    const { checkDeadlineMs, signal } = this.#context;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new InconclusiveError(
              `the check did not finish within its deadline of ${Math.round(checkDeadlineMs / 1000)} s`,
            ),
          ),
        checkDeadlineMs,
      );
      onAbort = () => reject(new InconclusiveError(`stopped: ${String(signal.reason)}`));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([run(), stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /** A check that threw: skipped, inconclusive, or failed (a warning on an operation of some x-stability, unless --strict). */
  fromError(error: unknown, stability: string | undefined): CheckResult {
    const meta = this.meta;
    if (error instanceof SkipCheck) {
      if (error.inconclusive) return this.inconclusive(error.message);
      meta.message = error.message;
      return this.finish('SKIP');
    }
    if (error instanceof InconclusiveError) return this.inconclusive(error.message);
    const failure =
      error instanceof CheckFailure
        ? error
        : new CheckFailure(`Failed to run the check: ${(error as Error)?.message ?? String(error)}`);
    meta.message = failure.message;
    meta.evidence = failure.evidence;
    if (stability !== undefined && !this.#context.target.strict) {
      meta.message = `${this.#check.operationId} is ${stability} (x-stability), so this is a warning (--strict makes it a failure): ${failure.message}`;
      return this.finish('WARN');
    }
    return this.finish('FAIL');
  }

  /** A check that ended: what it said, else PASS when it judged at least one response. */
  fromOutcome(): CheckResult {
    const meta = this.meta;
    if (meta.outcome === 'info') return this.finish('INFO');
    if (meta.outcome === 'warn') return this.finish('WARN');
    // No PASS without evidence: a check that judged no response has proved nothing.
    if (meta.observed === 0)
      return this.inconclusive(
        `no evidence: no response was judged${meta.message === undefined ? '' : ` (${meta.message})`}`,
      );
    return this.finish('PASS');
  }
}
