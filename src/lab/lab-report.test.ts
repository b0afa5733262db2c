import { describe, expect, it } from 'vitest';
import { missingCoverage, parseSituationList } from './coverage.js';
import {
  buildLabReport,
  createLabSessionState,
  expectWellBehaved,
  labReportJunit,
  observeLab,
  xmlEscape,
} from './lab-report.js';
import type { LabObservation } from './lab-types.js';
import { ban, obs, t0 } from './observation.fixture.js';

function reportOf(observations: LabObservation[]) {
  const lab = createLabSessionState();
  for (const observation of observations)
    observeLab(lab, observation, observation.operationId === 'getPetById' ? '/pets/{petId}' : '/categories');
  return buildLabReport(lab, { session: 'default', clock: t0 + 60_000, banPolicy: ban });
}

describe('coverage', () => {
  it('splits statuses into organic and forced, and records situations with their first time', () => {
    const report = reportOf([
      obs(0, 200),
      obs(1, 429, { outcome: 'allowed', forced: true }),
      obs(2, 401, { client: 'anonymous 127.0.0.1', kind: 'anonymous', plan: 'anonymous' }),
      obs(3, 200, { windowReset: true }),
      obs(4, 429),
      obs(5, 200, { operationId: 'getPetById', path: '/v1/pets/1', deprecated: { sunset: null } }),
    ]);
    expect(report.coverage.operations).toEqual([
      {
        operationId: 'getPetById',
        method: 'GET',
        path: '/pets/{petId}',
        statuses: [{ status: 200, organic: 1, forced: 0 }],
      },
      {
        operationId: 'listCategories',
        method: 'GET',
        path: '/categories',
        statuses: [
          { status: 200, organic: 2, forced: 0 },
          { status: 401, organic: 1, forced: 0 },
          { status: 429, organic: 1, forced: 1 },
        ],
      },
    ]);
    expect(report.coverage.situations['429']).toEqual({ met: true, count: 2, firstAt: '2026-01-01T00:00:01.000Z' });
    expect(report.coverage.situations['window-reset'].count).toBe(1);
    expect(report.coverage.situations.ban.met).toBe(false);
    expect(missingCoverage(report, ['429', '401', '400', 'ban'])).toEqual(['400', 'ban']);
    expect(report.clients.map((client) => client.client)).toEqual(['demo-free', 'anonymous 127.0.0.1']);
  });

  it('refuses unknown situation names in one line listing the known ones', () => {
    expect(() => parseSituationList('429, 418,ban')).toThrow(
      'Unknown situation "418" in --min-coverage; known: 401, 400, 429, ban, deprecated-call, window-reset',
    );
    expect(() => missingCoverage(reportOf([obs(0, 200)]), ['x', 'y'])).toThrow(/^Unknown situations "x", "y"/);
    expect(parseSituationList('429,,401 ')).toEqual(['429', '401']);
  });
});

describe('JUnit', () => {
  it('has one testcase per client and rule: failure with evidence, skipped, passed with system-out', () => {
    const report = reportOf([obs(0, 429), obs(0, 429), obs(0, 429), obs(20, 200)]);
    const xml = labReportJunit(report, { requiredSituations: ['429', '400'] });
    // 7 rules of one client (3 of them its resilience, not exercised: no answer failed), 2 situations.
    expect(xml.match(/<testcase /g)).toHaveLength(9);
    expect(xml).toContain(
      '<testcase name="demo-free: retry-after-honoured" classname="petstore-mock.lab.key">\n      <failure message="2 of 3 requests after a 429 came early',
    );
    expect(xml).toContain('<skipped message="never called a deprecated operation"/>');
    expect(xml).toContain(
      '<system-out>pass: never banned; at most 3 requests in a row while limited (tolerated: 10)</system-out>',
    );
    expect(xml).toContain('<failure message="situation 400 was never served" type="coverage"/>');
    expect(xml).toMatch(
      /<testsuites name="petstore-mock lab, session default" tests="9" failures="3" errors="0" skipped="4">/,
    );
  });

  it('escapes any client name, control characters and lone surrogates included', () => {
    const name = `a<b>&"c'\u0001\ud800`;
    const xml = labReportJunit(reportOf([obs(0, 200, { client: name })]));
    expect(xml).toContain('name="a&lt;b&gt;&amp;&quot;c&apos;\ufffd\ufffd: retry-after-honoured"');
    expect(xmlEscape('😀')).toBe('😀');
  });
});

describe('expectWellBehaved', () => {
  it('throws one error listing failed verdicts and missing situations, and passes a clean report', () => {
    const bad = reportOf([obs(0, 429), obs(0.5, 429), obs(1, 429)]);
    expect(() => expectWellBehaved(bad, { minCoverage: ['429', '401'] })).toThrow(
      /^The mock's report found 3 problems:\n {2}demo-free: retry-after-honoured failed: 2 of 2 requests after a 429 came early.*\n {2}demo-free: backoff-growing failed: .*\n {2}coverage: situation 401 was never served$/,
    );
    expect(() => expectWellBehaved(reportOf([obs(0, 429), obs(10, 200)]), { minCoverage: ['429'] })).not.toThrow();
    expect(() => expectWellBehaved(bad, { clients: ['someone else'] })).not.toThrow();
    expect(() => expectWellBehaved(bad, { minCoverage: ['teapot'] })).toThrow(/Unknown situation "teapot"/);
  });
});
