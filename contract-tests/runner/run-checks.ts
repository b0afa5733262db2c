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
  const { target, spec, state } = context;
  const meta: CheckMeta = {
    outcome: undefined,
    message: undefined,
    evidence: [],
    requests: 0,
    observed: 0,
    cases: undefined,
  };
  const started = Date.now();
  const finish = (status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => ({
    id: check.id,
    rule: check.rule,
    title: check.title,
    operation: check.operation,
    area: area.name,
    status,
    message: meta.message,
    evidence: meta.evidence,
    requests: meta.requests,
    ...(meta.cases === undefined ? {} : { cases: meta.cases }),
    startMs: started - context.startedAtMs,
    durationMs: Date.now() - started,
    ...extra,
  });
  const inconclusive = (reason: string): CheckResult => {
    // What stopped it, without the detail: "rate budget exhausted", "the run deadline was reached (--deadline 300 s)".
    state.stoppers.add(reason.replace(/^(stopped|not run): /, '').replace(/:.*$/s, ''));
    meta.message = reason;
    return finish('SKIP', { inconclusive: true });
  };

  if (context.signal.aborted) return inconclusive(`not run: ${String(context.signal.reason)}`);
  if (check.writes && target.readOnly) {
    meta.message = 'read-only run: this check sends POST requests';
    return finish('SKIP');
  }
  const stability = check.operationId === undefined ? undefined : spec.operations.get(check.operationId)?.stability;
  // The run printed a bound on what it may create, summed from each check's share of --create-budget: hold each to it.
  const declared = await checkCreationBound(check, target);
  const mayCreate = context.creationShares?.get(check.id)?.share ?? declared;
  let created = 0;
  const run: CheckRun = {
    target,
    spec,
    state,
    send: async (request) => {
      if (createsData(request)) {
        if (created >= mayCreate && mayCreate < declared)
          throw new OverBudget(
            `${request.method} ${request.path} could create a category, and this check's share of the run's creation budget is spent (${mayCreate} of the ${declared} it would use; --create-budget ${target.createBudget}): a higher --create-budget would check the rest`,
          );
        if (created >= mayCreate) {
          throw new InconclusiveError(
            `not sent: ${request.method} ${request.path} could create data, and this check declared at most ${mayCreate} such requests${target.readOnly ? ' (read-only run)' : ''} (maxCreates): the bound printed at the start of the run must hold`,
          );
        }
        created += 1;
      }
      meta.requests += 1;
      const exchange = await context.client.send(check.id, request);
      if (exchange.response !== undefined) meta.observed += 1;
      return exchange;
    },
    bearer: (key = target.apiKey) => `Bearer ${key}`,
    categoryName: (label) => `${target.namePrefix}-${label}`,
    creationsLeft: () => Math.max(0, mayCreate - created),
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

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new InconclusiveError(
            `the check did not finish within its deadline of ${Math.round(context.checkDeadlineMs / 1000)} s`,
          ),
        ),
      context.checkDeadlineMs,
    );
    onAbort = () => reject(new InconclusiveError(`stopped: ${String(context.signal.reason)}`));
    context.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([check.run(run), stop]);
  } catch (error) {
    if (error instanceof SkipCheck) {
      if (error.inconclusive) return inconclusive(error.message);
      meta.message = error.message;
      return finish('SKIP');
    }
    if (error instanceof InconclusiveError) return inconclusive(error.message);
    const failure =
      error instanceof CheckFailure
        ? error
        : new CheckFailure(`Failed to run the check: ${(error as Error)?.message ?? String(error)}`);
    meta.message = failure.message;
    meta.evidence = failure.evidence;
    if (stability !== undefined && !target.strict) {
      meta.message = `${check.operationId} is ${stability} (x-stability), so this is a warning (--strict makes it a failure): ${failure.message}`;
      return finish('WARN');
    }
    return finish('FAIL');
  } finally {
    clearTimeout(timer);
    if (onAbort) context.signal.removeEventListener('abort', onAbort);
  }
  if (meta.outcome === 'info') return finish('INFO');
  if (meta.outcome === 'warn') return finish('WARN');
  // No PASS without evidence: a check that judged no response has proved nothing.
  if (meta.observed === 0)
    return inconclusive(`no evidence: no response was judged${meta.message === undefined ? '' : ` (${meta.message})`}`);
  return finish('PASS');
}
