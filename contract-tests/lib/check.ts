import { inject, test } from 'vitest';
import { CheckFailure, InconclusiveError } from './check-errors.js';
import type { ContractTarget } from './contract-target.js';
import type { Evidence, Exchange } from './exchange.js';
import { ContractHttpClient, type ApiRequest } from './http-client.js';
import { runState, type RunState } from './run-state.js';
import { loadSpecModel, type SpecModel } from './spec-model.js';

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
}

/** What a check leaves in its task's meta for the runner's collector. */
export interface CheckMeta {
  id: string;
  rule: string;
  title: string;
  operation: string | undefined;
  area: string;
  outcome: 'info' | 'warn' | 'inconclusive' | undefined;
  message: string | undefined;
  evidence: Evidence[];
  requests: number;
}

/** What a check's body works with. */
export interface CheckRun {
  readonly target: ContractTarget;
  readonly spec: SpecModel;
  readonly state: RunState;
  /** Sends a request on behalf of this check (paced, timed out, recorded). */
  send(request: ApiRequest): Promise<Exchange>;
  /** `Bearer <main key>`, or of another key. */
  bearer(key?: string): string;
  /** A name for created data: `contract-test-<runId>-<label>`, recognisable because the interface has no delete. */
  categoryName(label: string): string;
  /** Ends the check as INFO: the interface leaves this open, here is what the server does. */
  info(message: string, evidence?: Evidence[]): void;
  /** Ends the check as WARN (it still counts as conforming). */
  warn(message: string, evidence?: Evidence[]): void;
  /** A note on a passing check (shown in the report). */
  note(message: string): void;
  /** Ends the check as SKIP with a reason. */
  skip(reason: string): never;
}

class SkipCheck extends Error {}

const specModels = new Map<string, Promise<SpecModel>>();
const clients = new Map<string, ContractHttpClient>();

/**
 * Declares one check as a vitest test named after its rule (`§5.3 missing Authorization -> 401 +
 * Error [GET /categories]`) and turns what happens in it into PASS / FAIL / SKIP / INFO / WARN:
 * a `CheckFailure` fails it (or warns, for an experimental or beta operation without --strict),
 * an `InconclusiveError` skips it with the reason, `run.info()` marks it INFO.
 *
 * @example
 * check({ id: 'list.ok', rule: '§4 listCategories', title: '200 + JSON array of Category', operation: 'GET /categories', operationId: 'listCategories' }, async (run) => {
 *   const exchange = await run.send({ operationId: 'listCategories', method: 'GET', path: '/categories', authorization: run.bearer(), identity: 'main' });
 *   expectStatus(exchange, 200);
 * });
 */
export function check(definition: CheckDefinition, body: (run: CheckRun) => Promise<void>): void {
  test(checkName(definition), async (context) => {
    const meta: CheckMeta = {
      id: definition.id,
      rule: definition.rule,
      title: definition.title,
      operation: definition.operation,
      area: context.task.suite?.name ?? '',
      outcome: undefined,
      message: undefined,
      evidence: [],
      requests: 0,
    };
    (context.task.meta as { check?: CheckMeta }).check = meta;
    const target = inject('contractTarget');
    if (definition.writes && target.readOnly) {
      meta.message = 'read-only run: this check sends POST requests';
      context.skip(meta.message);
    }
    const spec = await specModelOf(target);
    const stability = definition.operationId === undefined ? undefined : spec.operations.get(definition.operationId)?.stability;
    const state = runState(target.runId);
    const client = clientOf(target, state);
    const run: CheckRun = {
      target,
      spec,
      state,
      send: (request) => {
        meta.requests += 1;
        return client.send(definition.id, request);
      },
      bearer: (key = target.apiKey) => `Bearer ${key}`,
      categoryName: (label) => `${target.namePrefix}-${label}`,
      info: (message, evidence = []) => Object.assign(meta, { outcome: 'info', message, evidence }),
      warn: (message, evidence = []) => Object.assign(meta, { outcome: 'warn', message, evidence }),
      note: (message) => {
        meta.message = meta.message === undefined ? message : `${meta.message}; ${message}`;
      },
      skip: (reason) => {
        throw new SkipCheck(reason);
      },
    };
    try {
      await body(run);
    } catch (error) {
      if (error instanceof SkipCheck) {
        meta.message = error.message;
        context.skip(error.message);
      }
      if (error instanceof InconclusiveError) {
        Object.assign(meta, { outcome: 'inconclusive', message: error.message });
        context.skip(error.message);
      }
      const failure = error instanceof CheckFailure ? error : new CheckFailure(`Failed to run the check: ${(error as Error).message ?? String(error)}`);
      meta.message = failure.message;
      meta.evidence = failure.evidence;
      if (stability !== undefined && !target.strict) {
        meta.outcome = 'warn';
        meta.message = `${definition.operationId} is ${stability} (x-stability), so this is a warning (--strict makes it a failure): ${failure.message}`;
        return;
      }
      throw failure;
    }
  });
}

/** The test name: the rule first, so every line of every report names it. */
export function checkName(definition: Pick<CheckDefinition, 'rule' | 'title' | 'operation'>): string {
  return `${definition.rule} ${definition.title}${definition.operation === undefined ? '' : ` [${definition.operation}]`}`;
}

/** Is the operation experimental or beta and the run not strict? (For checks that judge many operations.) */
export function isSoft(run: CheckRun, operationId: string): boolean {
  return !run.target.strict && run.spec.operations.get(operationId)?.stability !== undefined;
}

function specModelOf(target: ContractTarget): Promise<SpecModel> {
  let model = specModels.get(target.specPath);
  if (!model) {
    model = loadSpecModel(target.specPath);
    specModels.set(target.specPath, model);
  }
  return model;
}

function clientOf(target: ContractTarget, state: RunState): ContractHttpClient {
  let client = clients.get(target.runId);
  if (!client) {
    // console.warn reaches the runner through vitest's console capture; the runner prints it.
    client = new ContractHttpClient(target, state, (message) => console.warn(message));
    clients.set(target.runId, client);
  }
  return client;
}

/** Closes the run's HTTP client (the last check file calls it). */
export async function closeClient(runId: string): Promise<void> {
  const client = clients.get(runId);
  clients.delete(runId);
  await client?.close();
}
