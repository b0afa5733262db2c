import type { CoveredOperation } from '../../lab/coverage.js';
import { buildLabReport, createLabSessionState, type LabSessionState, observeLabOf } from '../../lab/lab-report.js';
import type { LabBanPolicy, LabClockState, LabLimits, LabReport } from '../../lab/lab-types.js';
import { observationFromHit } from '../../lab/response-observer.js';
import type { RequestRecord } from '../pipeline/request-record.js';
import type { ByteMeter, ProcessMemory } from '../state/memory-account.js';
import type { RateDecision } from '../state/rate-limiter.js';
import type { RecordedRequest } from '../state/request-log.js';
import { defaultSessionName } from '../state/sessions.js';
import type { HitResult } from '../state/state-store.js';

/**
 * The rate-limit lab of each session (issue 12): what the mock keeps to judge its clients and the
 * coverage of a test run, fed after every API request and served at `GET /__mock/report`.
 *
 * The lab state is kept in this process, per session, bounded: at most 1,000 clients judged per
 * session, a client idle for a day and a ban forgotten, at most `maxSessions` named sessions (the
 * least recently fed forgotten first) besides the default one, which is never forgotten. With a Redis store shared by
 * replicas each replica judges the requests it served: the report of one replica covers its own
 * traffic (docs/decisions/012-rate-limit-lab.md).
 */
export interface LabSessions {
  observe(session: string, input: LabRequestInput): void;
  report(session: string, clock: LabClockState): LabReport;
  /** Forgets a session's lab (POST /__mock/reset). */
  reset(session: string): void;
  /** The lab state of a session, created empty when there is none (the dashboard reads it). */
  state(session: string): LabSessionState;
  /** The last rate decision of each judged client of a session (the dashboard's gauges), by client id. */
  lastDecisions(session: string): ReadonlyMap<string, { decision: RateDecision; atMs: number }>;
  readonly banPolicy: LabBanPolicy;
}

export interface LabRequestInput {
  hit: HitResult;
  method: string;
  /** Path without the query. */
  path: string;
  operationId: string | null;
  /** The operation that answered (its method and path in the spec), for the coverage: a HEAD answered by GET counts for GET. */
  operation?: CoveredOperation;
  status: number;
  forced: boolean;
  /** undefined when the operation is not deprecated; else its sunset (ISO) or null. */
  deprecatedSunset?: string | null;
  /** How to show a key client (a demo key in full); default the key's mask. */
  display?: string;
  /** What the request log recorded of a fault and a latency (the resilience verdicts read them). */
  fault?: RecordedRequest['fault'];
  delayMs?: number;
  /** The request's Idempotency-Key header, when it sent one. */
  idempotencyKey?: string;
}

/** What the lab takes of a request the store counted (`record.hit` set), and of its log entry. */
export function labRequestOf(
  record: RequestRecord,
  logged?: Pick<RecordedRequest, 'fault' | 'delayMs'>,
): LabRequestInput {
  const { operation, credentials } = record;
  const idempotencyKey = record.request.headers['idempotency-key'];
  const operationId = operation === undefined ? null : operation.operationId;
  return {
    hit: record.hit!,
    method: record.request.method.slice(0, 20),
    path: record.path.slice(0, 300),
    operationId,
    operation,
    status: record.response.status,
    forced: record.forcedAnswer,
    deprecatedSunset: operationId === null ? undefined : record.served.sunsets.get(operationId),
    // A demo key is shown by name (it is public); any other client as the lab masks it.
    display: record.hit!.key !== null && credentials?.kind === 'token' ? credentials.demoKey : undefined,
    fault: logged?.fault,
    delayMs: logged?.delayMs,
    idempotencyKey: idempotencyKey === undefined ? undefined : idempotencyKey.slice(0, 200),
  };
}

/** Clients judged per session (each up to ~6 KB with its evidence samples); requests of clients past it are counted in the coverage only. */
const maxClientsPerSession = 1_000;

interface SessionLab {
  lab: LabSessionState;
  // Bounded by the lab: only clients it judges get an entry.
  last: Map<string, { decision: RateDecision; atMs: number }>;
  observed: number;
  /** The session's account with the memory budget: each judged client counts. */
  meter: ByteMeter;
  /** Clients counted against the budget so far. */
  counted: number;
}

/** A judged client with its evidence samples, verdicts and gauge (measured ~6 KB at the most; counted high). */
const labClientBytes = 8 * 1024;

/** Forgets the clients of a session idle for longer than `idleMs`. */
function sweep(found: SessionLab, nowMs: number, idleMs: number): void {
  for (const [id, client] of Object.entries(found.lab.clients)) {
    if (client.lastAtMs + idleMs >= nowMs) continue;
    delete found.lab.clients[id];
    found.lab.clientCount -= 1;
    found.last.delete(id);
  }
  countClients(found);
}

/** The lab's clients against the budget, as they come and go. */
function countClients(found: SessionLab): void {
  const clients = found.lab.clientCount;
  if (clients < found.counted) found.meter.give((found.counted - clients) * labClientBytes);
  else if (clients > found.counted) found.meter.charge((clients - found.counted) * labClientBytes);
  found.counted = clients;
}

/** One request judged in a session's lab, and its client's gauge kept. */
function observeIn(found: SessionLab, input: LabRequestInput, anonymousLimits: LabLimits): void {
  const { lab, last } = found;
  // One lookup of the client for both uses below (a new one is looked up again, once).
  const known = lab.clients[input.hit.client];
  // A client the lab would start judging needs room in the budget; without it, the request is not judged.
  if (known === undefined && lab.clientCount < maxClientsPerSession) {
    if (!found.meter.take(labClientBytes)) {
      found.meter.notKept();
      return;
    }
    found.counted += 1;
  }
  const observation = observationFromHit({
    hit: input.hit,
    method: input.method,
    path: input.path,
    operationId: input.operationId,
    status: input.status,
    forced: input.forced,
    // Passed as they are (undefined when absent): spreads here would copy objects on every request.
    deprecatedSunset: input.deprecatedSunset,
    anonymousLimits,
    display: input.display,
    previousRequestAtMs: known === undefined ? null : known.lastAtMs,
    fault: input.fault,
    delayMs: input.delayMs,
    idempotencyKey: input.idempotencyKey,
  });
  observeLabOf(lab, observation, input.operation, known);
  if (lab.clientCount !== found.counted) countClients(found);
  // A banned decision reports the ban as its windows: the gauges keep the windows the client last
  // counted against (the ban itself is the judge's banUntilMs).
  if ((known !== undefined || lab.clients[input.hit.client] !== undefined) && input.hit.decision.outcome !== 'banned') {
    const record = last.get(input.hit.client);
    if (record === undefined) last.set(input.hit.client, { decision: input.hit.decision, atMs: input.hit.nowMs });
    else {
      record.decision = input.hit.decision;
      record.atMs = input.hit.nowMs;
    }
  }
}

/**
 * @param options.maxSessions Most named sessions judged at once (the store's bound); the least recently
 *   fed is forgotten past it. The default session is kept apart and never forgotten: its report is
 *   what `--report` writes and `--min-coverage` gates, however many named sessions came and went.
 */
export function createLabSessions(options: {
  maxSessions: number;
  banPolicy: LabBanPolicy;
  anonymous: LabLimits;
  memory: ProcessMemory;
}): LabSessions {
  // A client idle for longer than a day (and than a ban) has nothing left in the limiter either: it
  // is forgotten (swept every 1,000 requests), so memory returns like the limiter's.
  const idleMs = Math.max(86_400_000, options.banPolicy.durationMs);
  const emptyLab = (session: string): SessionLab => ({
    lab: createLabSessionState({ maxClients: maxClientsPerSession }),
    last: new Map(),
    observed: 0,
    meter: options.memory.meter(session),
    counted: 0,
  });
  let defaultLab = emptyLab(defaultSessionName);
  /** Named sessions only, least recently fed first. */
  const sessions = new Map<string, SessionLab>();
  // The session fed last is already the newest: no reorder (this runs on every request).
  let newest: { name: string; found: SessionLab } | null = null;
  const entry = (session: string): SessionLab => {
    if (session === defaultSessionName) return defaultLab;
    if (newest !== null && newest.name === session) return newest.found;
    let found = sessions.get(session);
    if (found) {
      // Most recently fed last, so the first entry is the one to forget.
      sessions.delete(session);
    } else {
      found = emptyLab(session);
      if (sessions.size >= Math.max(1, options.maxSessions)) forget(sessions.keys().next().value!);
    }
    sessions.set(session, found);
    newest = { name: session, found };
    return found;
  };
  const existing = (session: string): SessionLab | undefined =>
    session === defaultSessionName ? defaultLab : sessions.get(session);
  /** A named session's lab dropped: what it counted goes back to the budget. */
  const forget = (session: string) => {
    sessions.get(session)?.meter.releaseAll();
    sessions.delete(session);
    if (newest?.name === session) newest = null;
  };
  // Forgotten by the budget to make room (it has counted the session out): dropped whole.
  options.memory.onEvict((session) => {
    sessions.delete(session);
    if (newest?.name === session) newest = null;
  });
  const state = (session: string): LabSessionState => entry(session).lab;
  return {
    banPolicy: options.banPolicy,
    lastDecisions: (session) => existing(session)?.last ?? new Map(),
    observe(session, input) {
      const found = entry(session);
      found.observed += 1;
      if (found.observed % 1_000 === 0) sweep(found, input.hit.nowMs, idleMs);
      observeIn(found, input, options.anonymous);
    },
    report(session, clock) {
      return buildLabReport(existing(session)?.lab ?? createLabSessionState(), {
        session,
        clock,
        banPolicy: options.banPolicy,
      });
    },
    reset(session) {
      if (session === defaultSessionName) {
        defaultLab.meter.releaseAll();
        defaultLab = emptyLab(defaultSessionName);
      }
      forget(session);
    },
    state,
  };
}
