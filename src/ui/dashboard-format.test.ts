import { expect, it } from 'vitest';
import { controlBase } from './dashboard-api.js';
import {
  asSnapshot,
  backoffMs,
  downloadFileName,
  evidenceLines,
  formatDuration,
  formatInstant,
  formatLogTime,
  formatOffset,
  parseAdvanceSeconds,
  snapshotProblem,
  statusClass,
} from './dashboard-format.js';
import type { DashboardSnapshot } from './dashboard-types.js';

it('formats countdowns as people read them', () => {
  expect(formatDuration(0)).toBe('0 s');
  expect(formatDuration(42.4)).toBe('42 s');
  expect(formatDuration(60)).toBe('1 min 00 s');
  expect(formatDuration(899)).toBe('14 min 59 s');
  expect(formatDuration(3725)).toBe('1 h 02 min');
  expect(formatDuration(86_400 + 7200)).toBe('1 d 2 h');
  expect(formatDuration(-5)).toBe('0 s');
  expect(formatOffset(0)).toBe('none');
  expect(formatOffset(-90)).toBe('-1 min 30 s');
  expect(formatOffset(3600)).toBe('+1 h 00 min');
});

it('formats virtual instants in UTC', () => {
  expect(formatLogTime(Date.UTC(2026, 0, 15, 9, 0, 1, 250))).toBe('2026-01-15 09:00:01.250');
  expect(formatInstant('2026-01-15T09:00:01.250Z')).toBe('2026-01-15 09:00:01 UTC');
  expect(formatInstant('not a date')).toBe('not a date');
});

it('names status classes so colour is never the only signal (the text is the status itself)', () => {
  expect([200, 201, 304, 400, 401, 404, 429, 500, 503, 101].map(statusClass)).toEqual([
    'ok',
    'ok',
    'ok',
    'client-error',
    'client-error',
    'client-error',
    'limited',
    'server-error',
    'server-error',
    'other',
  ]);
});

it('accepts a custom clock step of whole seconds only, with one clear line otherwise', () => {
  expect(parseAdvanceSeconds(' 90 ')).toEqual({ ok: true, seconds: 90 });
  expect(parseAdvanceSeconds('1.5')).toEqual({ ok: false, message: 'Enter a whole number of seconds, for example 90' });
  expect(parseAdvanceSeconds('-3')).toEqual({ ok: false, message: 'Enter a whole number of seconds, for example 90' });
  expect(parseAdvanceSeconds('')).toEqual({ ok: false, message: 'Enter a whole number of seconds, for example 90' });
  expect(parseAdvanceSeconds('0')).toEqual({ ok: false, message: 'Enter at least 1 second' });
  expect(parseAdvanceSeconds('999999999999')).toEqual({
    ok: false,
    message: 'Enter at most 315360000 seconds (10 years)',
  });
});

it('backs off from 1 s to at most 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 50].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
});

it('finds the control folder from the page path, with or without a trailing slash or a proxy prefix', () => {
  expect(controlBase('/__mock/ui')).toBe('/__mock/');
  expect(controlBase('/__mock/ui/')).toBe('/__mock/');
  expect(controlBase('/team-mock/__mock/ui')).toBe('/team-mock/__mock/');
});

const valid: DashboardSnapshot = {
  version: 1,
  session: 'default',
  sessions: [{ name: 'default', lastSeen: null }],
  clock: { now: '2026-01-15T09:00:00.000Z', epochSeconds: 1_768_467_600, offsetSeconds: 0 },
  clients: [
    {
      client: 'demo-free',
      kind: 'key',
      plan: 'free',
      demo: true,
      used: false,
      windows: [{ name: 'minute', limit: 60, used: 0, resetsAt: null, resetsInSeconds: null }],
      ban: null,
      requests: { total: 0, byStatus: {}, refused429: 0 },
      verdicts: [],
    },
  ],
  recent: [],
  coverage: { operations: [], situations: {} as DashboardSnapshot['coverage']['situations'] },
  tokenRequired: false,
  timelineSvg: '',
};

it('accepts a snapshot of the contract and names the first missing field of anything else', () => {
  expect(snapshotProblem(valid)).toBeUndefined();
  expect(asSnapshot(valid)).toBe(valid);
  expect(snapshotProblem(null)).toBe('the body is not a JSON object');
  expect(snapshotProblem([])).toBe('the body is not a JSON object');
  expect(snapshotProblem({ ...valid, clients: {} })).toBe('clients is not a list');
  expect(snapshotProblem({ ...valid, clients: [{ ...valid.clients[0], windows: null }] })).toBe(
    'clients[0].windows is not a list',
  );
  expect(snapshotProblem({ ...valid, clock: { now: 1 } })).toBe('clock is missing now or offsetSeconds');
  expect(snapshotProblem({ ...valid, timelineSvg: undefined })).toBe('timelineSvg is not a string');
  expect(() => asSnapshot({ ...valid, recent: 'x' })).toThrow(
    'The mock sent a dashboard this page does not understand: recent is not a list',
  );
});

it('shows a version it cannot read cut short, whatever a broken server sends in its place', () => {
  expect(snapshotProblem({ ...valid, version: 2 })).toBe('version 2: this page reads version 1; reload the page');
  expect(snapshotProblem({ ...valid, version: undefined })).toBe(
    'version none: this page reads version 1; reload the page',
  );
  const huge = snapshotProblem({ ...valid, version: 'v'.repeat(10_000_000) })!;
  expect(huge).toMatch(/^version "v{39}… \(10000002 chars\): this page reads version 1; reload the page$/);
  expect(snapshotProblem({ ...valid, version: { nested: ['x'.repeat(1000)] } })!.length).toBeLessThan(120);
});

it('writes verdict evidence out as label and text, bounded, the summary left to its own line', () => {
  expect(
    evidenceLines({
      summary: 'ignored',
      checked: 3,
      early: 0,
      sunset: null,
      waits: [1, 2, 4],
      operations: [],
      samples: Array.from({ length: 7 }, (_, index) => ({
        refusedAt: `2026-01-01T00:00:0${index}Z`,
        waitSeconds: index,
      })),
      nested: { deeper: { deepest: { value: 1 } } },
    }),
  ).toEqual([
    ['checked', '3'],
    ['early', '0'],
    ['sunset', '—'],
    ['waits', '1, 2, 4'],
    ['operations', 'none'],
    [
      'samples',
      'refusedAt 2026-01-01T00:00:00Z, waitSeconds 0; refusedAt 2026-01-01T00:00:01Z, waitSeconds 1; refusedAt 2026-01-01T00:00:02Z, waitSeconds 2; refusedAt 2026-01-01T00:00:03Z, waitSeconds 3; refusedAt 2026-01-01T00:00:04Z, waitSeconds 4; and 2 more',
    ],
    ['nested', 'deeper deepest …'],
  ]);
});

it('names downloads after the session, in safe characters only', () => {
  expect(downloadFileName('default', 'report.json')).toBe('petstore-mock-default-report.json');
  expect(downloadFileName('../../etc/passwd', 'requests.jsonl')).toBe('petstore-mock-etc_passwd-requests.jsonl');
  expect(downloadFileName('ci job #7', 'report.junit.xml')).toBe('petstore-mock-ci_job_7-report.junit.xml');
  expect(downloadFileName('', 'report.json')).toBe('petstore-mock-session-report.json');
});
