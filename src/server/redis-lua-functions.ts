import { maxClockOffsetMs, maxDateMs } from '../core/state/store-checks.js';

// The Lua the Redis store's scripts are built from (redis-scripts.ts says what they share and why):
// the prologues every script starts with, and the functions that mirror the core's CategoryStore and
// RateLimiter line for line. Kept apart so that each operation's script reads as its own few lines.

export const minuteMs = 60_000;
export const dayMs = 86_400_000;

/** What a script answers when it started after its deadline and so did nothing. */
export const lateReply = 'PETSTORE_LATE';

/** The call's deadline and nonce, then the checks every session script starts with. KEYS[1..5]: meta, keys, cats, seq, log; ARGV[2]: ttl. */
export const sessionPrologue = `#!lua
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
  return `${categoryListFunctions()}\n${categoryWriteFunctions()}`;
}

/** Lua: the category list as stored: its checks, its ids, its JSON and its meta. */
function categoryListFunctions(): string {
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
end`;
}

/** Lua: a category stored under the bounds, the seeds, and the bounds checked before a scenario stores any. */
function categoryWriteFunctions(): string {
  return `-- Bounded in count and in bytes of the served list ("[" + items joined by "," + "]", UTF-8: a Lua
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
export function snapshotFunctions(): string {
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
    if string.sub(field, 1, 2) == 'd:' or field == 'dn' or field == 'df' or field == 'dl' or field == 'dk' then redis.call('HDEL', KEYS[1], field) end
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
export const judgeRequest = `local function judge(b, now, per_minute, per_day)
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

/** The deadline check of the registry scripts (ARGV[1] is their stamp too). */
export const registryPrologue = `#!lua
local deadline = string.match(ARGV[1], '^(%d+) ')
local redis_now = redis.call('TIME')
if tonumber(redis_now[1]) * 1000000 + tonumber(redis_now[2]) > tonumber(deadline) then return '${lateReply}' end
`;
