/**
 * The client-resilience verdicts (decision 043) fed by real faults (decision 042) through the running
 * mock: each client meets `Prefer: fault=...` answers over HTTP in its own session, waits by moving
 * that session's virtual clock, and GET /__mock/report judges what it did. The unit tests of the
 * judge use scripted log entries; this one proves the pipeline hands the faults it carried out to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/core/clock.js';
import { parseLabReport } from '../../src/lab/lab-report-schema.js';
import type { Verdict } from '../../src/lab/lab-types.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { testEpochMs } from '../support/core-test-app.js';

let mock: RunningMockServer;

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 1, clock: createFixedClock(testEpochMs) });
});
afterAll(async () => {
  await mock.close();
});

/** One request of the client; a reset or close is a network error here, as in any HTTP client. */
async function send(
  session: string,
  path: string,
  init: { method?: string; fault?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<number | 'network-error'> {
  const headers: Record<string, string> = {
    'x-mock-session': session,
    authorization: 'Bearer demo-free',
    ...init.headers,
  };
  if (init.fault !== undefined) headers.prefer = `fault=${init.fault}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(`${mock.origin}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'network-error';
  }
}

async function advance(session: string, seconds: number): Promise<void> {
  const response = await fetch(`${mock.origin}/__mock/clock`, {
    method: 'POST',
    headers: { 'x-mock-session': session, 'content-type': 'application/json' },
    body: JSON.stringify({ advanceSeconds: seconds }),
  });
  expect(response.status).toBe(200);
}

async function resilienceOutcomes(session: string): Promise<Record<string, Verdict['outcome']>> {
  const response = await fetch(`${mock.origin}/__mock/report`, { headers: { 'x-mock-session': session } });
  const report = parseLabReport(await response.text());
  const client = report.clients.find((candidate) => candidate.client === 'demo-free')!;
  const wanted = new Set(['retries-idempotent', 'no-blind-resend', 'bounded-attempts']);
  return Object.fromEntries(
    client.verdicts.filter((verdict) => wanted.has(verdict.rule)).map((verdict) => [verdict.rule, verdict.outcome]),
  );
}

describe('resilience verdicts from faults the mock carried out', () => {
  it('a client that retries a reset GET with growing waits, and resends a POST only with its Idempotency-Key, passes', async () => {
    const session = 'resilient';
    expect(await send(session, '/v1/categories', { fault: 'reset' })).toBe('network-error');
    await advance(session, 1);
    expect(await send(session, '/v1/categories', { fault: 'reset' })).toBe('network-error');
    await advance(session, 2);
    expect(await send(session, '/v1/categories')).toBe(200);
    const post = { method: 'POST', body: { name: 'e2e-resilient' }, headers: { 'idempotency-key': 'e2e-1' } };
    expect(await send(session, '/v1/categories', { ...post, fault: 'reset' })).toBe('network-error');
    await advance(session, 1);
    expect(await send(session, '/v1/categories', post)).toBe(201);
    expect(await resilienceOutcomes(session)).toEqual({
      'retries-idempotent': 'pass',
      'no-blind-resend': 'pass',
      'bounded-attempts': 'pass',
    });
  });

  it('a client that resends a reset POST without an Idempotency-Key, and retries a GET at once, fails', async () => {
    const session = 'blind';
    expect(await send(session, '/v1/categories', { fault: 'reset' })).toBe('network-error');
    expect(await send(session, '/v1/categories', { fault: 'reset' })).toBe('network-error');
    expect(await send(session, '/v1/categories')).toBe(200);
    const post = { method: 'POST', body: { name: 'e2e-blind' } };
    expect(await send(session, '/v1/categories', { ...post, fault: 'reset' })).toBe('network-error');
    expect(await send(session, '/v1/categories', post)).toBe(201);
    const outcomes = await resilienceOutcomes(session);
    expect(outcomes['retries-idempotent']).toBe('fail');
    expect(outcomes['no-blind-resend']).toBe('fail');
  });

  it('a client that met no fault is not exercised, never passed', async () => {
    const session = 'calm';
    expect(await send(session, '/v1/categories')).toBe(200);
    expect(await resilienceOutcomes(session)).toEqual({
      'retries-idempotent': 'not-exercised',
      'no-blind-resend': 'not-exercised',
      'bounded-attempts': 'not-exercised',
    });
  });
});
