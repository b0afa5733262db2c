// Checks both stores make of what they are given, so both refuse alike, with the same words.
import { AfterSunsetModeSchema, type AfterSunsetMode } from '../config/store-config.js';
import type { RuntimeKey, SessionInfo, SpentCounts, StoreClient } from './state-store.js';

/** Most requests `setSpent` puts in a window (far above any plan's day). */
const maxSpentCount = 1_000_000_000;
/** Longest ban `ban` sets: 30 days. */
const maxBanMs = 30 * 86_400_000;

/** Throws a RangeError naming the bad part of a `setSpent` or `ban` call; both stores check alike. */
export function assertClientStep(client: StoreClient, spent: SpentCounts | null, banMs: number | null): void {
  if (client.kind === 'key') {
    if (!/^[0-9a-f]{32}$/.test(client.id)) throw new RangeError('Failed to use a key client: its id must be 32 lower-case hex digits (the digest\'s first half)');
  } else if (typeof client.address !== 'string' || client.address.length === 0 || client.address.length > 200) {
    throw new RangeError('Failed to use an anonymous client: its address must be 1 to 200 characters');
  }
  if (spent) {
    for (const window of ['minute', 'day'] as const) {
      const count = spent[window];
      if (count !== undefined && (!Number.isSafeInteger(count) || count < 0 || count > maxSpentCount)) throw new RangeError(`Failed to set the spent budget: ${window} must be a whole number from 0 to ${maxSpentCount}`);
    }
  }
  if (banMs !== null && (!Number.isSafeInteger(banMs) || banMs < 1 || banMs > maxBanMs)) throw new RangeError(`Failed to ban a client: the duration must be a whole number of milliseconds from 1 to ${maxBanMs}`);
}

export function assertAfterSunsetMode(mode: AfterSunsetMode | null): void {
  if (mode !== null && !AfterSunsetModeSchema.safeParse(mode).success) throw new RangeError('Failed to set afterSunset: expected gone, serve or null');
}

/** A key's digest: SHA-256 in lower-case hex. */
export function assertDigest(digest: string): void {
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new RangeError('Failed to use a key digest: expected 64 lower-case hex digits (SHA-256)');
}

/** Run-time keys are found by digest and counted under `id`, which must be the digest's first 32 hex digits (as in KeyRegistry). */
export function assertRuntimeKey(key: RuntimeKey): void {
  assertDigest(key.digest);
  if (key.id !== key.digest.slice(0, 32)) throw new RangeError('Failed to add a key: its id must be the first 32 hex digits of its digest');
}

/** The same rule as the virtual clock's: time never moves backwards, windows never come back to life. */
export function assertClockStep(ms: number): void {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new RangeError('Failed to advance the clock: the step must be a finite number >= 0');
}

/** Most recently seen first; never-used sessions last; ties by name, so every store lists alike. */
export function sortSessions(sessions: SessionInfo[]): SessionInfo[] {
  return sessions.sort((a, b) => (b.lastSeenMs ?? -1) - (a.lastSeenMs ?? -1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
