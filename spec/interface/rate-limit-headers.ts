/**
 * Reading and judging the rate-limit headers of interface section 8. Pure functions of header
 * values and clock readings, so every rule is unit-tested without a server.
 */

const rateHeaderNames = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

/** One thing wrong with one header of one response. */
export interface HeaderProblem {
  header: string;
  detail: string;
}

const secondsPerDay = 86_400;

/**
 * A header value that is a plain non-negative integer in decimal ("60"), or undefined. "60.0",
 * "-1", "1e3" and " 60" are not, because clients parse these headers with integer parsers.
 *
 * @example parseNonNegativeInteger('59') // 59
 */
export function parseNonNegativeInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * The names of the section 8 headers a response lacks.
 *
 * @example missingRateHeaders({ 'x-ratelimit-limit': '60' }) // ['X-RateLimit-Remaining', 'X-RateLimit-Reset']
 */
export function missingRateHeaders(headers: Readonly<Record<string, string>>): string[] {
  return rateHeaderNames.filter((name) => headers[name] === undefined).map(displayName);
}

/**
 * Problems with the values of the headers that are present: each must be a non-negative integer,
 * and Remaining may not exceed Limit.
 *
 * @example rateHeaderValueProblems({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '61', 'x-ratelimit-reset': '1767225600' })
 * // [{ header: 'X-RateLimit-Remaining', detail: 'is 61, more than X-RateLimit-Limit 60' }]
 */
export function rateHeaderValueProblems(headers: Readonly<Record<string, string>>): HeaderProblem[] {
  const problems: HeaderProblem[] = [];
  for (const name of rateHeaderNames) {
    const text = headers[name];
    if (text !== undefined && parseNonNegativeInteger(text) === undefined) {
      problems.push({ header: displayName(name), detail: `is ${JSON.stringify(text)}, not a non-negative integer` });
    }
  }
  const limit = parseNonNegativeInteger(headers['x-ratelimit-limit']);
  const remaining = parseNonNegativeInteger(headers['x-ratelimit-remaining']);
  if (limit !== undefined && remaining !== undefined && remaining > limit) {
    problems.push({ header: 'X-RateLimit-Remaining', detail: `is ${remaining}, more than X-RateLimit-Limit ${limit}` });
  }
  return problems;
}

/** The last instant an HTTP-date can name (31 Dec 9999 23:59:59 GMT): a later one is no time a server means. */
const lastHttpDateMs = 253_402_300_799_000;

/**
 * An HTTP-date (RFC 9110 section 5.6.7, all three forms start with a day name) as Unix ms, or
 * undefined when the text is none or names no instant from 1970 to the year 9999: a value from a
 * server is read by a parser that cannot throw and returns nothing out of range.
 *
 * @example parseHttpDate('Thu, 01 Jan 2026 00:00:00 GMT') // 1767225600000
 * @example parseHttpDate('Sat, 13 Sep 275760 00:00:00 GMT') // undefined
 */
export function parseHttpDate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /.test(trimmed)) return undefined;
  const ms = Date.parse(trimmed);
  return Number.isFinite(ms) && ms >= 0 && ms <= lastHttpDateMs ? ms : undefined;
}

/**
 * An instant for a report line, whatever number it is: ISO 8601 when a date can show it, else the
 * number itself (`Date#toISOString` throws a RangeError past the year 275760, on the request path of
 * the proxy that was a crash).
 *
 * @example isoTime(0) // '1970-01-01T00:00:00.000Z'
 * @example isoTime(1e20) // '1e+20 ms after 1970 (past any date)'
 */
export function isoTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
    ? new Date(ms).toISOString()
    : `${ms} ms after 1970 (past any date)`;
}

/**
 * The clock a response's timestamps are judged against: the server's own `Date` header when it
 * sent one (so client clock skew never fails a server), otherwise the client's clock at receipt.
 * A Date that names no believable instant (see `parseHttpDate`) is not a clock: `every.date-header`
 * judges it.
 *
 * @example serverClock({ date: 'Thu, 01 Jan 2026 00:00:00 GMT' }, Date.now()).nowMs // 1767225600000
 */
export function serverClock(
  headers: Readonly<Record<string, string>>,
  receivedAtMs: number,
): { nowMs: number; source: 'Date header' | 'local clock' } {
  const date = parseHttpDate(headers.date);
  return date !== undefined ? { nowMs: date, source: 'Date header' } : { nowMs: receivedAtMs, source: 'local clock' };
}

/**
 * Judges X-RateLimit-Reset: a Unix timestamp in whole seconds, not in the past and at most a day
 * ahead (the interface's longest window is a day). Names the usual mistakes (milliseconds, a
 * delta in seconds) so a failure says how to fix it. Undefined when the value is fine.
 *
 * `Date` has a resolution of one second and servers round Reset either way, hence the slack.
 *
 * @example resetProblem('1767225600000', 1767225540000, 'Date header')
 * // { header: 'X-RateLimit-Reset', detail: 'is 1767225600000: milliseconds, not seconds (...)' }
 */
export function resetProblem(
  text: string | undefined,
  nowMs: number,
  clockSource: 'Date header' | 'local clock',
): HeaderProblem | undefined {
  if (text === undefined) return undefined;
  const value = parseNonNegativeInteger(text);
  if (value === undefined) return undefined; // reported by rateHeaderValueProblems
  const nowSeconds = nowMs / 1000;
  const slack = clockSource === 'Date header' ? 2 : 60;
  const header = 'X-RateLimit-Reset';
  const when = (seconds: number) => isoTime(seconds * 1000);
  if (value > 100_000_000_000) {
    return {
      header,
      detail: `is ${text}: milliseconds, not seconds (as seconds it would be ${when(Math.floor(value / 1000))}); send a Unix timestamp in seconds`,
    };
  }
  if (value <= 10 * secondsPerDay) {
    return {
      header,
      detail: `is ${text}: a number of seconds until the reset (a delta), not a Unix timestamp; send the time of the reset in Unix seconds (now is about ${Math.floor(nowSeconds)})`,
    };
  }
  if (value < nowSeconds - slack) {
    return {
      header,
      detail: `is ${text} (${when(value)}), in the past (server time ${when(Math.floor(nowSeconds))}, from the ${clockSource})`,
    };
  }
  if (value > nowSeconds + secondsPerDay + slack) {
    return {
      header,
      detail: `is ${text} (${when(value)}), more than a day ahead of ${when(Math.floor(nowSeconds))} (from the ${clockSource}); the longest window of the interface is a day`,
    };
  }
  return undefined;
}

/**
 * Parses Retry-After (RFC 9110 section 10.2.3): a positive number of seconds or an HTTP-date.
 *
 * @example parseRetryAfter('42', Date.now()) // { ok: true, delayMs: 42000, form: 'seconds' }
 */
export function parseRetryAfter(
  text: string | undefined,
  nowMs: number,
): { ok: true; delayMs: number; form: 'seconds' | 'HTTP-date' } | { ok: false; reason: string } {
  if (text === undefined) return { ok: false, reason: 'is missing' };
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const seconds = Number(trimmed);
    if (seconds <= 0)
      return { ok: false, reason: `is ${JSON.stringify(text)}, but a delay must be a positive number of seconds` };
    // Past the last HTTP-date a delay names no time a client could wait for (and overflows clocks).
    if (seconds > lastHttpDateMs / 1000)
      return {
        ok: false,
        reason: `is ${JSON.stringify(text)} seconds, a delay past the year 9999: no time to wait for`,
      };
    return { ok: true, delayMs: seconds * 1000, form: 'seconds' };
  }
  const at = parseHttpDate(trimmed);
  if (at !== undefined) return { ok: true, delayMs: Math.max(0, at - nowMs), form: 'HTTP-date' };
  if (/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /.test(trimmed) && Number.isFinite(Date.parse(trimmed)))
    return { ok: false, reason: `is ${JSON.stringify(text)}, a date outside 1970 to 9999: no time to wait for` };
  return { ok: false, reason: `is ${JSON.stringify(text)}, neither a positive integer of seconds nor an HTTP-date` };
}

/** 'x-ratelimit-limit' -> 'X-RateLimit-Limit' */
function displayName(name: string): string {
  return name
    .split('-')
    .map((part) => (part === 'ratelimit' ? 'RateLimit' : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('-');
}

/** What one response said about its key's budget; undefined where a header is missing or malformed. */
export interface BudgetReading {
  limit: number | undefined;
  remaining: number | undefined;
  /** X-RateLimit-Reset in Unix seconds, when it is a believable timestamp (not ms, not a delta). */
  resetSeconds: number | undefined;
}

/**
 * Reads the X-RateLimit-* headers of a response.
 *
 * @example readBudget({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1767225660' }, Date.parse('2026-01-01T00:00:00Z'))
 * // { limit: 60, remaining: 59, resetSeconds: 1767225660 }
 */
export function readBudget(headers: Readonly<Record<string, string>>, receivedAtMs: number): BudgetReading {
  const reset = parseNonNegativeInteger(headers['x-ratelimit-reset']);
  // Only a believable Unix timestamp in seconds can tell when a window ends; the header checks judge the rest.
  const believable = reset !== undefined && Math.abs(reset * 1000 - receivedAtMs) < 2 * secondsPerDay * 1000;
  return {
    limit: parseNonNegativeInteger(headers['x-ratelimit-limit']),
    remaining: parseNonNegativeInteger(headers['x-ratelimit-remaining']),
    resetSeconds: believable ? reset : undefined,
  };
}

/**
 * Did a new window start between two responses of one key (sent one after the other)? Yes when
 * X-RateLimit-Reset moved later by more than a second (the rounding of whole seconds), when it moved
 * later at all while the budget came back (Remaining rose: a window as short as the headers' one-second
 * resolution rolls over by exactly one second), or when the Limit changed (the headers now report the
 * other window, the minute or the day). This is read from the headers, never from the clock: a request
 * sent in the last second before a Reset is still in its window if the server says so.
 *
 * @example newWindowBetween({ limit: 60, remaining: 3, resetSeconds: 1000 }, { limit: 60, remaining: 59, resetSeconds: 1060 }) // true
 */
export function newWindowBetween(before: BudgetReading, after: BudgetReading): boolean {
  // A header that cannot be read says nothing of windows.
  if (before.limit !== undefined && after.limit !== undefined && before.limit !== after.limit) return true;
  if (before.resetSeconds === undefined || after.resetSeconds === undefined) return false;
  const renewed = before.remaining !== undefined && after.remaining !== undefined && after.remaining > before.remaining;
  return after.resetSeconds > before.resetSeconds + (renewed ? 0 : 1);
}
