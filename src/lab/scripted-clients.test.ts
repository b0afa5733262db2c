/**
 * The proofs of issue 12 section 1: scripted clients, each against its own in-memory mock on the
 * virtual clock (they "wait" by advancing it), judged from the core's real responses.
 */
import { describe, expect, it } from 'vitest';
import { createTestApp, request } from '../../test/support/core-test-app.js';
import { scriptedClients as clients, type RetryPolicy } from '../../test/support/lab-scripted-clients.js';
import { buildLabReport, createLabSessionState, observeLab } from './lab-report.js';
import type { LabReport, Verdict } from './lab-types.js';
import { observeExchange } from './response-observer.js';

const banPolicy = { enabled: true, threshold: 10, durationMs: 900_000 };

/**
 * A client of demo-free (60 a minute) that calls GET /v1/pets/1 once (deprecated), then sends a request
 * every 500 ms until its 61st is refused, then follows its retry policy until served or it gives up.
 */
async function runClient(policy: RetryPolicy, maxRetries = 40): Promise<LabReport> {
  const app = createTestApp();
  const lab = createLabSessionState();
  let previousAtMs: number | undefined;
  const send = async (url: string, operationId: string) => {
    const mockRequest = request('GET', url, { key: 'demo-free' });
    const response = await app.handle(mockRequest);
    observeLab(
      lab,
      observeExchange(mockRequest, response, {
        atMs: app.clock.now(),
        client: 'demo-free',
        kind: 'key',
        plan: 'free',
        limits: { perMinute: 60, perDay: 1000 },
        operation: { operationId },
        seenBefore: previousAtMs !== undefined,
        ...(previousAtMs !== undefined ? { previousAtMs } : {}),
      }),
    );
    previousAtMs = app.clock.now();
    return response;
  };
  await send('/v1/pets/1', 'getPetById');
  let response = await send('/v1/categories', 'listCategories');
  while (response.status !== 429) {
    app.clock.advance(500);
    response = await send('/v1/categories', 'listCategories');
  }
  for (let attempt = 0; attempt < maxRetries && response.status === 429; attempt += 1) {
    const wait = policy(attempt, Number(response.headers['Retry-After']));
    if (wait === null) break;
    app.clock.advance(wait);
    response = await send('/v1/categories', 'listCategories');
  }
  return buildLabReport(lab, { session: 'proof', clock: app.clock.now(), banPolicy });
}

function outcomes(report: LabReport): Record<string, Verdict['outcome']> {
  return Object.fromEntries(report.clients[0]!.verdicts.map((verdict) => [verdict.rule, verdict.outcome]));
}

describe('scripted clients against a real in-memory mock', () => {
  for (const client of clients) {
    it(`judges the client that ${client.name}`, async () => {
      const report = await runClient(client.policy());
      expect(outcomes(report)).toEqual(client.expected);
      // Same client, same run: byte for byte.
      expect(JSON.stringify(await runClient(client.policy()))).toBe(JSON.stringify(report));
    });
  }

  it('gives evidence a reader can follow: times, the Retry-After given, the wait taken', async () => {
    const report = await runClient(() => 1000);
    const verdict = report.clients[0]!.verdicts.find((candidate) => candidate.rule === 'retry-after-honoured')!;
    const sample = (
      verdict.evidence.samples as {
        refusedAt: string;
        retryAfterSeconds: number;
        retriedAt: string;
        waitSeconds: number;
      }[]
    )[0]!;
    expect(sample.refusedAt).toBe('2026-01-01T00:00:29.500Z');
    expect(sample.retryAfterSeconds).toBe(31);
    expect(sample.waitSeconds).toBe(1);
    expect(sample.retriedAt).toBe('2026-01-01T00:00:30.500Z');
    expect(verdict.evidence.summary).toMatch(/came early/);
    expect(verdict.evidence.toleranceSeconds).toBe(1);
  });

  it('a banned client that waits out its ban and then honours Retry-After is still failed for the ban, not for the wait', async () => {
    const report = await runClient((attempt, retryAfter) => (attempt < 11 ? 0 : retryAfter * 1000));
    const result = outcomes(report);
    expect(result['no-hammering']).toBe('fail');
    const banVerdict = report.clients[0]!.verdicts.find((verdict) => verdict.rule === 'no-hammering')!;
    expect(banVerdict.evidence.bans).toBe(1);
    expect(report.clients[0]!.requests.byStatus['200']).toBeGreaterThan(60);
  });

  it('counts coverage from the same responses', async () => {
    const report = await runClient(() => 0);
    expect(report.coverage.situations['429'].met).toBe(true);
    expect(report.coverage.situations.ban.met).toBe(true);
    expect(report.coverage.situations['deprecated-call'].count).toBe(1);
    // Every request came within the first minute's window, and the ban never lets a window restart.
    expect(report.coverage.situations['window-reset'].count).toBe(0);
    expect(
      (await runClient((_attempt, retryAfter) => retryAfter * 1000)).coverage.situations['window-reset'],
    ).toMatchObject({ met: true, count: 1, firstAt: '2026-01-01T00:01:00.500Z' });
    expect(report.coverage.operations.map((operation) => operation.operationId)).toEqual([
      'getPetById',
      'listCategories',
    ]);
  });
});
