import { maskSecret } from '../../../spec/credential-masking.js';
import { keyDigestHex } from '../../../spec/interface/key-id.js';
import { dashboardVersion } from '../../lab/dashboard-version.js';
import { clientReport } from '../../lab/lab-report.js';
import type {
  DashboardClient,
  DashboardSnapshot,
  LabClockState,
  LabLimits,
  TimelineInput,
} from '../../lab/lab-types.js';
import { renderTimelineSvg } from '../../lab/timeline-svg.js';
import type { MockConfig } from '../config/mock-config.js';
import type { StartupKey } from '../pipeline/auth.js';
import type { RateDecision } from '../state/rate-limiter.js';
import type { StartingState, StateStore } from '../state/state-store.js';
import { clientName } from '../state/store-checks.js';
import type { LabSessions } from './lab-sessions.js';

/** What the snapshot needs of the app. */
export interface DashboardSources {
  store: StateStore;
  config: MockConfig;
  lab: LabSessions;
  startupKeys: readonly StartupKey[];
  demoKeyNames: ReadonlySet<string>;
  baseNow(): number;
}

/**
 * The dashboard's snapshot of one session (`GET /__mock/dashboard`, issue 13): every client the lab
 * judged with both windows as they stand now on the session's virtual clock (from its last rate
 * decision: a window whose end has passed is full again), its ban, counts and verdicts; the
 * configured keys not used yet; the recent log (newest last, at most `limit`) and its timeline,
 * drawn by the lab's renderer; the coverage. Reads only: it counts nothing.
 */
export async function buildDashboardSnapshot(
  sources: DashboardSources,
  session: string,
  clock: LabClockState,
  limit: number,
): Promise<DashboardSnapshot> {
  const { store, lab } = sources;
  const base = sources.baseNow();
  const nowMs = Date.parse(clock.now);
  const [sessions, recorded, runtimeKeys, starting] = await Promise.all([
    store.listSessions(base),
    store.recordedRequests(session, base),
    store.listKeys(session, base),
    store.startingState(session, base),
  ]);
  const state = lab.state(session);
  const report = lab.report(session, clock);
  const last = lab.lastDecisions(session);

  // The log masks every key; the demo keys are public, so the dashboard names them.
  const demoByMask = new Map<string, string>();
  for (const name of sources.demoKeyNames) demoByMask.set(maskSecret(name), name);

  const judged = Object.values(state.clients).sort(
    (a, b) => a.firstAtMs - b.firstAtMs || (a.client < b.client ? -1 : a.client > b.client ? 1 : 0),
  );
  const clients: DashboardClient[] = judged.map((judge) => {
    const decision = last.get(judge.clientId)?.decision;
    const banUntil = Math.max(judge.banUntilMs, decision?.outcome === 'banned' ? decision.resetAtMs : 0);
    return {
      client: judge.client,
      kind: judge.kind,
      plan: judge.plan,
      demo: judge.kind === 'key' && sources.demoKeyNames.has(judge.client),
      used: true,
      windows: windowsOf(decision, judge.limits, nowMs),
      ban:
        banUntil > nowMs
          ? { until: new Date(banUntil).toISOString(), secondsLeft: Math.ceil((banUntil - nowMs) / 1000) }
          : null,
      ...(({ requests, verdicts }) => ({ requests, verdicts }))(clientReport(judge, lab.banPolicy)),
    };
  });
  clients.push(...unusedKeys(sources, runtimeKeys, judged, nowMs));
  const recent = recentOf(recorded, demoByMask);
  const shown = recent.length > limit ? recent.slice(recent.length - limit) : recent;

  return {
    version: dashboardVersion,
    session,
    sessions: sessions.map(({ name, lastSeenMs }) => ({
      name,
      lastSeen: lastSeenMs === null ? null : new Date(lastSeenMs).toISOString(),
    })),
    clock,
    clients,
    recent: shown,
    coverage: report.coverage,
    tokenRequired: sources.config.controlToken !== undefined,
    timelineSvg: renderTimelineSvg(
      timelineOf(shown, clients, nowMs, {
        session,
        banDurationMs: lab.banPolicy.durationMs,
        spentBefore: spentBeforeOf(starting, judged),
      }),
    ),
  };
}

/** Configured (and run-time) keys that sent nothing yet, with their full windows. */
function unusedKeys(
  sources: DashboardSources,
  runtimeKeys: Awaited<ReturnType<StateStore['listKeys']>>,
  judged: readonly { clientId: string }[],
  nowMs: number,
): DashboardClient[] {
  const clients: DashboardClient[] = [];
  const seen = new Set(judged.map((judge) => judge.clientId));
  const unused: { id: string; display: string; plan: string; limits: LabLimits; demo: boolean }[] = [];
  for (const key of sources.startupKeys) {
    const id = keyDigestHex(key.key).slice(0, 32);
    unused.push({
      id,
      display: key.display,
      plan: key.plan,
      limits: key.limits,
      demo: sources.demoKeyNames.has(key.key),
    });
  }
  for (const key of runtimeKeys)
    unused.push({ id: key.id, display: key.masked, plan: key.plan, limits: key.limits, demo: false });
  const listed = new Set<string>();
  for (const key of unused) {
    if (seen.has(`k:${key.id}`) || listed.has(key.id)) continue;
    listed.add(key.id);
    clients.push({
      client: key.display,
      kind: 'key',
      plan: key.plan,
      demo: key.demo,
      used: false,
      windows: windowsOf(undefined, key.limits, nowMs),
      ban: null,
      requests: { total: 0, byStatus: {}, refused429: 0 },
      verdicts: [],
    });
  }

  return clients;
}

/** The recent log as the dashboard shows it: API requests only, demo keys by name, the rest masked. */
function recentOf(
  recorded: Awaited<ReturnType<StateStore['recordedRequests']>>,
  demoByMask: ReadonlyMap<string, string>,
): DashboardSnapshot['recent'] {
  const recent: DashboardSnapshot['recent'] = [];
  for (const entry of recorded) {
    if (entry.plan === 'control' || entry.replay === undefined) continue;
    const client =
      entry.key === null || entry.replay.auth !== 'key'
        ? `anonymous ${entry.replay.clientAddress ?? 'local'}`
        : (demoByMask.get(entry.key) ?? entry.key);
    recent.push({
      timeMs: entry.timeMs,
      client,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      code: entry.code,
      ...(entry.fault === undefined ? {} : { fault: entry.fault }),
      ...(entry.delayMs === undefined ? {} : { delayMs: entry.delayMs }),
    });
  }
  return recent;
}

function windowsOf(decision: RateDecision | undefined, limits: LabLimits, nowMs: number): DashboardClient['windows'] {
  const names = [
    { name: 'minute' as const, limit: limits.perMinute },
    { name: 'day' as const, limit: limits.perDay },
  ];
  return names.map(({ name, limit }) => {
    const window = decision?.windows.find((candidate) => candidate.name === name);
    if (!window || window.resetAtMs <= nowMs) return { name, limit, used: 0, resetsAt: null, resetsInSeconds: null };
    return {
      name,
      limit: window.quota,
      used: Math.max(0, window.quota - window.remaining),
      resetsAt: new Date(window.resetAtMs).toISOString(),
      resetsInSeconds: Math.ceil((window.resetAtMs - nowMs) / 1000),
    };
  });
}

type SpentBefore = NonNullable<TimelineInput['clients'][number]['spentBefore']>;

/**
 * What each judged client (by its shown name) had spent of its minute when the session was last given a
 * scenario or reset (the log's starting state), so the timeline draws its requests as high as the limiter
 * counted them: a 429 at the budget line, not far below it.
 */
function spentBeforeOf(
  starting: StartingState,
  judged: readonly { client: string; clientId: string }[],
): ReadonlyMap<string, SpentBefore> {
  const spent = new Map<string, SpentBefore>();
  const atMs = starting.atMs;
  if (atMs === null) return spent;
  const byId = new Map(judged.map((judge) => [judge.clientId, judge.client]));
  for (const { client, windows } of starting.state.clients ?? []) {
    const name = byId.get(clientName(client));
    if (name !== undefined && windows.minuteCount > 0)
      spent.set(name, { atMs, minuteStartMs: windows.minuteStartMs, count: windows.minuteCount });
  }
  return spent;
}

function timelineOf(
  recent: DashboardSnapshot['recent'],
  clients: DashboardClient[],
  nowMs: number,
  {
    session,
    banDurationMs,
    spentBefore,
  }: { session: string; banDurationMs: number; spentBefore: ReadonlyMap<string, SpentBefore> },
): TimelineInput {
  const byClient = new Map<string, TimelineInput['clients'][number]['requests']>();
  for (const entry of recent) {
    let list = byClient.get(entry.client);
    if (!list) {
      list = [];
      byClient.set(entry.client, list);
    }
    list.push({
      atMs: entry.timeMs,
      status: entry.status,
      code: entry.code,
      ...(entry.fault === undefined ? {} : { fault: entry.fault }),
    });
  }
  const from = recent.length > 0 ? recent[0]!.timeMs : nowMs - 60_000;
  const to = Math.max(nowMs, from + 1_000);
  return {
    from,
    to,
    title: `Session ${session}`,
    clients: [...byClient].map(([client, requests]) => {
      const known = clients.find((candidate) => candidate.client === client);
      const limits = known
        ? { perMinute: known.windows[0]!.limit, perDay: known.windows[1]!.limit }
        : { perMinute: 0, perDay: 0 };
      return {
        client,
        plan: known?.plan ?? 'anonymous',
        limits,
        requests,
        bans: known?.ban
          ? [{ fromMs: Math.max(from, Date.parse(known.ban.until) - banDurationMs), toMs: Date.parse(known.ban.until) }]
          : [],
        ...(spentBefore.has(client) ? { spentBefore: spentBefore.get(client)! } : {}),
      };
    }),
  };
}
