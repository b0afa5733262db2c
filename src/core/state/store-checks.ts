// Checks both stores make of what they are given, so both refuse alike, with the same words.

import type { Category } from '../../../spec/schemas.js';
import { isWellFormed } from '../config/decoding.js';
import { type AfterSunsetMode, afterSunsetModes } from '../config/store-config.js';
import {
  type ClientWindows,
  type RuntimeKey,
  ScenarioRefusedError,
  type SessionInfo,
  type SpentCounts,
  type StartingState,
  type StoreClient,
  type StoreScenario,
} from './state-store.js';

/** Most requests `setSpent` puts in a window (far above any plan's day). */
const maxSpentCount = 1_000_000_000;
/** Longest ban `ban` sets: 30 days. */
const maxBanMs = 30 * 86_400_000;

/**
 * Furthest a session's virtual clock runs ahead of the real one: 100 years of 365 days (what a
 * scenario's offsetSeconds may say at most). Far past any test's need, and far inside what a
 * JavaScript Date holds, so every time the mock states stays a real date.
 */
export const maxClockOffsetMs = 100 * 365 * 86_400_000;
/** The largest time a JavaScript Date holds, either side of 1970 (ECMAScript's time value range). */
export const maxDateMs = 8_640_000_000_000_000;

/** Throws a RangeError naming the bad part of a `setSpent` or `ban` call; both stores check alike. */
export function assertClientStep(client: StoreClient, spent: SpentCounts | null, banMs: number | null): void {
  if (client.kind === 'key') {
    if (!/^[0-9a-f]{32}$/.test(client.id))
      throw new RangeError(
        "Failed to use a key client: its id must be 32 lower-case hex digits (the digest's first half)",
      );
  } else if (
    typeof client.address !== 'string' ||
    client.address.length === 0 ||
    client.address.length > 200 ||
    !isWellFormed(client.address)
  ) {
    // A lone surrogate has no UTF-8 form: Redis could not name its bucket, so neither store takes it.
    throw new RangeError(
      'Failed to use an anonymous client: its address must be 1 to 200 characters of well-formed Unicode (no lone surrogate)',
    );
  }
  if (spent) {
    for (const window of ['minute', 'day'] as const) {
      const count = spent[window];
      if (count !== undefined && (!Number.isSafeInteger(count) || count < 0 || count > maxSpentCount))
        throw new RangeError(
          `Failed to set the spent budget: ${window} must be a whole number from 0 to ${maxSpentCount}`,
        );
    }
  }
  if (banMs !== null && (!Number.isSafeInteger(banMs) || banMs < 1 || banMs > maxBanMs))
    throw new RangeError(
      `Failed to ban a client: the duration must be a whole number of milliseconds from 1 to ${maxBanMs}`,
    );
}

export function assertAfterSunsetMode(mode: AfterSunsetMode | null): void {
  if (mode !== null && !(afterSunsetModes as readonly unknown[]).includes(mode))
    throw new RangeError('Failed to set afterSunset: expected gone, serve or null');
}

/** A key's digest: SHA-256 in lower-case hex. */
export function assertDigest(digest: string): void {
  if (!/^[0-9a-f]{64}$/.test(digest))
    throw new RangeError('Failed to use a key digest: expected 64 lower-case hex digits (SHA-256)');
}

/** Run-time keys are found by digest and counted under `id`, which must be the digest's first 32 hex digits (as in KeyRegistry). */
export function assertRuntimeKey(key: RuntimeKey): void {
  assertDigest(key.digest);
  if (key.id !== key.digest.slice(0, 32))
    throw new RangeError('Failed to add a key: its id must be the first 32 hex digits of its digest');
}

/**
 * A step of the virtual clock, in the whole milliseconds it moves by. Time never moves backwards (windows
 * never come back to life), and it moves in whole milliseconds, as a snapshot, an export and Redis hold
 * times: a step of 0.0001 ms once left a ban ending between two milliseconds, which no snapshot could hold.
 */
export function clockStepMs(ms: number): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new RangeError('Failed to advance the clock: the step must be a finite number >= 0');
  return Math.round(ms);
}

/** Whether a session may have this clock offset at this base time: at most 100 years ahead, and a real date. */
export function clockOffsetInRange(offsetMs: number, baseTimeMs: number): boolean {
  return offsetMs >= 0 && offsetMs <= maxClockOffsetMs && Math.abs(baseTimeMs + offsetMs) <= maxDateMs;
}

/** Why a clock move is refused: the same words from every store. */
export function clockRangeMessage(offsetMs: number): string {
  return `the clock would be ${(offsetMs / (365 * 86_400_000)).toFixed(1)} years ahead; the virtual clock stays within 100 years of the real one (a new X-Mock-Session starts at now)`;
}

/** Why a scenario's instant is refused: it is behind the session's clock, which never goes back. */
export function clockBehindMessage(atMs: number, nowMs: number): string {
  return `${new Date(atMs).toISOString()} is before the session's clock (${new Date(nowMs).toISOString()}); the virtual clock only moves forward (use a new X-Mock-Session, or clock.offsetSeconds)`;
}

/** The words of a category larger than the whole byte bound (413 on the API, a refused scenario part). */
export function categoryTooLargeMessage(bytes: number, maxBytes: number): string {
  return `The category takes ${bytes} bytes; the mock's store keeps at most maxCategoryBytes (${maxBytes}) bytes of categories`;
}

/** Most recently seen first; never-used sessions last; ties by name, so every store lists alike. */
export function sortSessions(sessions: SessionInfo[]): SessionInfo[] {
  return sessions.sort(
    (a, b) => (b.lastSeenMs ?? -1) - (a.lastSeenMs ?? -1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/** Throws the RangeError of the first bad step of a scenario (a client, a budget, a ban, a key, the sunset mode): both stores check alike. */
export function assertScenarioSteps(scenario: StoreScenario): void {
  for (const key of scenario.keys) assertRuntimeKey(key);
  for (const { client, spent } of scenario.spends) assertClientStep(client, spent, null);
  for (const { client, ms } of scenario.bans) assertClientStep(client, null, ms);
  for (const { client, windows } of scenario.clients ?? []) {
    assertClientStep(client, null, null);
    assertClientWindows(windows);
  }
  if (scenario.categoryList !== undefined) assertCategoryList(scenario.categoryList);
  if (scenario.afterSunset !== undefined) assertAfterSunsetMode(scenario.afterSunset);
  const clock = scenario.clock;
  if (clock !== undefined && !Number.isFinite(clock.kind === 'advance' ? clock.ms : clock.atMs))
    throw new RangeError('Failed to move the clock: not a finite time');
  if (clock?.kind === 'advance') clockStepMs(clock.ms);
}

/**
 * The offset a scenario's clock step gives a session whose offset is `offsetMs` (the memory store's
 * reading; the Redis script says the same in Lua), or the ScenarioRefusedError that refuses it.
 */
export function scenarioOffset(clock: StoreScenario['clock'], offsetMs: number, baseTimeMs: number): number {
  let moved = offsetMs;
  if (clock?.kind === 'advance') moved = offsetMs + clockStepMs(clock.ms);
  else if (clock?.kind === 'atLeast') moved = Math.max(offsetMs, clock.atMs - baseTimeMs);
  else if (clock?.kind === 'to') {
    if (clock.atMs < baseTimeMs + offsetMs)
      throw new ScenarioRefusedError('clock-behind', 0, clockBehindMessage(clock.atMs, baseTimeMs + offsetMs));
    moved = clock.atMs - baseTimeMs;
  }
  if (!clockOffsetInRange(moved, baseTimeMs))
    throw new ScenarioRefusedError('clock-range', 0, clockRangeMessage(moved));
  return moved;
}

/** Throws a RangeError when a client's windows are not what a snapshot holds (whole counts, times a Date holds). */
export function assertClientWindows(windows: ClientWindows): void {
  const time = (value: unknown) =>
    typeof value === 'number' && Number.isSafeInteger(value) && Math.abs(value) <= maxDateMs;
  const count = (value: unknown) =>
    Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= maxSpentCount;
  if (
    windows === null ||
    typeof windows !== 'object' ||
    !time(windows.minuteStartMs) ||
    !time(windows.dayStartMs) ||
    !count(windows.minuteCount) ||
    !count(windows.dayCount) ||
    !count(windows.strikes) ||
    (windows.bannedUntilMs !== null && !time(windows.bannedUntilMs))
  )
    throw new RangeError(
      `Failed to set a client's windows: window starts and a ban end must be whole milliseconds a date holds, counts and strikes whole numbers from 0 to ${maxSpentCount}`,
    );
}

/** Throws a RangeError when a category list to restore does not have consecutive ascending ids from 1 up. */
function assertCategoryList(categories: readonly Category[]): void {
  categories.forEach((category, index) => {
    const first = categories[0]!.id;
    if (
      category === null ||
      typeof category !== 'object' ||
      !Number.isSafeInteger(category.id) ||
      first < 1 ||
      category.id !== first + index
    )
      throw new RangeError(
        `Failed to restore the categories: ids must be whole numbers from 1 up, consecutive and ascending (entry ${index} has ${String((category as { id?: unknown } | null)?.id)})`,
      );
  });
}

/** `k:<id>` or `a:<address>`: a client's name in a snapshot's order. */
export function clientName(client: StoreClient): string {
  return client.kind === 'key' ? `k:${client.id}` : `a:${client.address}`;
}

/** By name (anonymous clients, then keys): both stores list a snapshot's clients alike. */
export function sortClients<T extends { client: StoreClient }>(clients: T[]): T[] {
  return clients.sort((a, b) => {
    const left = clientName(a.client);
    const right = clientName(b.client);
    return left < right ? -1 : left > right ? 1 : 0;
  });
}

/** The clients of a starting state that still stand somewhere at `atMs` (the others start fresh either way). */
function liveAt<T extends { windows: ClientWindows }>(clients: readonly T[], atMs: number): T[] {
  return clients.filter((entry) => !windowsOver(entry.windows, atMs));
}

/** True when neither window nor a ban of a client still counts at `nowMs` (the limiter forgets it then too). */
export function windowsOver(windows: ClientWindows, nowMs: number): boolean {
  return windows.dayStartMs + 86_400_000 <= nowMs && (windows.bannedUntilMs ?? Number.NEGATIVE_INFINITY) <= nowMs;
}

/**
 * The log's starting state from the snapshot it began with and what it dropped since (each dropped request's
 * client where it stood just after it): both stores keep those parts, this puts them together.
 */
export function startingStateOf(
  atMs: number | null,
  state: StoreScenario,
  dropped: StartingState['dropped'],
  after: ReadonlyMap<string, { client: StoreClient; windows: ClientWindows }>,
): StartingState {
  if (dropped === null) return { atMs, state, dropped };
  const clients = (state.clients ?? []).filter(({ client }) => !after.has(clientName(client)));
  const startAtMs = atMs === null ? dropped.lastAtMs : Math.max(atMs, dropped.lastAtMs);
  return {
    atMs: startAtMs,
    state: { ...state, clients: sortClients([...clients, ...liveAt([...after.values()], startAtMs)]) },
    dropped,
  };
}
