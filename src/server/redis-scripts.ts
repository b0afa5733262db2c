import { createHash } from 'node:crypto';
import { maxClockOffsetMs, maxDateMs } from '../core/state/store-checks.js';

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

const minuteMs = 60_000;
const dayMs = 86_400_000;

/** What a script answers when it started after its deadline and so did nothing. */
export const lateReply = 'PETSTORE_LATE';

/** The call's deadline and nonce, then the checks every session script starts with. KEYS[1..5]: meta, keys, cats, seq, log; ARGV[2]: ttl. */
const sessionPrologue = `#!lua
local function num(x) return string.format('%.17g', x) end
local function corrupt(what) error({ err = 'PETSTORE_CORRUPT ' .. what }) end
local deadline, nonce = string.match(ARGV[1], '^(%d+) (%S+)$')
local redis_now = redis.call('TIME')
if tonumber(redis_now[1]) * 1000000 + tonumber(redis_now[2]) > tonumber(deadline) then return '${lateReply}' end
local ttl = tonumber(ARGV[2])
local max_offset, max_time = ${maxClockOffsetMs}, ${maxDateMs}
local function whole(text)
  local value = tonumber(text)
  if value and value >= 0 and value == math.floor(value) and value < 9007199254740992 then return value end
  return nil
end
-- "Not banned" and "no refusal yet" are no time (any time may be a request's, 1969 too): '-' in a bucket, -inf here.
local none = -math.huge
local function time_text(t) if t == none then return '-' end return num(t) end
local meta = redis.call('HMGET', KEYS[1], 'off', 'ep', 'sd', 'dr', 'ks', 'by', 'n', 'as')
local offset, epoch, seeded, dropped, key_sequence, list_bytes, count, after_sunset
if not meta[1] and not meta[2] then
  -- A new (or expired) session starts clean, even if a stray key of an old one outlived it.
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
  redis.call('HSET', KEYS[1], 'ep', nonce, 'off', '0', 'sd', '0', 'dr', '0', 'ks', '0', 'by', '2', 'n', '0')
  offset, epoch, seeded, dropped, key_sequence, list_bytes, count, after_sunset = 0, nonce, false, 0, 0, 2, 0, false
else
  offset = tonumber(meta[1])
  if not offset or offset ~= offset or offset < 0 or offset > max_offset then corrupt('meta: the clock offset ' .. tostring(meta[1]) .. ' ms is not within 100 years') end
  epoch = meta[2]
  if not epoch or not string.find(epoch, '^%S+$') then corrupt('meta: no epoch') end
  if meta[3] ~= '0' and meta[3] ~= '1' then corrupt('meta: the seeded flag is ' .. tostring(meta[3])) end
  seeded = meta[3] == '1'
  dropped, key_sequence, list_bytes = whole(meta[4]), whole(meta[5]), whole(meta[6])
  if not dropped or not key_sequence or not list_bytes then corrupt('meta: a count is no whole number') end
  -- Written by this version on; a session an older mock wrote is counted once.
  if meta[7] then count = whole(meta[7]) else count = redis.call('LLEN', KEYS[3]) end
  if not count then corrupt('meta: the category count is no whole number') end
  after_sunset = meta[8]
  if after_sunset and after_sunset ~= 'serve' and after_sunset ~= 'gone' then corrupt('meta: afterSunset is ' .. after_sunset) end
end
-- A named session's keys live ttl ms after its last use. Refreshed at most once a second (the meta
-- key's PTTL tells when it was last done); a key created in between gets its TTL when created.
local function refresh_ttl()
  if ttl > 0 and redis.call('PTTL', KEYS[1]) < ttl - math.min(1000, math.floor(ttl / 2)) then
    for i = 1, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
  end
end
local function expire_new(key)
  if ttl > 0 then redis.call('PEXPIRE', key, ARGV[2]) end
end
local function session_now(base)
  local now = base + offset
  if math.abs(now) > max_time then corrupt('meta: the clock offset puts the session past what a date can hold') end
  return now
end
${categoryFunctions()}
${bucketFunctions()}
${keyFunctions()}
`;

/** Lua: the categories, CategoryStore (src/core/state/category-store.ts) line for line, with their checks. */
function categoryFunctions(): string {
  return `local control_bytes = '[%z' .. string.char(1) .. '-' .. string.char(31) .. ']'
-- O(1): the list holds as many entries as the meta says (any entry added or removed by someone else shows).
local function check_list()
  local length = redis.call('LLEN', KEYS[3])
  if length ~= count then corrupt('cats: ' .. length .. ' entries where the meta counts ' .. count) end
end
local function next_id()
  local sequence = redis.call('GET', KEYS[4])
  if not sequence then return 1 end
  local last = whole(sequence)
  if not last then corrupt('seq: not a whole number') end
  return last + 1
end
local function category_json(fields, id)
  if fields == '{}' then return '{"id":' .. string.format('%d', id) .. '}' end
  return '{"id":' .. string.format('%d', id) .. ',' .. string.sub(fields, 2)
end
-- The list as GET /categories serves it, checked while it is joined: each entry framed as the mock
-- writes one, no raw control byte, and the size the meta kept. A parse of every entry would cost as
-- much again as the list itself (docs/decisions/019).
local function served_list()
  local entries = redis.call('LRANGE', KEYS[3], 0, -1)
  if #entries ~= count then corrupt('cats: ' .. #entries .. ' entries where the meta counts ' .. count) end
  for i = 1, #entries do
    local entry = entries[i]
    if string.sub(entry, 1, 6) ~= '{"id":' or string.byte(entry, -1) ~= 125 or string.find(entry, control_bytes) then corrupt('cats: entry ' .. i .. ' is not a category the mock wrote') end
  end
  local text = '[' .. table.concat(entries, ',') .. ']'
  if #text ~= list_bytes then corrupt('cats: ' .. #text .. ' bytes where the meta counts ' .. list_bytes) end
  return text
end
local function save_list_meta()
  redis.call('HSET', KEYS[1], 'by', string.format('%d', list_bytes), 'n', string.format('%d', count), 'dr', string.format('%d', dropped))
end
-- Bounded in count and in bytes of the served list ("[" + items joined by "," + "]", UTF-8: a Lua
-- string's length is its byte count). A category larger than the whole bound is refused (nil and its size) and takes no id.
local function push_category(max, max_bytes, fields)
  local id = next_id()
  local json = category_json(fields, id)
  local bytes = #json
  if 2 + bytes > max_bytes then return nil, bytes end
  redis.call('SET', KEYS[4], string.format('%d', id))
  while count > 0 and (count >= max or list_bytes + bytes + 1 > max_bytes) do
    local old = redis.call('LPOP', KEYS[3])
    count = count - 1
    list_bytes = list_bytes - #old
    if count > 0 then list_bytes = list_bytes - 1 end
    dropped = dropped + 1
  end
  if count > 0 then list_bytes = list_bytes + 1 end
  redis.call('RPUSH', KEYS[3], json)
  count, list_bytes = count + 1, list_bytes + bytes
  save_list_meta()
  expire_new(KEYS[3])
  expire_new(KEYS[4])
  return json
end
-- Seeds ARGV[first..last] (category JSON without id) unless already seeded.
local function seed(max, max_bytes, first, last)
  if seeded then return end
  redis.call('DEL', KEYS[3], KEYS[4])
  count, list_bytes, dropped, seeded = 0, 2, 0, true
  redis.call('HSET', KEYS[1], 'sd', '1')
  save_list_meta()
  for i = first, last do push_category(max, max_bytes, ARGV[i]) end
end
-- The ids and sizes categories would get, checked before any is stored: the index of the first
-- larger than the whole bound and its size, or nil. Unseeded, the seeds come first (a seed too large is skipped).
local function first_too_large(max_bytes, seeds_first, seeds_last, first, last)
  local id = 1
  if seeded then
    id = next_id()
  else
    for i = seeds_first, seeds_last do
      if 2 + #category_json(ARGV[i], id) <= max_bytes then id = id + 1 end
    end
  end
  for i = first, last do
    local bytes = #category_json(ARGV[i], id)
    if 2 + bytes > max_bytes then return i - first, bytes end
    id = id + 1
  end
  return nil
end`;
}

/**
 * Lua: the rate-limit buckets, RateLimiter (src/core/state/rate-limiter.ts) line for line. A bucket is
 * one string, "epoch ms mc ds dc st bu hr hf hc la lr": one GET and one SET per request.
 */
function bucketFunctions(): string {
  return `local function time_or_none(text) if text == '-' then return none end return tonumber(text) end
local function fresh_bucket(now)
  return { ms = now, mc = 0, ds = now, dc = 0, st = 0, bu = none, hr = 0, hf = 0, hc = 0, la = none, lr = 0 }
end
-- The bucket at key, or a fresh one at now: only a bucket of the session's epoch is read.
local function read_bucket(key, now)
  local raw = redis.pcall('GET', key)
  if type(raw) ~= 'string' then return fresh_bucket(now) end
  local f = {}
  for part in string.gmatch(raw, '%S+') do f[#f + 1] = part end
  if f[1] ~= epoch then return fresh_bucket(now) end
  local b = { ms = tonumber(f[2]), mc = whole(f[3]), ds = tonumber(f[4]), dc = whole(f[5]), st = whole(f[6]), bu = time_or_none(f[7]),
    hr = whole(f[8]), hf = whole(f[9]), hc = whole(f[10]), la = time_or_none(f[11]), lr = whole(f[12]) }
  for _, name in ipairs({ 'ms', 'mc', 'ds', 'dc', 'st', 'bu', 'hr', 'hf', 'hc', 'la', 'lr' }) do
    if not b[name] or b[name] ~= b[name] then corrupt(key .. ': field ' .. name .. ' is not what the mock writes') end
  end
  return b
end
-- A window that is over starts again at now.
local function roll(b, now)
  if now >= b.ms + ${minuteMs} then b.ms = now; b.mc = 0 end
  if now >= b.ds + ${dayMs} then b.ds = now; b.dc = 0 end
end
-- Lives while a window or the ban runs, and at least as long as the history is kept.
local function write_bucket(key, b, now, history_ttl)
  local keep = math.max(math.ceil(math.max(b.ds + ${dayMs}, b.ms + ${minuteMs}, b.bu) - now) + 1000, history_ttl)
  redis.call('SET', key, table.concat({ epoch, num(b.ms), num(b.mc), num(b.ds), num(b.dc), num(b.st), time_text(b.bu), num(b.hr), num(b.hf), num(b.hc), time_text(b.la), num(b.lr) }, ' '), 'PX', string.format('%d', keep))
end
-- RateLimiter.setSpent and banFor.
local function set_spent(b, now, minute, day)
  roll(b, now)
  if minute ~= '' then b.mc = tonumber(minute) end
  if day ~= '' then b.dc = tonumber(day) end
  if b.dc < b.mc then b.dc = b.mc end
  b.st = 0
end`;
}

/**
 * Lua: the session as a snapshot's parts (StateStore.snapshot): the clock offset, the after-sunset mode,
 * the run-time keys (digest, stored entry), the served category list ('' when not seeded: the seeds),
 * and every client whose windows or ban still run, as "name ms mc ds dc st bu" (name after the bucket
 * prefix). Buckets are found with SCAN over the session's bucket keys (one slot: its hash tag).
 */
function snapshotFunctions(): string {
  return `local function bucket_text(b)
  return table.concat({ num(b.ms), num(b.mc), num(b.ds), num(b.dc), num(b.st), time_text(b.bu) }, ' ')
end
-- The bucket at key when it is one of this session's epoch, else nil.
local function existing_bucket(key, now)
  local raw = redis.pcall('GET', key)
  if type(raw) ~= 'string' or string.match(raw, '^(%S+)') ~= epoch then return nil end
  return read_bucket(key, now)
end
local function snapshot_parts(now, prefix, pattern)
  local clients = {}
  local cursor = '0'
  repeat
    local page = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = page[1]
    for _, key in ipairs(page[2]) do
      local b = existing_bucket(key, now)
      if b and not (now >= b.ds + ${dayMs} and now >= b.ms + ${minuteMs} and b.bu <= now) then
        clients[#clients + 1] = string.sub(key, #prefix + 1) .. ' ' .. bucket_text(b)
      end
    end
  until cursor == '0'
  local cats = ''
  if seeded then cats = served_list() end
  return { off = num(offset), as = after_sunset or '', keys = redis.call('HGETALL', KEYS[2]), cats = cats, clients = clients }
end
-- The log's starting state is the session as it is now: the snapshot, its time, no request dropped since.
local function mark_start(now, prefix, pattern)
  local fields = redis.call('HKEYS', KEYS[1])
  for _, field in ipairs(fields) do
    if string.sub(field, 1, 2) == 'd:' or field == 'dn' or field == 'df' or field == 'dl' then redis.call('HDEL', KEYS[1], field) end
  end
  redis.call('HSET', KEYS[1], 'sa', num(now), 'ss', cjson.encode(snapshot_parts(now, prefix, pattern)))
end`;
}

/** Lua: the run-time keys, `position|entry JSON` by digest. */
function keyFunctions(): string {
  return `local function positive(value) return type(value) == 'number' and value >= 1 and value == math.floor(value) end
-- The stored entry of a digest (its JSON and limits), checked, or nil.
local function key_entry(digest)
  local stored = redis.call('HGET', KEYS[2], digest)
  if not stored then return nil end
  local bar = string.find(stored, '|', 1, true)
  local position = bar and whole(string.sub(stored, 1, bar - 1))
  if not position then corrupt('keys: an entry is not position|entry') end
  local text = string.sub(stored, bar + 1)
  local ok, entry = pcall(cjson.decode, text)
  if not ok or type(entry) ~= 'table' or type(entry.masked) ~= 'string' or type(entry.plan) ~= 'string' or type(entry.id) ~= 'string'
    or type(entry.limits) ~= 'table' or not positive(entry.limits.perMinute) or not positive(entry.limits.perDay) then corrupt('keys: an entry is not a key the mock wrote') end
  return text, entry, position
end
-- Adds a key, or changes one added before (it keeps its place in the list); true when created.
local function add_key(digest, entry_json)
  local _, _, position = key_entry(digest)
  local created = not position
  if created then
    key_sequence = key_sequence + 1
    position = key_sequence
    redis.call('HSET', KEYS[1], 'ks', string.format('%d', key_sequence))
  end
  redis.call('HSET', KEYS[2], digest, string.format('%d', position) .. '|' .. entry_json)
  expire_new(KEYS[2])
  return created
end`;
}

/** Lua: a client's request counted and judged, RateLimiter.hit; `b` its bucket, `limits` per_minute/per_day. */
const judgeRequest = `local function judge(b, now, per_minute, per_day)
  local outcome, limit, remaining, reset_at
  local tighter = math.min(per_minute, per_day)
  if b.bu > now then
    outcome, limit, remaining, reset_at = 'banned', tighter, 0, b.bu
  else
    if b.bu ~= none then b.bu = none; b.st = 0 end
    roll(b, now)
    local minute_full, day_full = b.mc >= per_minute, b.dc >= per_day
    if minute_full or day_full then
      b.st = b.st + 1
      if ARGV[8] == '1' and b.st > tonumber(ARGV[9]) then
        b.bu = now + tonumber(ARGV[10])
        outcome, limit, remaining, reset_at = 'banned', tighter, 0, b.bu
      else
        -- When both are full the client waits for the later of the two resets.
        local use_day = day_full and ((not minute_full) or b.ds + ${dayMs} >= b.ms + ${minuteMs})
        if use_day then limit, reset_at = per_day, b.ds + ${dayMs} else limit, reset_at = per_minute, b.ms + ${minuteMs} end
        outcome, remaining = 'limited', 0
      end
    else
      b.mc = b.mc + 1; b.dc = b.dc + 1; b.st = 0
      local minute_left, day_left = per_minute - b.mc, per_day - b.dc
      if day_left <= minute_left then
        limit, remaining, reset_at = per_day, math.max(0, day_left), b.ds + ${dayMs}
      else
        limit, remaining, reset_at = per_minute, math.max(0, minute_left), b.ms + ${minuteMs}
      end
      outcome = 'allowed'
    end
  end
  local retry_after = math.max(1, math.ceil((reset_at - now) / 1000))
  local previous_at, previous_retry = '', ''
  if b.la ~= none then previous_at, previous_retry = num(b.la), num(b.lr) end
  b.hr = b.hr + 1
  if outcome == 'allowed' then b.hc = 0 else b.hf = b.hf + 1; b.hc = b.hc + 1; b.la = now; b.lr = retry_after end
  return { outcome, num(limit), num(remaining), num(reset_at), num(retry_after), previous_at, previous_retry }
end
`;

/**
 * One request of one client (StateStore.hit). KEYS[6]: the key's bucket, KEYS[7]: the address's bucket.
 * ARGV: stamp, ttl, base, digest|'', configKeyJson|'', anonPerMinute, anonPerDay, banEnabled, banThreshold, banMs, historyTtl,
 *   categoryOperation ('' | 'list' | 'create'), requiresKey, fieldsJson, maxCategories, maxCategoryBytes, seedsGiven, seeds...
 * Returns the decision, the history, the category operation's result, then the bucket's windows and limits;
 * or { 'seed' } having changed nothing, when the operation needs seeds that did not come along.
 */
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

/**
 * ARGV: stamp, ttl, entryJson, capacity, client name ('' for none). KEYS[6]: the client's bucket.
 * Newest first in Redis; the log reads it backwards. The entry keeps where its client stands just after
 * it ("post"); an API request the log drops is folded into the starting state (meta: dn count, df and dl
 * its first and last time, d:<client> the newest post of each client), as MemorySession does.
 */
const appendRequestScript = `${sessionPrologue}${snapshotFunctions()}
local capacity = tonumber(ARGV[4])
local start_text = redis.call('HGET', KEYS[1], 'sa')
local start_at = start_text and tonumber(start_text)
while redis.call('LLEN', KEYS[5]) >= capacity do
  local ok, old = pcall(cjson.decode, redis.call('RPOP', KEYS[5]))
  if ok and type(old) == 'table' and type(old.replay) == 'table' and type(old.timeMs) == 'number' and (not start_at or old.timeMs >= start_at) then
    local at = num(old.timeMs)
    if redis.call('HINCRBY', KEYS[1], 'dn', 1) == 1 then redis.call('HSET', KEYS[1], 'df', at) end
    redis.call('HSET', KEYS[1], 'dl', at)
    if type(old.pc) == 'string' and type(old.post) == 'string' then redis.call('HSET', KEYS[1], 'd:' .. old.pc, old.post) end
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
const requestsScript = `${sessionPrologue}
refresh_ttl()
return redis.call('LRANGE', KEYS[5], 0, -1)
`;

/** StateStore.snapshot. ARGV: stamp, ttl, base, bucket prefix, its SCAN pattern. Returns the parts as JSON. */
const snapshotScript = `${sessionPrologue}${snapshotFunctions()}
local now = session_now(tonumber(ARGV[3]))
refresh_ttl()
return cjson.encode(snapshot_parts(now, ARGV[4], ARGV[5]))
`;

/** StateStore.startingState. ARGV: stamp, ttl. Returns the meta hash (sa, ss, dn, df, dl, d:<client>: the caller reads them). */
const startingStateScript = `${sessionPrologue}
refresh_ttl()
return redis.call('HGETALL', KEYS[1])
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
 * The session back to its seeded state, whatever its keys hold (the repair of a corrupt session): its
 * five keys deleted and the meta written anew with a new epoch, so every bucket of before counts as
 * expired (they sit in one slot but are never listed; each expires by its own TTL). The clock stays
 * when it is a usable one, else it goes back to 0. No checking prologue. ARGV: stamp, ttl, base.
 */
const resetScript = `#!lua
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
const scenarioScript = `${sessionPrologue}${snapshotFunctions()}
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

/** The deadline check of the registry scripts (ARGV[1] is their stamp too). */
const registryPrologue = `#!lua
local deadline = string.match(ARGV[1], '^(%d+) ')
local redis_now = redis.call('TIME')
if tonumber(redis_now[1]) * 1000000 + tonumber(redis_now[2]) > tonumber(deadline) then return '${lateReply}' end
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
