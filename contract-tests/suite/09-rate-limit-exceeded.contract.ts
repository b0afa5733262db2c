import { defineArea, type CheckRun } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, evidenceOf, type Evidence, type Exchange } from '../lib/exchange.js';
import type { ApiRequest } from '../lib/http-client.js';
import { responseOf } from '../lib/expect-response.js';
import { missingRateHeaders, parseNonNegativeInteger, parseRetryAfter, rateHeaderValueProblems, serverClock } from '../lib/rate-limit-headers.js';
import { callOf, listCategories } from './operations.js';

/**
 * Interface section 8, rules 1 to 3, with the key given by --rate-limit-key only: read
 * X-RateLimit-Remaining, send exactly one request more than it allows, expect 429 with
 * Retry-After and the rate-limit headers, then never use that key again (rule 3: clients that
 * keep sending after a 429 may be banned).
 */
const sharedKey = 'rate-limit-429';
/** The rate.429 check's first request with the rate-limit key. */
const firstProbeKey = 'rate-limit-first-probe';
/** The last response of the rate-limit key before its 429. */
const lastAllowedKey = 'rate-limit-last-allowed';

export default defineArea('Rate limit exceeded (§8.1, §8.2)', 'sequential', (check) => {
  check({ id: 'rate.429', rule: '§8.1', title: 'exceeding the limit -> 429 (with --rate-limit-key)', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const key = run.target.rateLimitKey ?? run.skip('needs --rate-limit-key: a key the kit may drive into 429');
    const request: ApiRequest = { ...callOf(listCategories), authorization: run.bearer(key), identity: 'rate-limit' };
    const start = run.state.shared.get('rate-limit-start');
    if (start?.response?.status === 429) {
      // Refused at its very first request of the run: that 429 is the one to judge, and the key is not used again.
      run.state.shared.set(sharedKey, start);
      run.judged(1);
      run.note('the key was already over its limit at the start of the run');
      return;
    }
    run.state.mainRequestsAtFirstProbe = run.state.requestsByIdentity.main;
    const probe = await run.send(request);
    run.state.shared.set(firstProbeKey, probe);
    const first = responseOf(probe);
    if (first.status === 429) {
      run.state.shared.set(sharedKey, probe);
      run.note('the key was already over its limit');
      return;
    }
    if (first.status === 401) return run.inconclusive('inconclusive: the server refused the rate-limit key with 401; check --rate-limit-key');
    const remaining = parseNonNegativeInteger(first.headers['x-ratelimit-remaining']);
    if (remaining === undefined) return run.skip('inconclusive: X-RateLimit-Remaining of the rate-limit key is missing or not an integer, so the kit cannot tell how many requests exceed it');
    const needed = remaining + 1;
    if (needed > run.target.maxRequests) {
      return run.skip(`refused: exceeding the limit needs ${needed} more requests (X-RateLimit-Remaining ${remaining}), more than --max-requests ${run.target.maxRequests}`);
    }
    const { limited, sent, last } = await burst(run, request, needed);
    if (limited === undefined) {
      const reset = parseNonNegativeInteger(first.headers['x-ratelimit-reset']);
      if (reset !== undefined && Date.now() >= reset * 1000 && reset * 1000 > probe.receivedAtMs) {
        return run.inconclusive(`inconclusive: the window reset (X-RateLimit-Reset ${reset}) while the kit was sending ${needed} requests`);
      }
      throw new CheckFailure(`no 429 after ${sent} more requests although X-RateLimit-Remaining was ${remaining}`, [
        evidenceOf(probe, `X-RateLimit-Remaining ${remaining}`, { header: 'X-RateLimit-Remaining' }),
        ...(last ? [evidenceOf(last, `request ${sent} of ${needed}: ${responseOf(last).status}, X-RateLimit-Remaining ${responseOf(last).headers['x-ratelimit-remaining'] ?? 'missing'}`)] : []),
      ]);
    }
    run.state.shared.set(sharedKey, limited);
    if (last !== undefined) run.state.shared.set(lastAllowedKey, last);
    else run.state.shared.set(lastAllowedKey, probe);
    run.note(sent < needed ? `429 after ${sent} of ${needed} requests (another client may share the key)` : `429 after exactly ${needed} requests (X-RateLimit-Remaining was ${remaining})`);
  });

  check({ id: 'rate.429-retry-after', rule: '§8.2', title: '429 carries Retry-After: a positive integer or an HTTP-date', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const exchange = limitedExchange(run);
    const response = responseOf(exchange);
    const clock = serverClock(response.headers, exchange.receivedAtMs);
    const parsed = parseRetryAfter(response.headers['retry-after'], clock.nowMs);
    if (!parsed.ok) throw new CheckFailure(`Retry-After ${parsed.reason}`, [evidenceOf(exchange, parsed.reason, { header: 'Retry-After' })]);
    if (parsed.form === 'HTTP-date') {
      const at = Date.parse(response.headers['retry-after']!.trim());
      const slackMs = clock.source === 'Date header' ? 2_000 : 60_000;
      if (at < clock.nowMs - slackMs) {
        throw new CheckFailure(`Retry-After ${response.headers['retry-after']} is in the past (server time ${new Date(clock.nowMs).toUTCString()}, from the ${clock.source})`, [evidenceOf(exchange, `Retry-After ${new Date(at).toISOString()} before ${new Date(clock.nowMs).toISOString()}`, { header: 'Retry-After' })]);
      }
    }
    run.note(`Retry-After: ${response.headers['retry-after']} (${parsed.form}, judged against the ${clock.source})`);
  });

  check({ id: 'rate.429-headers', rule: '§8', title: '429 carries X-RateLimit-Limit, -Remaining and -Reset as integers', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const exchange = limitedExchange(run);
    const headers = responseOf(exchange).headers;
    const missing = missingRateHeaders(headers);
    if (missing.length > 0) throw new CheckFailure(`the 429 lacks ${missing.join(', ')}`, [evidenceOf(exchange, `missing ${missing.join(', ')}`, { header: missing[0] })]);
    const problems = rateHeaderValueProblems(headers);
    if (problems.length > 0) {
      throw new CheckFailure(problems.map((problem) => `${problem.header} ${problem.detail}`).join('; '), problems.map((problem) => evidenceOf(exchange, problem.detail, { header: problem.header })));
    }
  });

  check({ id: 'rate.429-only-when-exhausted', rule: '§8.1', title: 'a 429 comes only when the budget says none is left (the response before it, and the 429 itself, say Remaining 0)', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const limited = limitedExchange(run);
    const before = run.state.shared.get(lastAllowedKey);
    const problems: Evidence[] = [];
    const ownRemaining = parseNonNegativeInteger(responseOf(limited).headers['x-ratelimit-remaining']);
    if (ownRemaining !== undefined && ownRemaining > 0) problems.push(evidenceOf(limited, `the 429 says X-RateLimit-Remaining ${ownRemaining}: requests are left, yet this one was refused`, { header: 'X-RateLimit-Remaining' }));
    if (before?.response !== undefined && before.response.status !== 429) {
      const promised = parseNonNegativeInteger(before.response.headers['x-ratelimit-remaining']);
      const resetMs = (parseNonNegativeInteger(before.response.headers['x-ratelimit-reset']) ?? 0) * 1000;
      const sameWindow = limited.sentAtMs < resetMs - 1_000;
      if (promised !== undefined && promised > 0 && sameWindow) {
        problems.push(evidenceOf(before, `X-RateLimit-Remaining ${promised} on the response just before the 429 (requests sent one at a time, same window)`, { header: 'X-RateLimit-Remaining' }));
      }
    }
    if (problems.length > 0) throw new CheckFailure(`the 429 contradicts the budget the key reported: ${problems.map((problem) => problem.detail).join('; ')}`, [...problems, evidenceOf(limited, 'the 429')]);
    run.note('Remaining 0 before and on the 429');
  });

  check({ id: 'rate.retry-after-matches-reset', rule: '§8.2', title: 'Retry-After points no later than the X-RateLimit-Reset the 429 reports (server Date, ± 2 s)', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const exchange = limitedExchange(run);
    const headers = responseOf(exchange).headers;
    const clock = serverClock(headers, exchange.receivedAtMs);
    const retry = parseRetryAfter(headers['retry-after'], clock.nowMs);
    const reset = parseNonNegativeInteger(headers['x-ratelimit-reset']);
    if (!retry.ok || reset === undefined || reset > 100_000_000_000 || reset < 10 * 86_400) return run.skip('needs a valid Retry-After and a Unix-seconds X-RateLimit-Reset on the 429 (judged by the checks above)');
    const retryAtMs = clock.nowMs + retry.delayMs;
    const resetMs = reset * 1000;
    // Date and Reset have one-second resolution and either may be rounded up: 2 s either way.
    const slackMs = clock.source === 'Date header' ? 2_000 : 60_000;
    if (retryAtMs > resetMs + slackMs) {
      throw new CheckFailure(`Retry-After ${headers['retry-after']} points to ${new Date(retryAtMs).toISOString()}, ${Math.round((retryAtMs - resetMs) / 1000)} s after the reset the same 429 reports (${new Date(resetMs).toISOString()}), judged by the ${clock.source}`, [
        evidenceOf(exchange, `Retry-After ${headers['retry-after']}, X-RateLimit-Reset ${reset}, Date ${headers.date ?? 'missing'}`, { header: 'Retry-After' }),
      ]);
    }
    if (retryAtMs < resetMs - slackMs) {
      run.info(`Retry-After points ${Math.round((resetMs - retryAtMs) / 1000)} s before X-RateLimit-Reset; the interface does not say how windows move (a sliding window may free a request earlier)`, [evidenceOf(exchange, `Retry-After ${headers['retry-after']}, X-RateLimit-Reset ${reset}`)]);
      return;
    }
    run.note(`Retry-After ${headers['retry-after']} agrees with X-RateLimit-Reset ${reset} (tolerance ${slackMs / 1000} s, ${clock.source})`);
  });

  check({ id: 'rate.independent-budgets', rule: '§8', title: 'keys have independent budgets: the main key\'s requests do not spend the rate-limit key\'s', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
    const start = run.state.shared.get('rate-limit-start');
    const later = run.state.shared.get(firstProbeKey);
    if (start?.response === undefined || later?.response === undefined) return run.skip('no two readings of the rate-limit key to compare (see rate.429)');
    run.judged(2);
    const before = parseNonNegativeInteger(start.response.headers['x-ratelimit-remaining']);
    const after = parseNonNegativeInteger(later.response.headers['x-ratelimit-remaining']);
    const resetMs = (parseNonNegativeInteger(start.response.headers['x-ratelimit-reset']) ?? 0) * 1000;
    if (before === undefined || after === undefined || start.response.status === 429) return run.skip('X-RateLimit-Remaining of the rate-limit key is missing, or it was already over its limit at the start');
    if (resetMs > 864_000_000 && later.sentAtMs >= resetMs - 1_000) return run.inconclusive('inconclusive: the rate-limit key\'s window reset between its two readings');
    const mainSent = run.state.mainRequestsAtFirstProbe - run.state.mainRequestsAtRateLimitStart;
    const unexplained = before - 1 - after;
    if (unexplained <= 0) {
      run.note(`Remaining ${before} -> ${after} over its own 1 request while the main key sent ${mainSent}`);
      return;
    }
    const evidence = [evidenceOf(start, `rate-limit key: X-RateLimit-Remaining ${before}`, { header: 'X-RateLimit-Remaining' }), evidenceOf(later, `rate-limit key: X-RateLimit-Remaining ${after} after 1 request of its own and ${mainSent} of the main key`, { header: 'X-RateLimit-Remaining' })];
    if (unexplained >= 3 && unexplained * 2 >= Math.min(mainSent, before)) {
      throw new CheckFailure(`the rate-limit key lost ${unexplained} more requests than it sent while the main key sent ${mainSent}: the keys draw on one budget`, evidence);
    }
    run.info(`the rate-limit key lost ${unexplained} more requests than it sent (another client may be using it)`, evidence);
  });

  check({ id: 'rate.429-body', rule: '§7', title: '429 body (not shown by the interface)', operation: listCategories.label }, async (run) => {
    const exchange = limitedExchange(run);
    const response = responseOf(exchange);
    run.info(`Content-Type ${response.headers['content-type'] ?? 'missing'}, body ${bodyExcerpt(exchange, 120)}`);
  });
});

function limitedExchange(run: CheckRun): Exchange {
  const exchange = run.state.shared.get(sharedKey);
  if (exchange !== undefined) {
    run.judged(1);
    return exchange;
  }
  return run.skip(run.target.rateLimitKey === undefined ? 'needs --rate-limit-key' : 'no 429 was received (see the check above)');
}

/**
 * Sends `count` requests with up to --concurrency in flight and stops sending at the first 429.
 * Exactly `count` go out unless the 429 comes early.
 */
async function burst(run: CheckRun, request: ApiRequest, count: number): Promise<{ limited: Exchange | undefined; sent: number; last: Exchange | undefined }> {
  let sent = 0;
  let limited: Exchange | undefined;
  let last: Exchange | undefined;
  const worker = async () => {
    while (sent < count && limited === undefined && !run.state.rateLimitKeyStopped) {
      sent += 1;
      const exchange = await run.send(request);
      if (exchange.response?.status === 429) limited ??= exchange;
      else last = exchange;
    }
  };
  // One at a time: then "the response before the 429" is well defined, and so is what it promised.
  await worker();
  return { limited, sent, last };
}
