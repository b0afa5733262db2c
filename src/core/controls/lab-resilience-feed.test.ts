import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../pipeline/request-record.js';
import { MemoryBudget } from '../state/memory-budget.js';
import type { RecordedRequest } from '../state/request-log.js';
import { createLabSessions, labRequestOf } from './lab-sessions.js';

// The hand-off from the pipeline to the lab (recordAnswer -> observeLab(record, logged)): the fault and
// the latency come from the log entry just written, the Idempotency-Key from the request.

const limits = { perMinute: 60, perDay: 1000 };
const t0 = Date.UTC(2026, 0, 1);

/** An answered API request as the pipeline holds it at the end (only what the lab reads). */
function answered(atMs: number, headers: Record<string, string>, status: number): RequestRecord {
  return {
    operation: { operationId: 'createCategory', pathTemplate: '/categories' },
    credentials: undefined,
    hit: {
      nowMs: atMs,
      client: 'k:team',
      key: { id: 'team', masked: 'tea…(8)', plan: 'free', limits },
      decision: {
        outcome: 'allowed',
        limit: 60,
        remaining: 50,
        resetAtMs: t0 + 60_000,
        retryAfterSeconds: 1,
        windows: [{ name: 'minute', quota: 60, windowSeconds: 60, remaining: 50, resetAtMs: t0 + 60_000 }],
      },
    },
    request: { method: 'POST', url: '/v1/categories', headers, body: null },
    path: '/v1/categories',
    response: { status, headers: {}, body: null },
    forcedAnswer: false,
    served: { sunsets: new Map() },
  } as unknown as RequestRecord;
}

describe('the lab fed by the pipeline', () => {
  it('reads the fault and latency of the log entry, and the request’s Idempotency-Key', () => {
    const logged: Pick<RecordedRequest, 'fault' | 'delayMs'> = { fault: 'timeout', delayMs: 30_000 };
    const input = labRequestOf(answered(t0, { 'idempotency-key': 'k-1' }, 201), logged);
    expect(input).toMatchObject({ fault: 'timeout', delayMs: 30_000, idempotencyKey: 'k-1' });
    expect(labRequestOf(answered(t0, {}, 201))).toMatchObject({ fault: undefined, idempotencyKey: undefined });
  });

  it('judges a POST resent without its key after a logged timeout as a blind resend', () => {
    const lab = createLabSessions({
      memory: new MemoryBudget(64 * 1024 * 1024, 'test'),
      maxSessions: 10,
      banPolicy: { enabled: true, threshold: 10, durationMs: 900_000 },
      anonymous: limits,
    });
    lab.observe('default', labRequestOf(answered(t0, { 'idempotency-key': 'k-1' }, 201), { fault: 'timeout' }));
    lab.observe('default', labRequestOf(answered(t0 + 3_000, {}, 201), {}));
    const report = lab.report('default', {
      now: new Date(t0 + 5_000).toISOString(),
      epochSeconds: 0,
      offsetSeconds: 0,
    });
    const verdict = report.clients[0]!.verdicts.find((candidate) => candidate.rule === 'no-blind-resend')!;
    expect(verdict.outcome).toBe('fail');
    expect(verdict.evidence.samples).toEqual([expect.objectContaining({ problem: 'no Idempotency-Key' })]);
  });
});
