import type { ObservedResponse } from '../../spec/interface/observed.js';
import { planOfMinuteLimit } from '../../spec/interface/plans.js';
import { readBudget } from '../../spec/interface/rate-limit-headers.js';
import type { MockResponse } from '../core/types.js';
import { clientVerdicts } from '../lab/client-judge.js';
import { buildLabReport, createLabSessionState, type LabSessionState, observeLab } from '../lab/lab-report.js';
import type { LabBanPolicy, LabLimits, LabReport } from '../lab/lab-types.js';
import { observeExchange } from '../lab/response-observer.js';
import type { ClientSide, PendingExchange } from './proxy-exchange.js';
import type { JudgedAnswer } from './proxy-tallies.js';

/**
 * The client side of the judging proxy: every exchange fed to the lab's client judge exactly as the
 * mock feeds it, each client's plan read from the limits its answers showed. At most `maxClients`
 * clients are followed (the lab's bound, and the last time of each).
 *
 * @example
 * const clients = new ClientObserver(10_000);
 * clients.observe(pending, answer); // { plan: 'free', limits: { perMinute: 60, perDay: 1000 }, isKey: true }
 * clients.broke(banPolicy); // false
 */
export class ClientObserver {
  /** What the lab knows of each client: its requests, windows and verdicts so far. */
  readonly lab: LabSessionState;
  /** When each client last sent a request: the lab's `previousAtMs`. */
  readonly lastSentAtMs = new Map<string, number>();

  constructor(private readonly maxClients: number) {
    this.lab = createLabSessionState({ maxClients });
  }

  /** Feeds one answered exchange to the lab; what it made of the client, for the export. */
  observe(pending: PendingExchange, answer: JudgedAnswer): ClientSide {
    const budget = readBudget(answer.response.headers, answer.receivedAtMs);
    const plan = planOfMinuteLimit(budget.limit);
    const limits: LabLimits = plan
      ? { perMinute: plan.perMinute, perDay: plan.perDay }
      : { perMinute: budget.limit ?? 0, perDay: budget.limit ?? 0 };
    const isKey = pending.keyDigest !== null && answer.response.status !== 401;
    const previousAtMs = this.lastSentAtMs.get(pending.client);
    const observation = observeExchange(
      { method: pending.method, url: pending.url, headers: pending.prefer === null ? {} : { prefer: pending.prefer } },
      labResponseOf(answer.response),
      {
        atMs: pending.sentAtMs,
        client: pending.client,
        clientId: pending.client,
        kind: isKey ? 'key' : 'anonymous',
        plan: isKey ? (plan?.name.toLowerCase() ?? 'unknown') : 'anonymous',
        limits,
        operation: pending.operationId === null ? null : { operationId: pending.operationId },
        seenBefore: previousAtMs !== undefined,
        ...(previousAtMs !== undefined ? { previousAtMs } : {}),
      },
    );
    if (pending.deprecated && observation.deprecated === undefined) observation.deprecated = { sunset: null };
    if (this.lastSentAtMs.size < this.maxClients || this.lastSentAtMs.has(pending.client))
      this.lastSentAtMs.set(pending.client, Math.max(previousAtMs ?? 0, pending.sentAtMs));
    observeLab(this.lab, observation);
    return { plan: isKey ? (plan?.name.toLowerCase() ?? 'unknown') : 'anonymous', limits, isKey };
  }

  /** The lab's report of every client followed, at `clock`. */
  report(clock: number, banPolicy: LabBanPolicy): LabReport {
    return buildLabReport(this.lab, { session: 'proxy', clock, banPolicy });
  }

  /** Did a client break a rule of the lab? */
  broke(banPolicy: LabBanPolicy): boolean {
    return Object.values(this.lab.clients).some((client) =>
      clientVerdicts(client, banPolicy).some((verdict) => verdict.outcome === 'fail'),
    );
  }
}

/** The answer as the lab's observer reads it: the few headers it looks at, in the core's spelling. */
function labResponseOf(response: ObservedResponse): MockResponse {
  const headers: Record<string, string> = {};
  for (const [wire, name] of [
    ['retry-after', 'Retry-After'],
    ['deprecation', 'Deprecation'],
    ['sunset', 'Sunset'],
    ['x-ratelimit-reset', 'X-RateLimit-Reset'],
  ] as const) {
    const value = response.headers[wire];
    if (value !== undefined) headers[name] = value;
  }
  return { status: response.status, headers, body: response.bodyText };
}
