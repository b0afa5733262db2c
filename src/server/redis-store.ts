import { createHash, randomBytes } from 'node:crypto';
import type { Category, NewCategory } from '../../spec/schemas.js';
import type { ApiKeyEntry } from '../core/state/key-registry.js';
import { assertAfterSunsetMode, assertClockStep, assertDigest, assertRuntimeKey, sortSessions } from '../core/state/store-checks.js';
import { HttpError } from '../core/errors.js';
import type { Limits } from '../core/config/mock-config.js';
import { windowsOf, type RateDecision } from '../core/state/rate-limiter.js';
import { publicLogEntry, type RecordedRequest, type RequestLogEntry } from '../core/state/request-log.js';
import { AfterSunsetModeSchema, type AfterSunsetMode } from '../core/config/store-config.js';
import { assertClientStep } from '../core/state/store-checks.js';
import { assertSessionName, defaultSessionName } from '../core/state/sessions.js';
import { assertStoreOptions } from '../core/state/store-options.js';
import { StoreUnavailableError, TooManySessionsError, type CreatedCategory, type CreatedCategoryText, type HitInput, type HitResult, type RuntimeKey, type SessionInfo, type SessionStats, type SpentCounts, type StateStore, type StateStoreOptions, type StoreClient } from '../core/state/state-store.js';
import { silentLogger, type Logger } from '../core/types.js';

/**
 * The Redis state store, for replicas behind a load balancer. Node only: nothing in `src/core` or
 * `mocks/` imports this file, so the browser bundle never contains a Redis client.
 *
 * - node-redis (`redis` on npm) is an optional peer dependency, loaded with `import()` when a Redis
 *   store is asked for; without it, one line names the install command.
 * - One Lua script per operation (one round trip; atomic across replicas). Times come from the
 *   caller's clock, never Redis TIME, so the virtual-clock controls keep working.
 * - Every key is under `prefix` and carries the session as its hash tag (`prefix{session}:...`),
 *   so each script touches one slot and the same code runs on Redis Cluster.
 * - Every key has a TTL: windows expire, a session's keys expire after its idle time. The default
 *   session's categories, keys and log are bounded by size instead (maxCategories, requestLogSize).
 * - Failure is an answer: each call rejects with StoreUnavailableError within `timeoutMs`; the client
 *   reconnects by itself and requests made while it is away fail at once (no offline queue).
 *
 * Design and key layout: docs/decisions/010-state-store.md.
 *
 * @example
 * const store = await connectRedisStore({ url: 'redis://127.0.0.1:6379/0' }, storeOptionsFromConfig(config, seeds));
 * await store.hit('default', { baseTimeMs: Date.now(), clientAddress: '10.0.0.7' });
 */
export interface RedisStoreOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://...` for TLS. */
  url: string;
  /** Put in front of every key, so several mocks (or other tools) can share one Redis. Default `petstore-mock:`. */
  prefix?: string;
  /** Longest wait for any Redis call before it fails with StoreUnavailableError. Default 2000 ms (1..5000). */
  timeoutMs?: number;
  /** Retry-After (seconds) carried by StoreUnavailableError. Default 2. */
  retryAfterSeconds?: number;
  /** `url` is one node of a Redis Cluster; the others are discovered. Default false. */
  cluster?: boolean;
  logger?: Logger;
}

/** A startup problem with the Redis store: one line for the CLI to print before it exits with 2. */
export class StoreConfigError extends Error {
  readonly code = 'store_config' as const;

  constructor(message: string) {
    super(message);
    this.name = 'StoreConfigError';
  }
}

const minuteMs = 60_000;
const dayMs = 86_400_000;

/** Shared prologue of every session script: KEYS[1..5] are the session's meta, keys, categories, id sequence and log. */
const luaPrologue = `
local function num(x) return string.format('%.17g', x) end
-- "Not banned" and "no refusal yet" are no time (any time may be a request's, 1969 too): '-' in a bucket, -inf here.
local none = -math.huge
local function time_or_none(text) if text == '-' then return none end return tonumber(text) end
local function time_text(t) if t == none then return '-' end return num(t) end
local ttl = tonumber(ARGV[1])
local session = redis.call('HMGET', KEYS[1], 'off', 'ep')
if not session[1] then
  -- A new (or expired) session starts clean, even if a stray key of an old one outlived it.
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
  redis.call('HSET', KEYS[1], 'ep', ARGV[2], 'off', '0', 'sd', '0', 'dr', '0', 'ks', '0', 'by', '2')
  session = { '0', ARGV[2] }
end
local offset, epoch = tonumber(session[1]), session[2]
-- A named session's keys live ttl ms after its last use. Refreshed at most once a second (the meta
-- key's PTTL tells when it was last done); a key created in between gets its TTL when created.
local function refresh_ttl()
  if ttl > 0 and redis.call('PTTL', KEYS[1]) < ttl - math.min(1000, math.floor(ttl / 2)) then
    for i = 1, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
  end
end
local function expire_new(key)
  if ttl > 0 then redis.call('PEXPIRE', key, ARGV[1]) end
end
-- CategoryStore.create (src/core/state/category-store.ts), line for line: bounded in count and in bytes of the
-- served list ("[" + items joined by "," + "]", UTF-8: a Lua string's length is its byte count). A category
-- larger than the whole bound is refused (nil and its size) and takes no id.
local function push_category(max, max_bytes, fields)
  local id = string.format('%d', tonumber(redis.call('GET', KEYS[4]) or '0') + 1)
  local json
  if fields == '{}' then json = '{"id":' .. id .. '}' else json = '{"id":' .. id .. ',' .. string.sub(fields, 2) end
  local bytes = #json
  if 2 + bytes > max_bytes then return nil, bytes end
  redis.call('INCR', KEYS[4])
  local total = tonumber(redis.call('HGET', KEYS[1], 'by') or '2')
  local count = redis.call('LLEN', KEYS[3])
  while count > 0 and (count >= max or total + bytes + 1 > max_bytes) do
    local old = redis.call('LPOP', KEYS[3])
    count = count - 1
    total = total - #old
    if count > 0 then total = total - 1 end
    redis.call('HINCRBY', KEYS[1], 'dr', 1)
  end
  if count > 0 then total = total + 1 end
  redis.call('RPUSH', KEYS[3], json)
  redis.call('HSET', KEYS[1], 'by', string.format('%d', total + bytes))
  return json
end
-- Seeds ARGV[first..] (category JSON without id) unless already seeded; false when they are needed and absent.
local function ensure_seeded(max, max_bytes, seeds_given, first)
  if redis.call('HGET', KEYS[1], 'sd') == '1' then return true end
  if seeds_given ~= '1' then return false end
  redis.call('DEL', KEYS[3], KEYS[4])
  redis.call('HSET', KEYS[1], 'dr', '0', 'sd', '1', 'by', '2')
  for i = first, #ARGV do push_category(max, max_bytes, ARGV[i]) end
  expire_new(KEYS[3])
  expire_new(KEYS[4])
  return true
end
-- A bucket is one string, "epoch ms mc ds dc st bu hr hf hc la lr": one GET and one SET per request.
local function read_bucket(key)
  local raw = redis.call('GET', key)
  if not raw then return nil end
  local fields = {}
  for part in string.gmatch(raw, '%S+') do fields[#fields + 1] = part end
  if fields[1] ~= epoch then return nil end
  return fields
end
`;

/** Lua: the bucket at `key` as locals (ms mc ds dc: the windows; st bu: refusals in a row and the ban; then the history), or a fresh one at `now`. */
function readBucketFields(key: string): string {
  return `local f = read_bucket(${key})
local ms, mc, ds, dc, st, bu, hr, hf, hc, la, lr = now, 0, now, 0, 0, none, 0, 0, 0, none, 0
if f then
  ms, mc, ds, dc, st, bu = tonumber(f[2]), tonumber(f[3]), tonumber(f[4]), tonumber(f[5]), tonumber(f[6]), time_or_none(f[7])
  hr, hf, hc, la, lr = tonumber(f[8]), tonumber(f[9]), tonumber(f[10]), time_or_none(f[11]), tonumber(f[12])
end
`;
}

/** Lua: a window that is over starts again at `now` (RateLimiter's roll-over). */
const rollWindows = `if now >= ms + ${minuteMs} then ms = now; mc = 0 end
if now >= ds + ${dayMs} then ds = now; dc = 0 end
`;

/**
 * Lua: stores the bucket's locals at `key`. It lives while a window or the ban runs, and at least as
 * long as the history is kept (ARGV[historyTtlArgument]).
 */
function writeBucket(key: string, historyTtlArgument: number): string {
  return `local keep = math.max(math.ceil(math.max(ds + ${dayMs}, ms + ${minuteMs}, bu) - now) + 1000, tonumber(ARGV[${historyTtlArgument}]))
redis.call('SET', ${key}, table.concat({ epoch, num(ms), num(mc), num(ds), num(dc), num(st), time_text(bu), num(hr), num(hf), num(hc), time_text(la), num(lr) }, ' '), 'PX', string.format('%d', keep))
`;
}

/**
 * One request of one client: the same rules as RateLimiter.hit (src/core/state/rate-limiter.ts), line for line.
 * KEYS[6]: the key's bucket, KEYS[7]: the anonymous address's bucket.
 * ARGV: ttl, nonce, base, digest|'', configKeyJson|'', anonPerMinute, anonPerDay, banEnabled, banThreshold, banMs, historyTtl,
 *   categoryOperation ('' | 'list' | 'create'), requiresKey, fieldsJson, maxCategories, maxCategoryBytes, seedsGiven, seeds...
 * Returns the decision, the bucket's windows (ms mc ds dc, and the limits they were counted against), the key,
 * the history, and the category operation's result.
 */
const hitScript = `${luaPrologue}
local now = tonumber(ARGV[3]) + offset
local entry, source = nil, ''
if ARGV[4] ~= '' then
  local stored = redis.call('HGET', KEYS[2], ARGV[4])
  if stored then entry = string.sub(stored, string.find(stored, '|', 1, true) + 1); source = 'r' end
end
if not entry and ARGV[5] ~= '' then entry = ARGV[5]; source = 'c' end
local per_minute, per_day, bucket
if entry then
  local limits = cjson.decode(entry).limits
  per_minute, per_day, bucket = tonumber(limits.perMinute), tonumber(limits.perDay), KEYS[6]
else
  per_minute, per_day, bucket = tonumber(ARGV[6]), tonumber(ARGV[7]), KEYS[7]
end
${readBucketFields('bucket')}local outcome, limit, remaining, reset_at
local tighter = math.min(per_minute, per_day)
if bu > now then
  outcome, limit, remaining, reset_at = 'banned', tighter, 0, bu
else
  if bu ~= none then bu = none; st = 0 end
  ${rollWindows}  local minute_full, day_full = mc >= per_minute, dc >= per_day
  if minute_full or day_full then
    st = st + 1
    if ARGV[8] == '1' and st > tonumber(ARGV[9]) then
      bu = now + tonumber(ARGV[10])
      outcome, limit, remaining, reset_at = 'banned', tighter, 0, bu
    else
      -- When both are full the client waits for the later of the two resets.
      local use_day = day_full and ((not minute_full) or ds + ${dayMs} >= ms + ${minuteMs})
      if use_day then limit, reset_at = per_day, ds + ${dayMs} else limit, reset_at = per_minute, ms + ${minuteMs} end
      outcome, remaining = 'limited', 0
    end
  else
    mc = mc + 1; dc = dc + 1; st = 0
    local minute_left, day_left = per_minute - mc, per_day - dc
    if day_left <= minute_left then
      limit, remaining, reset_at = per_day, math.max(0, day_left), ds + ${dayMs}
    else
      limit, remaining, reset_at = per_minute, math.max(0, minute_left), ms + ${minuteMs}
    end
    outcome = 'allowed'
  end
end
local retry_after = math.max(1, math.ceil((reset_at - now) / 1000))
local previous_at, previous_retry = '', ''
if la ~= none then previous_at, previous_retry = num(la), num(lr) end
hr = hr + 1
if outcome == 'allowed' then hc = 0 else hf = hf + 1; hc = hc + 1; la = now; lr = retry_after end
${writeBucket('bucket', 11)}-- The request's category operation in the same round trip, only when it is served (and, for a create that
-- needs a key, made with one): 'list' returns the list, 'create' the new category and the dropped count.
-- A session not seeded yet whose seeds did not come along answers 'seed'; the caller then does it apart.
local done, dropped = '', ''
if ARGV[12] ~= '' and outcome == 'allowed' and (ARGV[13] ~= '1' or source ~= '') then
  local max, max_bytes = tonumber(ARGV[15]), tonumber(ARGV[16])
  if not ensure_seeded(max, max_bytes, ARGV[17], 18) then
    done = 'seed'
  elseif ARGV[12] == 'list' then
    done = '[' .. table.concat(redis.call('LRANGE', KEYS[3], 0, -1), ',') .. ']'
  else
    local json, size = push_category(max, max_bytes, ARGV[14])
    if json then
      done = json
      expire_new(KEYS[3])
      expire_new(KEYS[4])
      dropped = redis.call('HGET', KEYS[1], 'dr')
    else
      done, dropped = 'too_large', num(size)
    end
  end
end
refresh_ttl()
return { outcome, num(limit), num(remaining), num(reset_at), num(retry_after), num(now), source, entry or '',
  num(hr), num(hf), num(hc), previous_at, previous_retry, done, dropped,
  num(ms), num(mc), num(ds), num(dc), num(per_minute), num(per_day) }
`;

/** RateLimiter.peek of an anonymous address. KEYS[6]: its bucket. ARGV: ttl, nonce, base, perMinute, perDay */
const peekScript = `${luaPrologue}
local now = tonumber(ARGV[3]) + offset
local per_minute, per_day = tonumber(ARGV[4]), tonumber(ARGV[5])
local f = read_bucket(KEYS[6])
local ms, mc, ds, dc, bu = now, 0, now, 0, none
if f then
  ms, mc, ds, dc, bu = tonumber(f[2]), tonumber(f[3]), tonumber(f[4]), tonumber(f[5]), time_or_none(f[7])
end
refresh_ttl()
if bu > now then
  return { 'banned', num(math.min(per_minute, per_day)), '0', num(bu), num(math.max(1, math.ceil((bu - now) / 1000))), num(ms), num(mc), num(ds), num(dc) }
end
${rollWindows}local minute_left, day_left = per_minute - mc, per_day - dc
local limit, remaining, reset_at
if day_left <= minute_left then
  limit, remaining, reset_at = per_day, math.max(0, day_left), ds + ${dayMs}
else
  limit, remaining, reset_at = per_minute, math.max(0, minute_left), ms + ${minuteMs}
end
return { 'allowed', num(limit), num(remaining), num(reset_at), num(math.max(1, math.ceil((reset_at - now) / 1000))), num(ms), num(mc), num(ds), num(dc) }
`;

/** The scenario scripts' start: the virtual now and the client's bucket in KEYS[6], or a fresh one. */
const readClientBucket = `local now = tonumber(ARGV[3]) + offset
${readBucketFields('KEYS[6]')}`;

/**
 * RateLimiter.setSpent (src/core/state/rate-limiter.ts), line for line. KEYS[6]: the client's bucket.
 * ARGV: ttl, nonce, base, minute|'', day|'', historyTtl. The history fields are kept as they are.
 */
const setSpentScript = `${luaPrologue}
${readClientBucket}${rollWindows}if ARGV[4] ~= '' then mc = tonumber(ARGV[4]) end
if ARGV[5] ~= '' then dc = tonumber(ARGV[5]) end
if dc < mc then dc = mc end
st = 0
${writeBucket('KEYS[6]', 6)}refresh_ttl()
return num(now)
`;

/** RateLimiter.banFor. KEYS[6]: the client's bucket. ARGV: ttl, nonce, base, durationMs, historyTtl. Returns when the ban ends. */
const banScript = `${luaPrologue}
${readClientBucket}bu = now + tonumber(ARGV[4])
${writeBucket('KEYS[6]', 5)}refresh_ttl()
return num(bu)
`;

/** ARGV: ttl, nonce, maxCategories, maxCategoryBytes, fieldsJson, seedsGiven, seeds... Returns the category JSON and the dropped count, 'seed', or 'too_large' and the size. */
const createCategoryScript = `${luaPrologue}
local max, max_bytes = tonumber(ARGV[3]), tonumber(ARGV[4])
if not ensure_seeded(max, max_bytes, ARGV[6], 7) then return { 'seed' } end
local json, size = push_category(max, max_bytes, ARGV[5])
if not json then return { 'too_large', num(size) } end
expire_new(KEYS[3])
expire_new(KEYS[4])
refresh_ttl()
return { json, redis.call('HGET', KEYS[1], 'dr') }
`;

/** ARGV: ttl, nonce, maxCategories, maxCategoryBytes, seedsGiven, seeds... Returns the list as JSON text, or 'seed'. */
const listCategoriesScript = `${luaPrologue}
if not ensure_seeded(tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], 6) then return { 'seed' } end
refresh_ttl()
return { '[' .. table.concat(redis.call('LRANGE', KEYS[3], 0, -1), ',') .. ']' }
`;

/** ARGV: ttl, nonce, maxCategories, maxCategoryBytes, seedsGiven, seeds... Returns count, bytes, dropped, or 'seed'. */
const statsScript = `${luaPrologue}
if not ensure_seeded(tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], 6) then return { 'seed' } end
refresh_ttl()
local meta = redis.call('HMGET', KEYS[1], 'by', 'dr')
return { num(redis.call('LLEN', KEYS[3])), meta[1] or '2', meta[2] or '0' }
`;

/** ARGV: ttl, nonce, digest, entryJson. A replaced key keeps its place in the list. Returns 1 when created. */
const addKeyScript = `${luaPrologue}
local stored = redis.call('HGET', KEYS[2], ARGV[3])
local position
if stored then position = string.sub(stored, 1, string.find(stored, '|', 1, true) - 1) else position = redis.call('HINCRBY', KEYS[1], 'ks', 1) end
redis.call('HSET', KEYS[2], ARGV[3], position .. '|' .. ARGV[4])
expire_new(KEYS[2])
refresh_ttl()
if stored then return 0 else return 1 end
`;

/** ARGV: ttl, nonce. Returns 'position|entryJson' strings. */
const listKeysScript = `${luaPrologue}
refresh_ttl()
return redis.call('HVALS', KEYS[2])
`;

/** ARGV: ttl, nonce, step. Returns the new offset. */
const advanceClockScript = `${luaPrologue}
local moved = offset + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'off', num(moved))
refresh_ttl()
return num(moved)
`;

/** ARGV: ttl, nonce. */
const clockOffsetScript = `${luaPrologue}
refresh_ttl()
return num(offset)
`;

/** ARGV: ttl, nonce, entryJson, capacity. Newest first in Redis; the log reads it backwards. */
const appendRequestScript = `${luaPrologue}
redis.call('LPUSH', KEYS[5], ARGV[3])
redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[4]) - 1)
expire_new(KEYS[5])
refresh_ttl()
return 1
`;

/** ARGV: ttl, nonce. */
const requestsScript = `${luaPrologue}
refresh_ttl()
return redis.call('LRANGE', KEYS[5], 0, -1)
`;

/**
 * ARGV: ttl, nonce. A new epoch retires every bucket of the session at once (they sit in one slot but
 * are never listed; each expires by its own TTL); categories are seeded again on next use. The clock stays.
 */
const resetScript = `${luaPrologue}
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('HSET', KEYS[1], 'ep', ARGV[2], 'sd', '0', 'dr', '0', 'ks', '0', 'by', '2')
redis.call('HDEL', KEYS[1], 'as')
refresh_ttl()
return 1
`;

/** ARGV: ttl, nonce, mode ('' clears it). The session's sunset.afterSunset, in its meta hash. */
const setAfterSunsetScript = `${luaPrologue}
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], 'as') else redis.call('HSET', KEYS[1], 'as', ARGV[3]) end
refresh_ttl()
return 1
`;

/** ARGV: ttl, nonce. Returns the mode or ''. */
const afterSunsetScript = `${luaPrologue}
refresh_ttl()
return redis.call('HGET', KEYS[1], 'as') or ''
`;

/**
 * The session registry (one key of its own, outside every session's slot). Admits `name` unless
 * `max` other sessions are alive, and records when it was last seen (scores never go back: GT).
 * KEYS[1]: registry. ARGV: name, base, idleMs, max, default.
 */
const admitScript = `
local name, base, idle, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local default_seen = redis.call('ZSCORE', KEYS[1], ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.17g', base - idle))
if default_seen then redis.call('ZADD', KEYS[1], default_seen, ARGV[5]) end
if name ~= ARGV[5] and not redis.call('ZSCORE', KEYS[1], name) then
  local named = redis.call('ZCARD', KEYS[1])
  if redis.call('ZSCORE', KEYS[1], ARGV[5]) then named = named - 1 end
  if named >= max then return 0 end
end
redis.call('ZADD', KEYS[1], 'GT', base, name)
-- Bounded by maxSessions + 1 entries, and gone once every session has been idle that long.
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.max(idle, 1000)))
return 1
`;

/** The registry, pruned of idle sessions. KEYS[1]: registry. ARGV: base, idleMs, default. */
const listSessionsScript = `
local default_seen = redis.call('ZSCORE', KEYS[1], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.17g', tonumber(ARGV[1]) - tonumber(ARGV[2])))
if default_seen then redis.call('ZADD', KEYS[1], default_seen, ARGV[3]) end
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
`;

interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const scripts = {
  hit: script(hitScript),
  peek: script(peekScript),
  createCategory: script(createCategoryScript),
  listCategories: script(listCategoriesScript),
  stats: script(statsScript),
  addKey: script(addKeyScript),
  listKeys: script(listKeysScript),
  advanceClock: script(advanceClockScript),
  clockOffset: script(clockOffsetScript),
  appendRequest: script(appendRequestScript),
  requests: script(requestsScript),
  reset: script(resetScript),
  admit: script(admitScript),
  listSessions: script(listSessionsScript),
  setSpent: script(setSpentScript),
  ban: script(banScript),
  setAfterSunset: script(setAfterSunsetScript),
  afterSunset: script(afterSunsetScript),
};

/** The Lua sources, for the decision note and for tests that read them. */
export const redisStoreScripts: Readonly<Record<keyof typeof scripts, string>> = Object.fromEntries(Object.entries(scripts).map(([name, { source }]) => [name, source])) as Record<keyof typeof scripts, string>;

/** What the store needs of a connection: send one command, get its reply. A cluster client fits behind it too. */
export interface RedisCommander {
  send(args: string[]): Promise<unknown>;
  readonly isReady: boolean;
  /** Whether `error` is an error reply of Redis (as opposed to a connection or timeout failure). */
  isReplyError(error: unknown): boolean;
  close(): Promise<void>;
}

interface PendingCall {
  deadline: number;
  reject(error: Error): void;
}

/** Seeds up to this size ride along with every category call; larger ones are sent only when a session needs seeding. */
const inlineSeedBytes = 4096;
/** A replica re-registers a session it uses at most this often (base clock); `lastSeenMs` is as precise. */
const registryTouchMs = 1_000;
const redisReplyUnavailable = /^(OOM|BUSY|LOADING|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)/;

/**
 * Connects to Redis and returns the store, or throws StoreConfigError with one line naming the store
 * (bad URL, node-redis not installed, Redis unreachable within `timeoutMs`).
 *
 * @example
 * try { store = await connectRedisStore({ url }, options) } catch (error) { console.error(error.message); process.exit(2) }
 */
export async function connectRedisStore(redisOptions: RedisStoreOptions, options: StateStoreOptions): Promise<StateStore> {
  const settings = resolveRedisOptions(redisOptions);
  const commander = await connectCommander(settings);
  return new RedisStore(commander, settings, options);
}

interface RedisSettings {
  url: string;
  cluster: boolean;
  /** The URL without its password, safe to print. */
  displayUrl: string;
  prefix: string;
  timeoutMs: number;
  retryAfterSeconds: number;
  logger: Logger;
}

export function resolveRedisOptions(options: RedisStoreOptions): RedisSettings {
  let parsed: URL;
  try {
    parsed = new URL(options.url);
  } catch {
    throw new StoreConfigError(`Failed to use the store ${JSON.stringify(options.url.slice(0, 200))}: not a URL; expected redis://HOST:PORT/DB`);
  }
  const displayUrl = parsed.password ? options.url.replace(`:${parsed.password}@`, ':***@') : options.url;
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: unsupported scheme ${parsed.protocol}; expected redis://HOST:PORT/DB or rediss://`);
  }
  if (parsed.pathname !== '' && parsed.pathname !== '/' && !/^\/\d{1,5}$/.test(parsed.pathname)) {
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: the path must be a database number (redis://HOST:PORT/0)`);
  }
  const prefix = options.prefix ?? 'petstore-mock:';
  if (prefix.length > 100 || /[{}\s]/.test(prefix)) {
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: the key prefix must be at most 100 characters without braces or spaces (braces are the hash tags)`);
  }
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 5_000) {
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: the timeout must be a whole number of milliseconds from 1 to 5000`);
  }
  const retryAfterSeconds = options.retryAfterSeconds ?? 2;
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 1 || retryAfterSeconds > 60) {
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: retryAfterSeconds must be a whole number from 1 to 60`);
  }
  if (options.cluster && parsed.pathname !== '' && parsed.pathname !== '/' && parsed.pathname !== '/0') {
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: a Redis Cluster has database 0 only`);
  }
  return { url: options.url, cluster: options.cluster ?? false, displayUrl, prefix, timeoutMs, retryAfterSeconds, logger: options.logger ?? silentLogger };
}

type RedisModule = typeof import('redis');

/**
 * node-redis is an optional peer: loaded only when a Redis store is asked for. `importer` is for tests.
 *
 * @example await loadRedisModule('redis://127.0.0.1:6379') // or StoreConfigError: "... run npm install redis"
 */
export async function loadRedisModule(displayUrl: string, importer: () => Promise<RedisModule> = () => import('redis')): Promise<RedisModule> {
  try {
    return await importer();
  } catch (error) {
    const missing = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' || (error as { code?: string }).code === 'MODULE_NOT_FOUND';
    if (missing) throw new StoreConfigError(`Failed to use the store ${displayUrl}: the Redis client is not installed; run npm install redis`);
    throw new StoreConfigError(`Failed to use the store ${displayUrl}: could not load the redis package (${(error as Error).message})`);
  }
}

/** What the store uses of a node-redis client or cluster besides sending commands. */
interface ConnectionHandle {
  connect(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  close(): Promise<void>;
  destroy(): void;
  readonly isOpen: boolean;
  readonly isReady: boolean;
}

async function connectCommander(settings: RedisSettings): Promise<RedisCommander> {
  const redis = await loadRedisModule(settings.displayUrl);
  let connectedOnce = false;
  let lastErrorLogAt = 0;
  const connection = {
    // Requests made while Redis is away fail at once (503) instead of waiting in a queue.
    disableOfflineQueue: true,
    // The store times calls itself, with one timer for all (node-redis would start one per command).
    commandOptions: { timeout: 0 },
    // A Redis that accepts connections but never answers: the queue stops growing here.
    commandsQueueMaxLength: 10_000,
    socket: {
      connectTimeout: settings.timeoutMs,
      // Before the first connection, fail (startup says so in one line); after it, reconnect for ever,
      // backing off to 1 s so the mock serves again within a second of Redis coming back.
      reconnectStrategy: (retries: number, cause: Error) => (connectedOnce ? Math.min(50 * 2 ** retries, 1_000) : cause),
    },
  };
  // A cluster is found from one of its nodes. Every script's keys share a hash tag, so a cluster sends
  // each call to the one node that owns the slot of its first key (EVALSHA sha numkeys KEY ...).
  let client: ConnectionHandle;
  let send: (args: string[]) => Promise<unknown>;
  if (settings.cluster) {
    const cluster = redis.createCluster({ rootNodes: [{ url: settings.url }], defaults: connection, commandOptions: { timeout: 0 } });
    client = cluster;
    send = (args) => cluster.sendCommand(args[3], false, args);
  } else {
    const single = redis.createClient({ url: settings.url, ...connection });
    client = single;
    send = (args) => single.sendCommand(args);
  }
  client.on('error', (error: Error) => {
    // node-redis reports every failed reconnect; one line per 10 s is enough for whoever watches.
    if (!connectedOnce) return;
    const now = Date.now();
    if (now - lastErrorLogAt < 10_000) return;
    lastErrorLogAt = now;
    settings.logger.warn(`Redis store ${settings.displayUrl} unavailable: ${error.message || error.name}; answering 503 until it is back`);
  });
  client.on('ready', () => {
    if (connectedOnce && lastErrorLogAt !== 0) settings.logger.info(`Redis store ${settings.displayUrl} is back`);
    lastErrorLogAt = 0;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${settings.timeoutMs} ms`)), settings.timeoutMs);
      }),
    ]);
    // Loaded once here so the first burst of requests does not all meet NOSCRIPT (EVALSHA falls back to
    // EVAL on its own after a Redis restart empties the script cache, and on each node of a cluster).
    if (!settings.cluster) await Promise.all(Object.values(scripts).map(({ source }) => send(['SCRIPT', 'LOAD', source])));
    connectedOnce = true;
  } catch (error) {
    try {
      client.destroy();
    } catch {
      // Never opened: nothing to release.
    }
    throw new StoreConfigError(`Failed to connect to the store ${settings.displayUrl}${settings.cluster ? ' (cluster)' : ''}: ${describeError(error)}`);
  } finally {
    clearTimeout(timer);
  }
  return {
    send,
    isReplyError: (error) => error instanceof redis.ErrorReply,
    get isReady() {
      return client.isReady;
    },
    async close() {
      try {
        if (client.isOpen) await client.close();
      } catch {
        client.destroy();
      }
    },
  };
}

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}


class RedisStore implements StateStore {
  readonly kind = 'redis' as const;
  readonly options: Readonly<StateStoreOptions>;
  readonly #redis: RedisCommander;
  readonly #settings: RedisSettings;
  readonly #seedArgs: string[];
  readonly #inlineSeeds: boolean;
  readonly #registryKey: string;
  /** Sessions this replica admitted, with the base time it last wrote them to the registry. Bounded by maxSessions + 1. */
  readonly #admitted = new Map<string, number>();
  readonly #admitting = new Map<string, Promise<void>>();
  readonly #inflight = new Set<PendingCall>();
  readonly #sweepMs: number;
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;
  /** A random epoch per session creation or reset (`#nonce`): buckets of an older epoch count as empty. */
  readonly #noncePrefix = randomBytes(6).toString('hex');
  #nonceCounter = 0;

  constructor(redis: RedisCommander, settings: RedisSettings, options: StateStoreOptions) {
    assertStoreOptions(options);
    this.#redis = redis;
    this.#settings = settings;
    this.options = { ...options, seedCategories: options.seedCategories.map((category) => ({ ...category })) };
    this.#seedArgs = options.seedCategories.map((category) => JSON.stringify(category));
    this.#inlineSeeds = this.#seedArgs.reduce((total, seed) => total + seed.length, 0) <= inlineSeedBytes;
    this.#registryKey = `${settings.prefix}sessions`;
    this.#sweepMs = Math.min(100, Math.max(10, Math.floor(settings.timeoutMs / 4)));
  }

  async hit(session: string, input: HitInput): Promise<HitResult> {
    if (input.keyDigest !== undefined) assertDigest(input.keyDigest);
    const keyId = input.configKey?.id ?? input.keyDigest?.slice(0, 32) ?? '-';
    const reply = (await this.#run(session, input.baseTimeMs, scripts.hit, { keys: [this.#key(session, `b:k:${keyId}`), this.#anonymousBucket(session, input.clientAddress)], args: [
      String(input.baseTimeMs),
      input.keyDigest ?? '',
      input.configKey ? JSON.stringify(entryRecord(input.configKey)) : '',
      String(this.options.anonymous.perMinute),
      String(this.options.anonymous.perDay),
      this.options.ban.enabled ? '1' : '0',
      String(this.options.ban.threshold),
      String(this.options.ban.durationMs),
      String(this.#historyTtlMs()),
      ...this.#categoryArgs(input.categories),
    ] })) as string[];
    const [outcome, limit, remaining, resetAtMs, retryAfterSeconds, nowMs, source, entryJson, requests, refusals, consecutive, previousAt, previousRetry, done, dropped, ...bucket] = reply;
    const key = source === '' ? null : entryFrom(JSON.parse(entryJson!));
    const limits = { perMinute: Number(bucket[4]), perDay: Number(bucket[5]) };
    const extra: Pick<HitResult, 'categoriesJson' | 'created' | 'categoryRefusal'> = {};
    const operation = input.categories;
    if (operation && done === 'seed') {
      // Seeds too large to ride along with every request: the first operation of the session sends them.
      if (operation.kind === 'list') extra.categoriesJson = await this.listCategoriesJson(session, input.baseTimeMs);
      else extra.created = createdText(await this.createCategory(session, operation.input, input.baseTimeMs));
    } else if (operation?.kind === 'list' && done !== '') {
      extra.categoriesJson = done;
    } else if (operation?.kind === 'create' && done === 'too_large') {
      extra.categoryRefusal = tooLargeCategory(Number(dropped), this.options.maxCategoryBytes);
    } else if (operation?.kind === 'create' && done !== '') {
      extra.created = createdText(createdFrom(done!, dropped!));
    }
    return {
      ...extra,
      nowMs: Number(nowMs),
      decision: decisionFrom([outcome!, limit!, remaining!, resetAtMs!, retryAfterSeconds!], bucket, limits),
      key,
      client: key ? `k:${key.id}` : `a:${input.clientAddress}`,
      history: {
        requests: Number(requests),
        refusals: Number(refusals),
        consecutiveRefusals: Number(consecutive),
        previousRefusal: previousAt === '' ? null : { atMs: Number(previousAt), retryAfterSeconds: Number(previousRetry) },
      },
    };
  }

  async peekAnonymous(session: string, clientAddress: string, baseTimeMs: number): Promise<RateDecision> {
    const reply = (await this.#run(session, baseTimeMs, scripts.peek, { keys: [this.#anonymousBucket(session, clientAddress)], args: [
      String(baseTimeMs),
      String(this.options.anonymous.perMinute),
      String(this.options.anonymous.perDay),
    ] })) as string[];
    return decisionFrom(reply.slice(0, 5), reply.slice(5), this.options.anonymous);
  }

  async createCategory(session: string, input: NewCategory, baseTimeMs: number): Promise<CreatedCategory> {
    const fields = JSON.stringify(input);
    const attempt = (withSeeds: boolean) => this.#run(session, baseTimeMs, scripts.createCategory, { args: [String(this.options.maxCategories), String(this.options.maxCategoryBytes), fields, ...this.#seeds(withSeeds)] }) as Promise<string[]>;
    let reply = await attempt(this.#inlineSeeds);
    if (reply[0] === 'seed') reply = await attempt(true);
    if (reply[0] === 'too_large') throw tooLargeCategory(Number(reply[1]), this.options.maxCategoryBytes);
    return createdFrom(reply[0]!, reply[1]!);
  }

  async listCategories(session: string, baseTimeMs: number): Promise<Category[]> {
    return JSON.parse(await this.listCategoriesJson(session, baseTimeMs)) as Category[];
  }

  async listCategoriesJson(session: string, baseTimeMs: number): Promise<string> {
    const attempt = (withSeeds: boolean) => this.#run(session, baseTimeMs, scripts.listCategories, { args: [String(this.options.maxCategories), String(this.options.maxCategoryBytes), ...this.#seeds(withSeeds)] }) as Promise<string[]>;
    let reply = await attempt(this.#inlineSeeds);
    if (reply[0] === 'seed') reply = await attempt(true);
    return reply[0]!;
  }

  async stats(session: string, baseTimeMs: number): Promise<SessionStats> {
    const attempt = (withSeeds: boolean) => this.#run(session, baseTimeMs, scripts.stats, { args: [String(this.options.maxCategories), String(this.options.maxCategoryBytes), ...this.#seeds(withSeeds)] }) as Promise<string[]>;
    let reply = await attempt(this.#inlineSeeds);
    if (reply[0] === 'seed') reply = await attempt(true);
    return {
      categories: { count: Number(reply[0]), bytes: Number(reply[1]), maxCount: this.options.maxCategories, maxBytes: this.options.maxCategoryBytes },
      // Anonymous clients are bounded by TTL in Redis, never forgotten early.
      dropped: { categories: Number(reply[2]), trackedClients: 0 },
    };
  }

  async addKey(session: string, key: RuntimeKey, baseTimeMs: number): Promise<{ created: boolean }> {
    assertRuntimeKey(key);
    const reply = await this.#run(session, baseTimeMs, scripts.addKey, { args: [key.digest, JSON.stringify(entryRecord(key))] });
    return { created: Number(reply) === 1 };
  }

  async listKeys(session: string, baseTimeMs: number): Promise<ApiKeyEntry[]> {
    const reply = (await this.#run(session, baseTimeMs, scripts.listKeys, {})) as string[];
    return reply
      .map((stored) => {
        const bar = stored.indexOf('|');
        return { position: Number(stored.slice(0, bar)), entry: entryFrom(JSON.parse(stored.slice(bar + 1))) };
      })
      .sort((a, b) => a.position - b.position)
      .map(({ entry }) => entry);
  }

  async advanceClock(session: string, ms: number, baseTimeMs: number): Promise<number> {
    assertClockStep(ms);
    return Number(await this.#run(session, baseTimeMs, scripts.advanceClock, { args: [String(ms)] }));
  }

  async clockOffset(session: string, baseTimeMs: number): Promise<number> {
    return Number(await this.#run(session, baseTimeMs, scripts.clockOffset, {}));
  }

  async appendRequest(session: string, entry: RecordedRequest, baseTimeMs: number): Promise<void> {
    await this.#run(session, baseTimeMs, scripts.appendRequest, { args: [JSON.stringify(entry), String(this.options.requestLogSize)] });
  }

  async requests(session: string, baseTimeMs: number): Promise<RequestLogEntry[]> {
    const reply = (await this.#run(session, baseTimeMs, scripts.requests, {})) as string[];
    const entries: RequestLogEntry[] = [];
    for (let index = reply.length - 1; index >= 0; index -= 1) entries.push(publicLogEntry(JSON.parse(reply[index]!) as RecordedRequest));
    return entries;
  }

  async recordedRequests(session: string, baseTimeMs: number): Promise<RecordedRequest[]> {
    const reply = (await this.#run(session, baseTimeMs, scripts.requests, {})) as string[];
    const entries: RecordedRequest[] = [];
    for (let index = reply.length - 1; index >= 0; index -= 1) entries.push(JSON.parse(reply[index]!) as RecordedRequest);
    return entries;
  }

  async reset(session: string, baseTimeMs: number): Promise<void> {
    await this.#run(session, baseTimeMs, scripts.reset, {});
  }

  async listSessions(baseTimeMs: number): Promise<SessionInfo[]> {
    this.#assertOpen();
    const reply = (await this.#call(scripts.listSessions, [this.#registryKey], [String(baseTimeMs), String(this.options.sessionIdleMs), defaultSessionName])) as string[];
    const sessions: SessionInfo[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2) sessions.push({ name: reply[index]!, lastSeenMs: Number(reply[index + 1]) });
    if (!sessions.some((session) => session.name === defaultSessionName)) sessions.push({ name: defaultSessionName, lastSeenMs: null });
    return sortSessions(sessions);
  }

  async setSpent(session: string, client: StoreClient, spent: SpentCounts, baseTimeMs: number): Promise<void> {
    assertClientStep(client, spent, null);
    await this.#run(session, baseTimeMs, scripts.setSpent, { keys: [this.#clientBucket(session, client)], args: [String(baseTimeMs), spent.minute === undefined ? '' : String(spent.minute), spent.day === undefined ? '' : String(spent.day), String(this.#historyTtlMs())] });
  }

  async ban(session: string, client: StoreClient, ms: number, baseTimeMs: number): Promise<{ untilMs: number }> {
    assertClientStep(client, null, ms);
    const reply = await this.#run(session, baseTimeMs, scripts.ban, { keys: [this.#clientBucket(session, client)], args: [String(baseTimeMs), String(ms), String(this.#historyTtlMs())] });
    return { untilMs: Number(reply) };
  }

  async setAfterSunset(session: string, mode: AfterSunsetMode | null, baseTimeMs: number): Promise<void> {
    assertAfterSunsetMode(mode);
    await this.#run(session, baseTimeMs, scripts.setAfterSunset, { args: [mode ?? ''] });
  }

  async afterSunset(session: string, baseTimeMs: number): Promise<AfterSunsetMode | null> {
    const reply = await this.#run(session, baseTimeMs, scripts.afterSunset, {});
    const parsed = AfterSunsetModeSchema.safeParse(reply);
    return parsed.success ? parsed.data : null;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#sweep();
    await this.#redis.close();
  }

  #nonce(): string {
    this.#nonceCounter += 1;
    return `${this.#noncePrefix}.${this.#nonceCounter.toString(36)}`;
  }

  /** The default session never expires; the others live `sessionIdleMs` after their last use. */
  #ttlMs(session: string): number {
    return session === defaultSessionName ? 0 : this.options.sessionIdleMs;
  }

  #historyTtlMs(): number {
    return this.options.sessionIdleMs;
  }

  #categoryArgs(operation: HitInput['categories']): string[] {
    if (!operation) return [''];
    const fields = operation.kind === 'create' ? JSON.stringify(operation.input) : '';
    return [operation.kind, operation.requiresKey ? '1' : '0', fields, String(this.options.maxCategories), String(this.options.maxCategoryBytes), ...this.#seeds(this.#inlineSeeds)];
  }

  #seeds(withSeeds: boolean): string[] {
    return withSeeds ? ['1', ...this.#seedArgs] : ['0'];
  }

  /** `prefix{session}:name`: the session is the hash tag, so one script's keys share a slot. */
  #key(session: string, name: string): string {
    return `${this.#settings.prefix}{${session}}:${name}`;
  }

  #clientBucket(session: string, client: StoreClient): string {
    return client.kind === 'key' ? this.#key(session, `b:k:${client.id}`) : this.#anonymousBucket(session, client.address);
  }

  #anonymousBucket(session: string, clientAddress: string): string {
    return this.#key(session, `b:a:${encodeURIComponent(clientAddress)}`);
  }

  /** Runs a session script: KEYS meta, keys, cats, seq, log, then `call.keys`; ARGV ttl, nonce, then `call.args`. */
  async #run(session: string, baseTimeMs: number, which: Script, call: { keys?: string[]; args?: string[] }): Promise<unknown> {
    this.#assertOpen();
    assertSessionName(session);
    await this.#admit(session, baseTimeMs);
    const keys = [this.#key(session, 'meta'), this.#key(session, 'keys'), this.#key(session, 'cats'), this.#key(session, 'seq'), this.#key(session, 'log'), ...(call.keys ?? [])];
    return this.#call(which, keys, [String(this.#ttlMs(session)), this.#nonce(), ...(call.args ?? [])]);
  }

  /**
   * Registers the session (and enforces maxSessions) at most once a second per replica: a round trip
   * of its own, but not one per request.
   */
  async #admit(session: string, baseTimeMs: number): Promise<void> {
    const last = this.#admitted.get(session);
    if (last !== undefined && baseTimeMs - last < registryTouchMs && baseTimeMs >= last) return;
    // Requests that arrive together share one registration instead of each sending its own.
    let pending = this.#admitting.get(session);
    if (!pending) {
      pending = this.#register(session, baseTimeMs).finally(() => this.#admitting.delete(session));
      this.#admitting.set(session, pending);
    }
    await pending;
  }

  async #register(session: string, baseTimeMs: number): Promise<void> {
    const admitted = await this.#call(scripts.admit, [this.#registryKey], [session, String(baseTimeMs), String(this.options.sessionIdleMs), String(this.options.maxSessions), defaultSessionName]);
    if (Number(admitted) !== 1) throw new TooManySessionsError(this.options.maxSessions);
    this.#admitted.delete(session);
    this.#admitted.set(session, baseTimeMs);
    if (this.#admitted.size > this.options.maxSessions + 1) this.#admitted.delete(this.#admitted.keys().next().value!);
  }

  /**
   * EVALSHA, loading the script on NOSCRIPT. Every failure to answer becomes StoreUnavailableError
   * within the timeout: one sweeping timer for all calls in flight (a timer per call was a tenth of
   * the client's CPU per request), so a call fails between timeoutMs and timeoutMs + sweepMs.
   */
  #call(which: Script, keys: string[], args: string[]): Promise<unknown> {
    const { displayUrl, timeoutMs, retryAfterSeconds } = this.#settings;
    if (!this.#redis.isReady) return Promise.reject(new StoreUnavailableError(`The Redis store ${displayUrl} is unavailable (reconnecting)`, retryAfterSeconds));
    const command = ['EVALSHA', which.sha, String(keys.length), ...keys, ...args];
    return new Promise((resolve, reject) => {
      const pending: PendingCall = { deadline: performance.now() + timeoutMs, reject };
      this.#inflight.add(pending);
      this.#sweeper ??= setInterval(() => this.#sweep(), this.#sweepMs).unref();
      this.#redis
        .send(command)
        .catch((error: unknown) => {
          if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return this.#redis.send(['EVAL', which.source, ...command.slice(2)]);
          throw error;
        })
        .then(
          (reply) => {
            if (this.#inflight.delete(pending)) resolve(reply);
          },
          (error: unknown) => {
            if (this.#inflight.delete(pending)) reject(this.#failure(error));
          },
        );
    });
  }

  #failure(error: unknown): Error {
    const { displayUrl, retryAfterSeconds } = this.#settings;
    // A reply error that is not about availability is a bug in a script: the core answers 500.
    if (this.#redis.isReplyError(error) && !redisReplyUnavailable.test((error as Error).message)) {
      return new Error(`Failed to run a Redis store script: ${(error as Error).message}`, { cause: error });
    }
    return new StoreUnavailableError(`The Redis store ${displayUrl} is unavailable: ${describeError(error)}`, retryAfterSeconds, { cause: error });
  }

  /** Calls are in the set in the order they started, and all have the same timeout: stop at the first still running. */
  #sweep(): void {
    const now = performance.now();
    for (const pending of this.#inflight) {
      if (pending.deadline > now) break;
      this.#inflight.delete(pending);
      pending.reject(new StoreUnavailableError(`The Redis store ${this.#settings.displayUrl} did not answer within ${this.#settings.timeoutMs} ms`, this.#settings.retryAfterSeconds));
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('Failed to use the Redis store: it is closed');
  }
}

/** A decision as the scripts return it: the headline fields, then the bucket's window starts and counts. */
function decisionFrom(head: readonly string[], bucket: readonly string[], limits: Limits): RateDecision {
  const outcome = head[0] as RateDecision['outcome'];
  const resetAtMs = Number(head[3]);
  const counts = { minuteStart: Number(bucket[0]), minuteCount: Number(bucket[1]), dayStart: Number(bucket[2]), dayCount: Number(bucket[3]) };
  // A banned client has nothing left in either window until the ban ends (as RateLimiter says).
  const windows = outcome === 'banned' ? windowsOf(counts, limits).map((window) => ({ ...window, remaining: 0, resetAtMs })) : windowsOf(counts, limits);
  return { outcome, limit: Number(head[1]), remaining: Number(head[2]), resetAtMs, retryAfterSeconds: Number(head[4]), windows };
}

/** The error CategoryStore throws for a category larger than the whole byte bound (same words). */
function tooLargeCategory(bytes: number, maxBytes: number): HttpError {
  return new HttpError('payload_too_large', `The category takes ${bytes} bytes; the mock's store keeps at most maxCategoryBytes (${maxBytes}) bytes of categories`);
}

/** The stored form of a key entry: the public fields only (never the key, never the digest). */
function entryRecord({ masked, plan, limits, id }: ApiKeyEntry): ApiKeyEntry {
  return { masked, plan, limits: { perMinute: limits.perMinute, perDay: limits.perDay }, id };
}

function entryFrom(record: ApiKeyEntry): ApiKeyEntry {
  return entryRecord(record);
}

/** What the hit answers of a created category: its id instead of the object. */
function createdText({ category, ...created }: CreatedCategory): CreatedCategoryText {
  return { id: category.id, ...created };
}

/** A stored category as the script answers it: its text is the memory store's (`{"id":N,` + the input's JSON), kept as it is. */
function createdFrom(categoryJson: string, dropped: string): CreatedCategory {
  return { category: JSON.parse(categoryJson) as Category, dropped: Number(dropped), json: categoryJson, bytes: Buffer.byteLength(categoryJson, 'utf8') };
}
