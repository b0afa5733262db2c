import type { Category } from '../../spec/schemas.js';
import type { Limits } from '../core/config/mock-config.js';
import { HttpError } from '../core/errors.js';
import { CategoryStore } from '../core/state/category-store.js';
import type { ApiKeyEntry } from '../core/state/key-registry.js';
import { type RateDecision, windowsOf } from '../core/state/rate-limiter.js';
import type { RecordedRequest } from '../core/state/request-log.js';
import {
  type ClientWindows,
  type CreatedCategory,
  type CreatedCategoryText,
  type HitInput,
  type HitResult,
  type RuntimeKey,
  ScenarioRefusedError,
  type StartingState,
  type StateStoreOptions,
  type StoreClient,
  type StoreScenario,
} from '../core/state/state-store.js';
import {
  assertClientWindows,
  categoryTooLargeMessage,
  clientName,
  clockBehindMessage,
  clockRangeMessage,
  sortClients,
  startingStateOf,
} from '../core/state/store-checks.js';

// The Redis store's values as its Lua scripts take and answer them (redis-scripts.ts): flat lists of
// strings and the JSON the scripts store, to and from the store's types. Every decoder of stored data
// throws when it is not what the mock writes (the store answers store_corrupt).

/** The categories a seeded session starts with: each seed with the next id, one larger than the whole bound skipped (as both stores seed). */
export function seededCategories(options: Readonly<StateStoreOptions>): Category[] {
  const seeded = new CategoryStore({ maxCount: options.maxCategories, maxBytes: options.maxCategoryBytes });
  for (const seed of options.seedCategories) {
    try {
      seeded.create(seed);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
    }
  }
  return seeded.list();
}

/** The hit script's arguments before the category operation's: the request, the anonymous limits, the ban policy. */
export function hitArgs(input: HitInput, options: Readonly<StateStoreOptions>, historyTtlMs: number): string[] {
  return [
    String(input.baseTimeMs),
    input.keyDigest ?? '',
    input.configKey ? JSON.stringify(entryRecord(input.configKey)) : '',
    String(options.anonymous.perMinute),
    String(options.anonymous.perDay),
    options.ban.enabled ? '1' : '0',
    String(options.ban.threshold),
    String(options.ban.durationMs),
    String(historyTtlMs),
  ];
}

/** What the scenario script is told besides the seeds, in its order: before the seeds flag, and after it. */
export interface ScenarioArgs {
  beforeSeedFlag: string[];
  afterSeedFlag: string[];
}

/** The limits and places the scenario script needs beside the scenario itself. */
export interface ScenarioContext {
  baseTimeMs: number;
  historyTtlMs: number;
  options: Readonly<StateStoreOptions>;
  /** The session's bucket key prefix (`prefix{session}:b:`). */
  bucketPrefix: string;
}

/** The scenario script's arguments: head, counts, [seeds flag], restore, steps, [seeds]. */
export function scenarioArgs(scenario: StoreScenario, context: ScenarioContext): ScenarioArgs {
  const { baseTimeMs, historyTtlMs, options, bucketPrefix: prefix } = context;
  const clients = scenario.clients ?? [];
  const list = scenario.categoryList;
  const clock = scenario.clock;
  const head = [
    String(baseTimeMs),
    clock?.kind ?? '',
    clock === undefined ? '' : String(clock.kind === 'advance' ? clock.ms : clock.atMs),
    scenario.afterSunset ?? '',
    String(historyTtlMs),
    String(options.maxCategories),
    String(options.maxCategoryBytes),
  ];
  const counts = [scenario.keys.length, scenario.spends.length, scenario.bans.length, scenario.categories.length].map(
    String,
  );
  const restore = [
    String(clients.length),
    String(list === undefined ? -1 : list.length),
    String(list?.[0]?.id ?? 1),
    prefix,
    `${globEscaped(prefix)}*`,
  ];
  const steps = [
    ...scenario.keys.flatMap((key) => [key.digest, JSON.stringify(entryRecord(key))]),
    ...clients.flatMap(({ windows }) => windowArgs(windows)),
    ...scenario.spends.flatMap(({ spent }) => [countArg(spent.minute), countArg(spent.day)]),
    ...scenario.bans.map(({ ms }) => String(ms)),
    ...(list ?? []).map(({ id: _id, ...fields }) => JSON.stringify(fields)),
    ...scenario.categories.map((category) => JSON.stringify(category)),
  ];
  return { beforeSeedFlag: [...head, ...counts], afterSeedFlag: [...restore, ...steps] };
}

/** A hit as the script answers it: the decision, the key, the history and the category operation's result. */
export function hitResultFrom(reply: string[], input: HitInput, maxCategoryBytes: number): HitResult {
  const [
    outcome,
    limit,
    remaining,
    resetAtMs,
    retryAfterSeconds,
    nowMs,
    source,
    entryJson,
    requests,
    refusals,
    consecutive,
    previousAt,
    previousRetry,
    done,
    dropped,
    ...bucket
  ] = reply;
  const key = source === '' ? null : entryRecord(JSON.parse(entryJson!) as ApiKeyEntry);
  const limits = { perMinute: Number(bucket[4]), perDay: Number(bucket[5]) };
  const result: HitResult = {
    nowMs: Number(nowMs),
    decision: decisionFrom([outcome!, limit!, remaining!, resetAtMs!, retryAfterSeconds!], bucket, limits),
    key,
    client: key ? `k:${key.id}` : `a:${input.clientAddress}`,
    history: {
      requests: Number(requests),
      refusals: Number(refusals),
      consecutiveRefusals: Number(consecutive),
      previousRefusal:
        previousAt === '' ? null : { atMs: Number(previousAt), retryAfterSeconds: Number(previousRetry) },
    },
  };
  const operation = input.categories;
  if (operation?.kind === 'list' && done !== '') result.categoriesJson = done;
  else if (operation?.kind === 'create' && done === 'too_large')
    result.categoryRefusal = new HttpError(
      'payload_too_large',
      categoryTooLargeMessage(Number(dropped), maxCategoryBytes),
    );
  else if (operation?.kind === 'create' && done !== '') result.created = createdText(createdFrom(done!, dropped!));
  return result;
}

/** A decision as the scripts return it: the headline fields, then the bucket's window starts and counts. */
export function decisionFrom(head: readonly string[], bucket: readonly string[], limits: Limits): RateDecision {
  const outcome = head[0] as RateDecision['outcome'];
  const resetAtMs = Number(head[3]);
  const counts = {
    minuteStart: Number(bucket[0]),
    minuteCount: Number(bucket[1]),
    dayStart: Number(bucket[2]),
    dayCount: Number(bucket[3]),
  };
  // A banned client has nothing left in either window until the ban ends (as RateLimiter says).
  const windows =
    outcome === 'banned'
      ? windowsOf(counts, limits).map((window) => ({ ...window, remaining: 0, resetAtMs }))
      : windowsOf(counts, limits);
  return {
    outcome,
    limit: Number(head[1]),
    remaining: Number(head[2]),
    resetAtMs,
    retryAfterSeconds: Number(head[4]),
    windows,
  };
}

/** The refusal the scenario script answered with, in the memory store's words. */
export function scenarioRefusal(
  reply: string[],
  scenario: StoreScenario,
  maxCategoryBytes: number,
): ScenarioRefusedError {
  const [, part, index, value] = reply;
  if (part === 'category')
    return new ScenarioRefusedError(
      'category',
      Number(index),
      categoryTooLargeMessage(Number(value), maxCategoryBytes),
    );
  if (part === 'clock-behind' && scenario.clock?.kind === 'to')
    return new ScenarioRefusedError('clock-behind', 0, clockBehindMessage(scenario.clock.atMs, Number(value)));
  return new ScenarioRefusedError('clock-range', 0, clockRangeMessage(Number(value)));
}

/** A prefix as a SCAN pattern matches it literally. */
export function globEscaped(text: string): string {
  return text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);
}

/** A client's windows as the scenario script takes them: ms mc ds dc st bu ('-' when not banned). */
function windowArgs(windows: ClientWindows): string[] {
  return [
    String(windows.minuteStartMs),
    String(windows.minuteCount),
    String(windows.dayStartMs),
    String(windows.dayCount),
    String(windows.strikes),
    windows.bannedUntilMs === null ? '-' : String(windows.bannedUntilMs),
  ];
}

/** "ms mc ds dc st bu" as the scripts write a client's windows; throws when it is not that. */
function windowsFrom(text: string): ClientWindows {
  const fields = text.split(' ');
  const numbers = fields.map((field) => (field === '-' ? null : Number(field)));
  if (fields.length !== 6 || numbers.slice(0, 5).some((value) => value === null || !Number.isSafeInteger(value)))
    throw new Error('not a client bucket');
  const windows: ClientWindows = {
    minuteStartMs: numbers[0]!,
    minuteCount: numbers[1]!,
    dayStartMs: numbers[2]!,
    dayCount: numbers[3]!,
    strikes: numbers[4]!,
    bannedUntilMs: numbers[5] ?? null,
  };
  assertClientWindows(windows);
  return windows;
}

/** `k:<id>` or `a:<address>` (a bucket key's name, the address URI-encoded) as a client. */
function clientFromBucketName(name: string): StoreClient {
  if (name.startsWith('k:')) return { kind: 'key', id: name.slice(2) };
  if (name.startsWith('a:')) return { kind: 'anonymous', address: decodeURIComponent(name.slice(2)) };
  throw new Error('not a client bucket');
}

interface SnapshotParts {
  off: string;
  as: string;
  keys: string[] | Record<string, never>;
  cats: string;
  clients: string[] | Record<string, never>;
}

/** The snapshot script's parts as a scenario (see StateStore.snapshot); throws when they are not what it writes. */
export function scenarioFromParts(parts: SnapshotParts, seeds: Category[]): StoreScenario {
  const keyPairs = Array.isArray(parts.keys) ? parts.keys : [];
  const keys: { position: number; key: RuntimeKey }[] = [];
  for (let index = 0; index + 1 < keyPairs.length; index += 2) {
    const { position, entry } = storedKeyFrom(keyPairs[index + 1]!);
    keys.push({ position, key: { ...entry, digest: keyPairs[index]! } });
  }
  const clients = (Array.isArray(parts.clients) ? parts.clients : []).map((line) => {
    const space = line.indexOf(' ');
    return { client: clientFromBucketName(line.slice(0, space)), windows: windowsFrom(line.slice(space + 1)) };
  });
  const offset = Number(parts.off);
  if (!Number.isFinite(offset)) throw new Error('not a clock offset');
  const afterSunset = parts.as === 'serve' || parts.as === 'gone' ? parts.as : undefined;
  return {
    clock: { kind: 'advance', ms: offset },
    ...(afterSunset === undefined ? {} : { afterSunset }),
    keys: keys.sort((a, b) => a.position - b.position).map(({ key }) => key),
    spends: [],
    bans: [],
    categories: [],
    clients: sortClients(clients),
    categoryList: parts.cats === '' ? seeds : (JSON.parse(parts.cats) as Category[]),
  };
}

/** The meta fields of the log's starting state (sa, ss, dn, df, dl, d:<client>) as StartingState. */
export function startingStateFrom(meta: Map<string, string>, seeds: Category[]): StartingState {
  const text = meta.get('ss');
  const state =
    text === undefined
      ? scenarioFromParts({ off: '0', as: '', keys: [], cats: '', clients: [] }, seeds)
      : scenarioFromParts(JSON.parse(text) as SnapshotParts, seeds);
  const at = meta.get('sa');
  const atMs = at === undefined ? null : Number(at);
  const count = Number(meta.get('dn') ?? '0');
  if (count === 0) return { atMs, state, dropped: null };
  const dropped = { count, firstAtMs: Number(meta.get('df')), lastAtMs: Number(meta.get('dl')) };
  const after = new Map<string, { client: StoreClient; windows: ClientWindows }>();
  for (const [field, value] of meta)
    if (field.startsWith('d:')) {
      const name = field.slice(2);
      const client: StoreClient = name.startsWith('k:')
        ? { kind: 'key', id: name.slice(2) }
        : { kind: 'anonymous', address: name.slice(2) };
      after.set(clientName(client), { client, windows: windowsFrom(value) });
    }
  return startingStateOf(atMs, state, dropped, after);
}

export function countArg(count: number | undefined): string {
  return count === undefined ? '' : String(count);
}

/** The stored form of a key entry: the public fields only (never the key, never the digest). */
export function entryRecord({ masked, plan, limits, id }: ApiKeyEntry): ApiKeyEntry {
  return { masked, plan, limits: { perMinute: limits.perMinute, perDay: limits.perDay }, id };
}

/** A run-time key as stored (`position|entry JSON`); throws when it is not what the store writes. */
export function storedKeyFrom(stored: string): { position: number; entry: ApiKeyEntry } {
  const bar = stored.indexOf('|');
  const entry = JSON.parse(stored.slice(bar + 1)) as ApiKeyEntry;
  const position = Number(stored.slice(0, bar));
  if (
    bar < 1 ||
    !Number.isSafeInteger(position) ||
    typeof entry.masked !== 'string' ||
    typeof entry.plan !== 'string' ||
    typeof entry.id !== 'string' ||
    !Number.isSafeInteger(entry.limits?.perMinute) ||
    !Number.isSafeInteger(entry.limits?.perDay)
  ) {
    throw new Error('not a stored key');
  }
  return { position, entry: entryRecord(entry) };
}

/** A log line as stored; throws when it is not what the store writes. */
export function recordedFrom(stored: string): RecordedRequest {
  // pc and post: the client's windows kept for the starting state (the append script), not the log's.
  const {
    pc: _client,
    post: _post,
    ...entry
  } = JSON.parse(stored) as RecordedRequest & { pc?: unknown; post?: unknown };
  if (
    entry === null ||
    typeof entry !== 'object' ||
    typeof entry.timeMs !== 'number' ||
    !Number.isFinite(entry.timeMs) ||
    Math.abs(entry.timeMs) > 8.64e15 ||
    typeof entry.method !== 'string' ||
    typeof entry.path !== 'string' ||
    typeof entry.status !== 'number'
  ) {
    throw new Error('not a log line');
  }
  return entry;
}

/** What the hit answers of a created category: its id instead of the object. */
function createdText({ category, ...created }: CreatedCategory): CreatedCategoryText {
  return { id: category.id, ...created };
}

/** A stored category as the script answers it: its text is the memory store's (`{"id":N,` + the input's JSON), kept as it is. */
export function createdFrom(categoryJson: string, dropped: string): CreatedCategory {
  return {
    category: JSON.parse(categoryJson) as Category,
    dropped: Number(dropped),
    json: categoryJson,
    bytes: Buffer.byteLength(categoryJson, 'utf8'),
  };
}
