import { truncate } from '../../spec/interface/observed.js';
import { dashboardVersion } from '../lab/dashboard-version.js';
import type { DashboardSnapshot } from './dashboard-types.js';

// Pure helpers of the dashboard page (no DOM), so they are unit-tested in Node.

/**
 * A duration in seconds as people read it on a countdown.
 * @example formatDuration(3725) // '1 h 02 min'
 * @example formatDuration(42) // '42 s'
 */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.round(totalSeconds));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) {
    const minutes = Math.floor(seconds / 60);
    return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  }
  if (seconds < 86_400) {
    const hours = Math.floor(seconds / 3600);
    return `${hours} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
  }
  const days = Math.floor(seconds / 86_400);
  return `${days} d ${Math.floor((seconds % 86_400) / 3600)} h`;
}

/**
 * The clock offset with its sign, so "+1 h 00 min" reads as "ahead of the real time".
 * @example formatOffset(-90) // '-1 min 30 s'
 */
export function formatOffset(offsetSeconds: number): string {
  if (offsetSeconds === 0) return 'none';
  return `${offsetSeconds < 0 ? '-' : '+'}${formatDuration(Math.abs(offsetSeconds))}`;
}

/** A virtual instant (ms) as `YYYY-MM-DD HH:MM:SS.mmm` in UTC, the log's time column. */
export function formatLogTime(timeMs: number): string {
  const iso = new Date(timeMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

/** An ISO instant as `YYYY-MM-DD HH:MM:SS UTC`, or the input when it is not a date. */
export function formatInstant(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const text = new Date(time).toISOString();
  return `${text.slice(0, 10)} ${text.slice(11, 19)} UTC`;
}

/** The class of an HTTP status for colour and text: 2xx ok, 429 limited, 4xx client, 5xx server. */
export function statusClass(status: number): 'ok' | 'limited' | 'client-error' | 'server-error' | 'other' {
  if (status === 429) return 'limited';
  if (status >= 200 && status < 400) return 'ok';
  if (status >= 400 && status < 500) return 'client-error';
  if (status >= 500) return 'server-error';
  return 'other';
}

/**
 * Parses a custom clock step typed by a person: whole seconds, 1 to 10 years, so a typo never sends a
 * request the control would refuse anyway.
 * @example parseAdvanceSeconds('90') // { ok: true, seconds: 90 }
 */
export function parseAdvanceSeconds(text: string): { ok: true; seconds: number } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return { ok: false, message: 'Enter a whole number of seconds, for example 90' };
  const seconds = Number(trimmed);
  if (seconds < 1) return { ok: false, message: 'Enter at least 1 second' };
  if (seconds > 315_360_000) return { ok: false, message: 'Enter at most 315360000 seconds (10 years)' };
  return { ok: true, seconds };
}

/**
 * Checks that a decoded body has the DashboardSnapshot fields the page reads, so a wrong or partial
 * answer is one clear line on the page instead of a script error. Returns the first problem found.
 */
export function snapshotProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the body is not a JSON object';
  const record = value as Record<string, unknown>;
  // The page is served by the mock it polls, so another version is a page left open across an upgrade;
  // what stands in its place is shown cut (a broken server may send megabytes there).
  if (record.version !== dashboardVersion)
    return `version ${truncate(JSON.stringify(record.version) ?? 'none', 40)}: this page reads version ${dashboardVersion}; reload the page`;
  if (typeof record.session !== 'string') return 'session is not a string';
  if (!Array.isArray(record.sessions)) return 'sessions is not a list';
  const clock = record.clock as Record<string, unknown> | null | undefined;
  if (
    typeof clock !== 'object' ||
    clock === null ||
    typeof clock.now !== 'string' ||
    typeof clock.offsetSeconds !== 'number'
  )
    return 'clock is missing now or offsetSeconds';
  if (!Array.isArray(record.clients)) return 'clients is not a list';
  for (const [index, client] of (record.clients as unknown[]).entries()) {
    const entry = client as Record<string, unknown> | null;
    if (typeof entry !== 'object' || entry === null || typeof entry.client !== 'string')
      return `clients[${index}] has no client name`;
    if (!Array.isArray(entry.windows)) return `clients[${index}].windows is not a list`;
    if (!Array.isArray(entry.verdicts)) return `clients[${index}].verdicts is not a list`;
    if (typeof entry.requests !== 'object' || entry.requests === null) return `clients[${index}].requests is missing`;
  }
  if (!Array.isArray(record.recent)) return 'recent is not a list';
  const coverage = record.coverage as Record<string, unknown> | null | undefined;
  if (
    typeof coverage !== 'object' ||
    coverage === null ||
    !Array.isArray(coverage.operations) ||
    typeof coverage.situations !== 'object'
  )
    return 'coverage is missing operations or situations';
  if (typeof record.tokenRequired !== 'boolean') return 'tokenRequired is not a boolean';
  if (typeof record.timelineSvg !== 'string') return 'timelineSvg is not a string';
  return undefined;
}

/** The decoded snapshot, typed once it passed {@link snapshotProblem}. */
export function asSnapshot(value: unknown): DashboardSnapshot {
  const problem = snapshotProblem(value);
  if (problem !== undefined) throw new Error(`The mock sent a dashboard this page does not understand: ${problem}`);
  return value as DashboardSnapshot;
}

/**
 * The delay before the next attempt after `failures` failed polls in a row: doubles from 1 s, at most
 * 30 s, so a mock that is down is asked again soon but never hammered.
 */
export function backoffMs(failures: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
}

/**
 * A verdict's evidence besides its summary, as label/text pairs a person reads: numbers and strings
 * as they are, lists joined, samples (objects) one `key value` list each. Depth and length bounded,
 * so a large sample never floods a card.
 * @example evidenceLines({ summary: 's', checked: 3, samples: [{ waitSeconds: 2 }] }) // [['checked', '3'], ['samples', 'waitSeconds 2']]
 */
export function evidenceLines(evidence: Record<string, unknown>): [string, string][] {
  const lines: [string, string][] = [];
  for (const [name, value] of Object.entries(evidence)) {
    if (name === 'summary') continue;
    lines.push([name, evidenceText(value, 0)]);
  }
  return lines;
}

const maxEvidenceItems = 5;

function evidenceText(value: unknown, depth: number): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value === '' ? '""' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (depth >= 2) return '…';
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    const shown = value.slice(0, maxEvidenceItems).map((item) => evidenceText(item, depth + 1));
    const more = value.length > maxEvidenceItems ? `; and ${value.length - maxEvidenceItems} more` : '';
    return `${shown.join(value.some((item) => typeof item === 'object' && item !== null) ? '; ' : ', ')}${more}`;
  }
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .map(([key, inner]) => `${key} ${evidenceText(inner, depth + 1)}`)
      .join(', ');
  return String(value);
}

/**
 * A file name for a download: the session's name kept to safe characters, so a name like `../x` or
 * `a b` still makes one plain file name.
 * @example downloadFileName('ci-job-b', 'report.json') // 'petstore-mock-ci-job-b-report.json'
 */
export function downloadFileName(session: string, suffix: string): string {
  const safe = session
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 60);
  return `petstore-mock-${safe === '' ? 'session' : safe}-${suffix}`;
}

/** The changes between two snapshots of one session worth saying aloud: a ban, a ban lifted, a first 429. */
export function snapshotNews(before: DashboardSnapshot, after: DashboardSnapshot): string[] {
  const was = new Map(before.clients.map((client) => [client.client, client]));
  const news: string[] = [];
  for (const client of after.clients) {
    const old = was.get(client.client);
    if (client.ban !== null && (old === undefined || old.ban === null))
      news.push(`${client.client} is banned for ${formatDuration(client.ban.secondsLeft)}`);
    else if (client.ban === null && old !== undefined && old.ban !== null)
      news.push(`${client.client} is no longer banned`);
    else if (client.requests.refused429 > 0 && (old === undefined || old.requests.refused429 === 0))
      news.push(`${client.client} was refused with 429`);
  }
  return news;
}
