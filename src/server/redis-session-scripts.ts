import { maxClockOffsetMs } from '../core/state/store-checks.js';
import { lateReply, sessionPrologue, snapshotFunctions } from './redis-lua-functions.js';

// The Redis store's scripts over a session's whole state rather than one client or one category:
// the request log and its starting state, the snapshot, reset and an applied scenario.

/**
 * ARGV: stamp, ttl, entryJson, capacity, client name ('' for none), most clients in the starting state.
 * KEYS[6]: the client's bucket. Newest first in Redis; the log reads it backwards. The entry keeps where its
 * client stands just after it ("post"); an API request the log drops is folded into the starting state (meta:
 * dn count, df and dl its first and last time, d:<client> the newest post of each client, dk how many), as
 * MemorySession does; past the most clients (maxTrackedClients) a new client's post is not kept: the replay
 * then starts it fresh and says the recording starts mid-window.
 */
export const appendRequestScript = `${sessionPrologue}${snapshotFunctions()}
local capacity = tonumber(ARGV[4])
local start_text = redis.call('HGET', KEYS[1], 'sa')
local start_at = start_text and tonumber(start_text)
while redis.call('LLEN', KEYS[5]) >= capacity do
  local ok, old = pcall(cjson.decode, redis.call('RPOP', KEYS[5]))
  if ok and type(old) == 'table' and type(old.replay) == 'table' and type(old.timeMs) == 'number' and (not start_at or old.timeMs >= start_at) then
    local at = num(old.timeMs)
    if redis.call('HINCRBY', KEYS[1], 'dn', 1) == 1 then redis.call('HSET', KEYS[1], 'df', at) end
    redis.call('HSET', KEYS[1], 'dl', at)
    if type(old.pc) == 'string' and type(old.post) == 'string' then
      local field = 'd:' .. old.pc
      if redis.call('HEXISTS', KEYS[1], field) == 1 then redis.call('HSET', KEYS[1], field, old.post)
      elseif tonumber(redis.call('HGET', KEYS[1], 'dk') or '0') < tonumber(ARGV[6]) then
        redis.call('HSET', KEYS[1], field, old.post)
        redis.call('HINCRBY', KEYS[1], 'dk', 1)
      end
    end
  end
end
local entry = ARGV[3]
if ARGV[5] ~= '' then
  local b = existing_bucket(KEYS[6], 0)
  if b then entry = string.sub(entry, 1, -2) .. ',"pc":' .. cjson.encode(ARGV[5]) .. ',"post":"' .. bucket_text(b) .. '"}' end
end
redis.call('LPUSH', KEYS[5], entry)
expire_new(KEYS[5])
refresh_ttl()
return 1
`;

/** ARGV: stamp, ttl. The entries are checked by the caller, which parses them anyway. */
export const requestsScript = `${sessionPrologue}
refresh_ttl()
return redis.call('LRANGE', KEYS[5], 0, -1)
`;

/** StateStore.snapshot. ARGV: stamp, ttl, base, bucket prefix, its SCAN pattern. Returns the parts as JSON. */
export const snapshotScript = `${sessionPrologue}${snapshotFunctions()}
local now = session_now(tonumber(ARGV[3]))
refresh_ttl()
return cjson.encode(snapshot_parts(now, ARGV[4], ARGV[5]))
`;

/** StateStore.startingState. ARGV: stamp, ttl. Returns the meta hash (sa, ss, dn, df, dl, d:<client>: the caller reads them). */
export const startingStateScript = `${sessionPrologue}
refresh_ttl()
return redis.call('HGETALL', KEYS[1])
`;

/**
 * The session back to its seeded state, whatever its keys hold (the repair of a corrupt session): its
 * five keys deleted and the meta written anew with a new epoch, so every bucket of before counts as
 * expired (they sit in one slot but are never listed; each expires by its own TTL). The clock stays
 * when it is a usable one, else it goes back to 0. No checking prologue. ARGV: stamp, ttl, base.
 */
export const resetScript = `#!lua
local deadline, nonce = string.match(ARGV[1], '^(%d+) (%S+)$')
local redis_now = redis.call('TIME')
if tonumber(redis_now[1]) * 1000000 + tonumber(redis_now[2]) > tonumber(deadline) then return '${lateReply}' end
local kept = '0'
local current = redis.pcall('HGET', KEYS[1], 'off')
if type(current) == 'string' then
  local offset = tonumber(current)
  if offset and offset == offset and offset >= 0 and offset <= ${maxClockOffsetMs} then kept = current end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('HSET', KEYS[1], 'ep', nonce, 'off', kept, 'sd', '0', 'dr', '0', 'ks', '0', 'by', '2', 'n', '0')
-- The log's starting state: the seeded session at the reset's time (ARGV[3]: the base time).
local start = string.format('%.17g', tonumber(ARGV[3]) + tonumber(kept))
redis.call('HSET', KEYS[1], 'sa', start, 'ss', cjson.encode({ off = kept, as = '', keys = {}, cats = '', clients = {} }))
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`;

/**
 * A whole scenario in one step (StateStore.applyScenario): everything that can refuse it is checked
 * first (the clock, each category's size, every key and bucket read), then it is applied in the
 * plan's order, and the session as it leaves it becomes the log's starting state.
 * KEYS[6..]: the bucket of each budget, of each ban, then of each client put where a snapshot found it.
 * ARGV: stamp, ttl, base, clockKind ('' | advance | to | atLeast), clockValue, afterSunset|'', historyTtl,
 *   maxCategories, maxCategoryBytes, keyCount, spendCount, banCount, categoryCount, seedsGiven,
 *   clientCount, listCount (-1: no list to restore), listFirstId, bucket prefix, its SCAN pattern,
 *   then digest and entryJson of each key, ms mc ds dc st bu of each client, minute|'' and day|'' of
 *   each budget, ms of each ban, fields of each listed category, fields of each category, seeds.
 * Returns { 'ok', offset }, { 'refused', part, index, value } having changed nothing, or { 'seed' }.
 */
export const scenarioScript = `${sessionPrologue}${snapshotFunctions()}
local base = tonumber(ARGV[3])
local key_count, spend_count, ban_count, category_count = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local client_count, list_count, list_first = tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17])
local keys_at = 20
local clients_at = keys_at + 2 * key_count
local spends_at = clients_at + 6 * client_count
local bans_at = spends_at + 2 * spend_count
local list_at = bans_at + ban_count
local categories_at = list_at + math.max(list_count, 0)
local seeds_at = categories_at + category_count
local max, max_bytes, history_ttl = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[7])
local now = session_now(base)
local moved = offset
if ARGV[4] == 'advance' then
  moved = offset + tonumber(ARGV[5])
elseif ARGV[4] == 'to' then
  if tonumber(ARGV[5]) < now then return { 'refused', 'clock-behind', '0', num(now) } end
  moved = tonumber(ARGV[5]) - base
elseif ARGV[4] == 'atLeast' then
  moved = math.max(offset, tonumber(ARGV[5]) - base)
end
if moved > max_offset or math.abs(base + moved) > max_time then return { 'refused', 'clock-range', '0', num(moved) } end
for i = 0, key_count - 1 do key_entry(ARGV[keys_at + 2 * i]) end
for i = 6, #KEYS do read_bucket(KEYS[i], now) end
if list_count >= 0 then
  -- The list replaces the session's: its ids are its own, the categories after it follow the last.
  for i = 0, list_count + category_count - 1 do
    local bytes = #category_json(ARGV[list_at + i], list_first + i)
    if 2 + bytes > max_bytes then return { 'refused', 'category', num(i), num(bytes) } end
  end
elseif category_count > 0 then
  if not seeded and ARGV[14] ~= '1' then return { 'seed' } end
  if seeded then check_list() end
  local index, size = first_too_large(max_bytes, seeds_at, #ARGV, categories_at, seeds_at - 1)
  if index then return { 'refused', 'category', num(index), num(size) } end
end
-- Nothing refuses it: applied, in the plan's order (budgets and bans at the scenario's clock).
if moved ~= offset then
  offset = moved
  redis.call('HSET', KEYS[1], 'off', num(moved))
end
now = base + offset
if ARGV[6] ~= '' then
  after_sunset = ARGV[6]
  redis.call('HSET', KEYS[1], 'as', ARGV[6])
end
for i = 0, key_count - 1 do add_key(ARGV[keys_at + 2 * i], ARGV[keys_at + 2 * i + 1]) end
for i = 0, client_count - 1 do
  local key = KEYS[6 + spend_count + ban_count + i]
  local b = read_bucket(key, now)
  local at = clients_at + 6 * i
  b.ms, b.mc, b.ds, b.dc, b.st = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
  b.bu = time_or_none(ARGV[at + 5])
  write_bucket(key, b, now, history_ttl)
end
for i = 0, spend_count - 1 do
  local b = read_bucket(KEYS[6 + i], now)
  set_spent(b, now, ARGV[spends_at + 2 * i], ARGV[spends_at + 2 * i + 1])
  write_bucket(KEYS[6 + i], b, now, history_ttl)
end
for i = 0, ban_count - 1 do
  local key = KEYS[6 + spend_count + i]
  local b = read_bucket(key, now)
  b.bu = now + tonumber(ARGV[bans_at + i])
  write_bucket(key, b, now, history_ttl)
end
if list_count >= 0 then
  redis.call('DEL', KEYS[3], KEYS[4])
  count, list_bytes, dropped, seeded = 0, 2, 0, true
  redis.call('HSET', KEYS[1], 'sd', '1')
  save_list_meta()
  if list_first > 1 then
    redis.call('SET', KEYS[4], string.format('%d', list_first - 1))
    expire_new(KEYS[4])
  end
  for i = list_at, seeds_at - 1 do push_category(max, max_bytes, ARGV[i]) end
elseif category_count > 0 then
  seed(max, max_bytes, seeds_at, #ARGV)
  for i = categories_at, seeds_at - 1 do push_category(max, max_bytes, ARGV[i]) end
end
mark_start(now, ARGV[18], ARGV[19])
refresh_ttl()
return { 'ok', num(offset) }
`;
