import { createHash } from 'node:crypto';
import { dayMs, judgeRequest, minuteMs, registryPrologue, sessionPrologue } from './redis-lua-functions.js';
import {
  appendRequestScript,
  requestsScript,
  resetScript,
  scenarioScript,
  snapshotScript,
  startingStateScript,
} from './redis-session-scripts.js';

// The Lua scripts of the Redis store (src/server/redis-store.ts), one per operation: each is one
// round trip and atomic across replicas. What they share, and why (docs/decisions/010 and 019):
//
// - `#!lua` first: Redis then refuses a script at once when it is out of memory (maxmemory), before
//   it runs, instead of failing at its first write with the writes before it kept.
// - ARGV[1] is the call's stamp, `<deadline in Redis microseconds> <nonce>`: a script that starts
//   after its deadline (Redis was paused, stopped with SIGSTOP, or slower than the mock's timeout)
//   changes nothing and answers PETSTORE_LATE, so a request the mock answered 503 never happens later.
//   Redis TIME is read for that deadline only; the virtual clock is always the caller's base time.
// - Everything read is checked before anything is written. Data under the prefix that the mock did
//   not write (a key of another type, a meta field that is no number, a category entry that is not
//   one the mock wrote, a list whose length or size is not what the meta says) raises one error,
//   PETSTORE_CORRUPT <what>, that every replica answers as 503 store_corrupt; WRONGTYPE too.
// - A bucket is the session's only if it carries the session's epoch: anything else at a bucket's key
//   (an older epoch, another type, another tool's text) counts as expired and is written over.

const hitScript = `${sessionPrologue}${judgeRequest}
local now = session_now(tonumber(ARGV[3]))
local entry, source, limits = nil, '', nil
if ARGV[4] ~= '' then
  local text, decoded = key_entry(ARGV[4])
  if text then entry, limits, source = text, decoded.limits, 'r' end
end
if not entry and ARGV[5] ~= '' then entry = ARGV[5]; limits = cjson.decode(entry).limits; source = 'c' end
local per_minute, per_day, bucket
if entry then
  per_minute, per_day, bucket = tonumber(limits.perMinute), tonumber(limits.perDay), KEYS[6]
else
  per_minute, per_day, bucket = tonumber(ARGV[6]), tonumber(ARGV[7]), KEYS[7]
end
local b = read_bucket(bucket, now)
local decision = judge(b, now, per_minute, per_day)
-- The category operation, only when the request is served (and, for one that needs a key, made with one).
local operation = ''
if ARGV[12] ~= '' and decision[1] == 'allowed' and (ARGV[13] ~= '1' or source ~= '') then operation = ARGV[12] end
local max, max_bytes = tonumber(ARGV[15]), tonumber(ARGV[16])
local listing
if operation ~= '' then
  if not seeded and ARGV[17] ~= '1' then return { 'seed' } end
  if seeded then
    check_list()
    if operation == 'list' then listing = served_list() else next_id() end
  end
end
-- Everything read is as the mock wrote it: from here on, the writes.
write_bucket(bucket, b, now, tonumber(ARGV[11]))
local done, dropped_text = '', ''
if operation ~= '' then
  seed(max, max_bytes, 18, #ARGV)
  if operation == 'list' then
    done = listing or served_list()
  else
    local json, size = push_category(max, max_bytes, ARGV[14])
    if json then done, dropped_text = json, num(dropped) else done, dropped_text = 'too_large', num(size) end
  end
end
refresh_ttl()
return { decision[1], decision[2], decision[3], decision[4], decision[5], num(now), source, entry or '',
  num(b.hr), num(b.hf), num(b.hc), decision[6], decision[7], done, dropped_text,
  num(b.ms), num(b.mc), num(b.ds), num(b.dc), num(per_minute), num(per_day) }
`;

/** RateLimiter.peek of an anonymous address. KEYS[6]: its bucket. ARGV: stamp, ttl, base, perMinute, perDay */
const peekScript = `${sessionPrologue}
local now = session_now(tonumber(ARGV[3]))
local per_minute, per_day = tonumber(ARGV[4]), tonumber(ARGV[5])
local b = read_bucket(KEYS[6], now)
refresh_ttl()
if b.bu > now then
  return { 'banned', num(math.min(per_minute, per_day)), '0', num(b.bu), num(math.max(1, math.ceil((b.bu - now) / 1000))), num(b.ms), num(b.mc), num(b.ds), num(b.dc) }
end
roll(b, now)
local minute_left, day_left = per_minute - b.mc, per_day - b.dc
local limit, remaining, reset_at
if day_left <= minute_left then
  limit, remaining, reset_at = per_day, math.max(0, day_left), b.ds + ${dayMs}
else
  limit, remaining, reset_at = per_minute, math.max(0, minute_left), b.ms + ${minuteMs}
end
return { 'allowed', num(limit), num(remaining), num(reset_at), num(math.max(1, math.ceil((reset_at - now) / 1000))), num(b.ms), num(b.mc), num(b.ds), num(b.dc) }
`;

/** RateLimiter.setSpent. KEYS[6]: the client's bucket. ARGV: stamp, ttl, base, minute|'', day|'', historyTtl. */
const setSpentScript = `${sessionPrologue}
local now = session_now(tonumber(ARGV[3]))
local b = read_bucket(KEYS[6], now)
set_spent(b, now, ARGV[4], ARGV[5])
write_bucket(KEYS[6], b, now, tonumber(ARGV[6]))
refresh_ttl()
return num(now)
`;

/** RateLimiter.banFor. KEYS[6]: the client's bucket. ARGV: stamp, ttl, base, durationMs, historyTtl. Returns when the ban ends. */
const banScript = `${sessionPrologue}
local now = session_now(tonumber(ARGV[3]))
local b = read_bucket(KEYS[6], now)
b.bu = now + tonumber(ARGV[4])
write_bucket(KEYS[6], b, now, tonumber(ARGV[5]))
refresh_ttl()
return num(b.bu)
`;

/** ARGV: stamp, ttl, maxCategories, maxCategoryBytes, fieldsJson, seedsGiven, seeds... Returns the category JSON and the dropped count, 'seed', or 'too_large' and the size. */
const createCategoryScript = `${sessionPrologue}
local max, max_bytes = tonumber(ARGV[3]), tonumber(ARGV[4])
if not seeded and ARGV[6] ~= '1' then return { 'seed' } end
if seeded then check_list(); next_id() end
seed(max, max_bytes, 7, #ARGV)
local json, size = push_category(max, max_bytes, ARGV[5])
refresh_ttl()
if not json then return { 'too_large', num(size) } end
return { json, num(dropped) }
`;

/** ARGV: stamp, ttl, maxCategories, maxCategoryBytes, seedsGiven, seeds... Returns the list as JSON text, or 'seed'. */
const listCategoriesScript = `${sessionPrologue}
if not seeded and ARGV[5] ~= '1' then return { 'seed' } end
local listing
if seeded then listing = served_list() end
seed(tonumber(ARGV[3]), tonumber(ARGV[4]), 6, #ARGV)
refresh_ttl()
return { listing or served_list() }
`;

/** ARGV: stamp, ttl, maxCategories, maxCategoryBytes, seedsGiven, seeds... Returns count, bytes, dropped, or 'seed'. */
const statsScript = `${sessionPrologue}
if not seeded and ARGV[5] ~= '1' then return { 'seed' } end
if seeded then check_list() end
seed(tonumber(ARGV[3]), tonumber(ARGV[4]), 6, #ARGV)
refresh_ttl()
return { num(count), num(list_bytes), num(dropped) }
`;

/** ARGV: stamp, ttl, digest, entryJson. A replaced key keeps its place in the list. Returns 1 when created. */
const addKeyScript = `${sessionPrologue}
local created = add_key(ARGV[3], ARGV[4])
refresh_ttl()
if created then return 1 else return 0 end
`;

/** ARGV: stamp, ttl. Returns 'position|entryJson' strings (checked by the caller). */
const listKeysScript = `${sessionPrologue}
refresh_ttl()
return redis.call('HVALS', KEYS[2])
`;

/** ARGV: stamp, ttl, step, base. Returns the new offset, or { 'range', offset } having changed nothing. */
const advanceClockScript = `${sessionPrologue}
local moved = offset + tonumber(ARGV[3])
if moved > max_offset or math.abs(tonumber(ARGV[4]) + moved) > max_time then return { 'range', num(moved) } end
redis.call('HSET', KEYS[1], 'off', num(moved))
refresh_ttl()
return num(moved)
`;

/** ARGV: stamp, ttl. */
const clockOffsetScript = `${sessionPrologue}
refresh_ttl()
return num(offset)
`;

/** ARGV: stamp, ttl, mode ('' clears it). The session's sunset.afterSunset, in its meta hash. */
const setAfterSunsetScript = `${sessionPrologue}
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], 'as') else redis.call('HSET', KEYS[1], 'as', ARGV[3]) end
refresh_ttl()
return 1
`;

/** ARGV: stamp, ttl. Returns the mode or ''. */
const afterSunsetScript = `${sessionPrologue}
refresh_ttl()
return after_sunset or ''
`;

/**
 * The session registry (one key of its own, outside every session's slot). Admits `name` unless
 * `max` other sessions are alive, and records when it was last seen (scores never go back: GT).
 * KEYS[1]: registry. ARGV: stamp, name, base, idleMs, max, default, repair ('1': a registry of another
 * type is deleted first; a reset repairs what it can reach).
 */
const admitScript = `${registryPrologue}
local name, base, idle, max = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if ARGV[7] == '1' then
  local kind = redis.call('TYPE', KEYS[1]).ok
  if kind ~= 'zset' and kind ~= 'none' then redis.call('DEL', KEYS[1]) end
end
local default_seen = redis.call('ZSCORE', KEYS[1], ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.17g', base - idle))
if default_seen then redis.call('ZADD', KEYS[1], default_seen, ARGV[6]) end
if name ~= ARGV[6] and not redis.call('ZSCORE', KEYS[1], name) then
  local named = redis.call('ZCARD', KEYS[1])
  if redis.call('ZSCORE', KEYS[1], ARGV[6]) then named = named - 1 end
  if named >= max then return 0 end
end
redis.call('ZADD', KEYS[1], 'GT', base, name)
-- Bounded by maxSessions + 1 entries, and gone once every session has been idle that long.
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.max(idle, 1000)))
return 1
`;

/** The registry, pruned of idle sessions. KEYS[1]: registry. ARGV: stamp, base, idleMs, default. */
const listSessionsScript = `${registryPrologue}
local default_seen = redis.call('ZSCORE', KEYS[1], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.17g', tonumber(ARGV[2]) - tonumber(ARGV[3])))
if default_seen then redis.call('ZADD', KEYS[1], default_seen, ARGV[4]) end
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
`;

export interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export const scripts = {
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
  scenario: script(scenarioScript),
  snapshot: script(snapshotScript),
  startingState: script(startingStateScript),
};

/** The Lua sources, for the decision note and for tests that read them. */
export const redisStoreScripts: Readonly<Record<keyof typeof scripts, string>> = Object.fromEntries(
  Object.entries(scripts).map(([name, { source }]) => [name, source]),
) as Record<keyof typeof scripts, string>;
