/**
 * The proofs of the resilience verdicts: scripted clients against a scripted flaky server whose answers
 * are log entries carrying the request log's faults, judged by the lab as the mock judges its clients.
 */
import { describe, expect, it } from 'vitest';
import { call, createTestApp } from '../../test/support/core-test-app.js';
import {
  observationOfLogged,
  type ResiliencePolicy,
  resilienceClients,
  runResilienceClient,
} from '../../test/support/resilience-clients.js';
import { buildLabReport, createLabSessionState, labReportJunit, observeLab } from './lab-report.js';
import type { LabReport, Verdict } from './lab-types.js';

const banPolicy = { enabled: true, threshold: 10, durationMs: 900_000 };
const resilienceRules = ['retries-idempotent', 'no-blind-resend', 'bounded-attempts'];

function judge(policy: ResiliencePolicy, faults = true): LabReport {
  const lab = createLabSessionState();
  for (const attempt of runResilienceClient(policy, { faults })) observeLab(lab, observationOfLogged(attempt));
  return buildLabReport(lab, { session: 'resilience', clock: Date.UTC(2026, 0, 2), banPolicy });
}

function verdict(report: LabReport, rule: string): Verdict {
  return report.clients[0]!.verdicts.find((candidate) => candidate.rule === rule)!;
}

describe('scripted clients against a flaky server, judged from the request log', () => {
  for (const client of resilienceClients) {
    it(`judges the client that ${client.name}`, () => {
      const report = judge(client.policy(), client.faults !== false);
      const outcomes = Object.fromEntries(
        report.clients[0]!.verdicts.filter((candidate) => resilienceRules.includes(candidate.rule)).map((candidate) => [
          candidate.rule,
          candidate.outcome,
        ]),
      );
      expect(outcomes).toEqual(client.expected);
      // The rate-limit verdicts are not touched by failures: nothing was refused.
      expect(verdict(report, 'retry-after-honoured').outcome).toBe('not-exercised');
      expect(JSON.stringify(judge(client.policy(), client.faults !== false))).toBe(JSON.stringify(report));
    });
  }

  it('gives evidence a reader can follow: the request, the failure, the waits, the key', () => {
    const hasty = judge(resilienceClients[1]!.policy());
    expect(verdict(hasty, 'retries-idempotent').evidence.summary).toBe(
      '29 of 30 waits between attempts of a failing request did not grow; first: GET /v1/categories waited 0.05 s then 0.05 s (reset at 2026-01-01T00:00:00.050Z)',
    );
    expect(verdict(hasty, 'no-blind-resend').evidence.summary).toMatch(
      /^1 resend of a request whose outcome was unknown, without the Idempotency-Key of its first attempt \(the server may act twice\); first: POST \/v1\/categories after a timeout at \S+, resent at \S+ with no Idempotency-Key$/,
    );
    expect(verdict(hasty, 'bounded-attempts').evidence).toMatchObject({
      tolerated: 10,
      longestRun: 30,
      request: 'GET /v1/pets/1',
    });
    const fresh = judge(resilienceClients[4]!.policy());
    expect(verdict(fresh, 'no-blind-resend').evidence.samples).toEqual([
      expect.objectContaining({ problem: 'another Idempotency-Key than the first attempt’s' }),
    ]);
  });

  it('puts the verdicts in JUnit like the others: a failure for a rule broken, skipped when not exercised', () => {
    const xml = labReportJunit(judge(resilienceClients[1]!.policy()));
    expect(xml.match(/<testcase /g)).toHaveLength(7);
    for (const rule of resilienceRules) expect(xml).toContain(`type="${rule}"`);
    const perfect = labReportJunit(judge(resilienceClients[5]!.policy(), false));
    expect(perfect.match(/<skipped message="no (idempotent|non-idempotent|request)/g)).toHaveLength(3);
  });

  it('reads the Idempotency-Key a request sends, and shows the verdicts on the dashboard', async () => {
    const app = createTestApp();
    await call(app, 'POST', '/v1/categories', {
      key: 'demo-free',
      json: { name: 'otters' },
      headers: { 'idempotency-key': 'k-1' },
    });
    const rules = (await app.controls.dashboard()).clients[0]!.verdicts.map((candidate) => candidate.rule);
    expect(rules.slice(4)).toEqual(resilienceRules);
    const report = await app.controls.report();
    // A perfect network: the client's resilience is not exercised, never a pass.
    for (const rule of resilienceRules) expect(verdict(report, rule).outcome).toBe('not-exercised');
  });
});
