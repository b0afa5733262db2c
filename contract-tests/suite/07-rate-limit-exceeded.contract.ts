import { defineArea, type CheckRun } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, evidenceOf, type Exchange } from '../lib/exchange.js';
import type { ApiRequest } from '../lib/http-client.js';
import { responseOf } from '../lib/expect-response.js';
import { missingRateHeaders, parseNonNegativeInteger, parseRetryAfter, rateHeaderValueProblems } from '../lib/rate-limit-headers.js';
import { callOf, listCategories } from './operations.js';

/**
 * Interface section 8, rules 1 to 3, with the key given by --rate-limit-key only: read
 * X-RateLimit-Remaining, send exactly one request more than it allows, expect 429 with
 * Retry-After and the rate-limit headers, then never use that key again (rule 3: clients that
 * keep sending after a 429 may be banned).
 */
const sharedKey = 'rate-limit-429';

export default defineArea('Rate limit exceeded (§8.1, §8.2)', 'sequential', (check) => {
  check({ id: 'rate.429', rule: '§8.1', title: 'exceeding the limit -> 429 (with --rate-limit-key)', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const key = run.target.rateLimitKey ?? run.skip('needs --rate-limit-key: a key the kit may drive into 429');
    const request: ApiRequest = { ...callOf(listCategories), authorization: run.bearer(key), identity: 'rate-limit' };
    const probe = await run.send(request);
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
    run.note(sent < needed ? `429 after ${sent} of ${needed} requests (another client may share the key)` : `429 after exactly ${needed} requests (X-RateLimit-Remaining was ${remaining})`);
  });

  check({ id: 'rate.429-retry-after', rule: '§8.2', title: '429 carries Retry-After: a positive integer or an HTTP-date', operation: listCategories.label, operationId: listCategories.operationId }, async (run) => {
    const exchange = limitedExchange(run);
    const response = responseOf(exchange);
    const parsed = parseRetryAfter(response.headers['retry-after'], exchange.receivedAtMs);
    if (!parsed.ok) throw new CheckFailure(`Retry-After ${parsed.reason}`, [evidenceOf(exchange, parsed.reason, { header: 'Retry-After' })]);
    run.note(`Retry-After: ${response.headers['retry-after']} (${parsed.form})`);
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
      last = exchange;
      if (exchange.response?.status === 429) limited ??= exchange;
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.target.concurrency, count) }, worker));
  return { limited, sent, last };
}
