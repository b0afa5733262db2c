import { retryAfterInThePast } from '../../spec/interface/key-rules.js';
import {
  type BudgetReading,
  missingRateHeaders,
  newWindowBetween,
  parseRetryAfter,
  rateHeaderValueProblems,
  readBudget,
  serverClock,
} from '../../spec/interface/rate-limit-headers.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf, observedOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import { affordKeyRequests, isLimited, rateLimitKeyList, rateLimitKeyRecord } from '../lib/rate-limit-key.js';
import { allOperations, callOf, createCategory, listCategories } from './operations.js';

/**
 * Interface section 8, rules 1 to 3, with the key given by --rate-limit-key only. The key is
 * the run's alone (the README asks that nobody else uses it meanwhile), so its arithmetic is
 * exact: each request lowers X-RateLimit-Remaining by one. The kit reads Remaining, sends one
 * request at a time until only a few are left, then one more than are left in parallel: exactly
 * that many must be served and one refused with 429, Retry-After and the rate-limit headers. Then
 * it stops using the key (rule 3: clients that keep sending after a 429 may be banned) unless the
 * run may wait windows out (10-rate-limit-time.contract.ts).
 */
const sharedKey = 'rate-limit-429';
/** The rate.429 check's first request with the rate-limit key. */
const firstProbeKey = 'rate-limit-first-probe';
/** The served answer with the least Remaining, just before the 429. */
const lastAllowedKey = 'rate-limit-last-allowed';
/** Attempts at the parallel batch when a new window starts during it. */
const batchAttempts = 3;

export default defineArea('Rate limit exceeded (§8.1, §8.2)', 'sequential', (check) => {
  check(
    {
      id: 'rate.independent-budgets',
      rule: '§8',
      title: "keys have independent budgets: the main key's requests do not spend the rate-limit key's",
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
      const start = run.state.shared.get('rate-limit-start');
      if (start?.response === undefined) return run.skip('no reading of the rate-limit key at the start of the run');
      if (start.response.status === 429)
        return run.skip('the rate-limit key was already over its limit at the start of the run');
      let before = start;
      let mainSent = run.state.requestsByIdentity.main - run.state.mainRequestsAtRateLimitStart;
      // The key's own requests since its first reading (that one was its first of the run), the next one included:
      // other checks list with it too (the generated values' view of the other key).
      let ownSent = run.state.requestsByIdentity['rate-limit'];
      let later = await run.send(rateLimitKeyList(run));
      run.state.shared.set(firstProbeKey, later);
      // A new window between the two readings makes them incomparable: measure again, briefly.
      for (let attempt = 1; newWindowBetween(reading(before), reading(later)); attempt += 1) {
        if (attempt > 3 || isLimited(later))
          return run.inconclusive(
            'inconclusive: a new window of the rate-limit key started between each pair of its readings',
          );
        affordKeyRequests(run, 2, 'measuring the budgets again');
        before = await run.send(rateLimitKeyList(run));
        const mainBefore = run.state.requestsByIdentity.main;
        for (let index = 0; index < 3; index += 1)
          await run.send({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' });
        mainSent = run.state.requestsByIdentity.main - mainBefore;
        ownSent = 1;
        later = await run.send(rateLimitKeyList(run));
      }
      run.judged(2);
      const first = reading(before).remaining;
      // A 429 at the second reading, in the same window, is the budget spent to nothing.
      const second = reading(later).remaining ?? (isLimited(later) ? 0 : undefined);
      if (first === undefined || second === undefined)
        return run.skip('X-RateLimit-Remaining of the rate-limit key is missing or not an integer');
      const unexplained = first - ownSent - second;
      if (unexplained <= 0) {
        run.note(
          `Remaining ${first} -> ${second} over its own ${ownSent} request(s) while the main key sent ${mainSent}`,
        );
        return;
      }
      const evidence = [
        evidenceOf(before, `rate-limit key: X-RateLimit-Remaining ${first}`, { header: 'X-RateLimit-Remaining' }),
        evidenceOf(
          later,
          `rate-limit key: X-RateLimit-Remaining ${second} after ${ownSent} request(s) of its own and ${mainSent} of the main key`,
          { header: 'X-RateLimit-Remaining' },
        ),
      ];
      if (unexplained >= 3 && unexplained * 2 >= Math.min(mainSent, first)) {
        throw new CheckFailure(
          `the rate-limit key lost ${unexplained} more requests than it sent while the main key sent ${mainSent}: the keys draw on one budget`,
          evidence,
        );
      }
      run.info(
        `the rate-limit key lost ${unexplained} more requests than it sent (another client may be using it)`,
        evidence,
      );
    },
  );

  check(
    {
      id: 'auth.rate-limit-key:every-operation',
      rule: '§5.2',
      title: 'the second key is accepted by every operation too (not 401), each request counted once',
      operation: '(rate-limit key)',
      maxCreates: (target) => (target.rateLimitKey === undefined ? 0 : 1),
    },
    async (run) => {
      if (run.target.rateLimitKey === undefined) return run.skip('needs --rate-limit-key');
      const refused: Exchange[] = [];
      const untried: string[] = [];
      for (const operation of allOperations) {
        if (operation === createCategory && run.target.readOnly) continue;
        // A tiny budget is kept for the 429 checks: the key must reach its limit by the requests that judge it.
        const latest = latestOfKey(run);
        const affordable = run.state.requestsByIdentity['rate-limit'] + 1 <= run.target.maxRequests;
        if (latest === undefined || isLimited(latest) || (reading(latest).remaining ?? 0) < 2 || !affordable) {
          untried.push(operation.label);
          continue;
        }
        const exchange = await run.send({
          ...callOf(operation),
          authorization: run.bearer(run.target.rateLimitKey),
          identity: 'rate-limit',
          ...(operation === createCategory ? { json: { name: run.categoryName('rate-limit-key') } } : {}),
        });
        if (responseOf(exchange).status === 401) refused.push(exchange);
      }
      if (untried.length === allOperations.length)
        return run.skip('the rate-limit key had too few requests left to spend them on every operation');
      if (refused.length > 0) {
        throw new CheckFailure(
          `the rate-limit key was refused with 401 by ${refused.map((exchange) => `${exchange.request.method} ${exchange.request.path}`).join(', ')}, though the key is valid (other operations accept it)`,
          refused.map((exchange) =>
            evidenceOf(exchange, '401 with the key given by --rate-limit-key', { header: 'Authorization' }),
          ),
        );
      }
      if (untried.length > 0)
        run.note(`not tried, to keep the key's last requests for the 429 checks: ${untried.join(', ')}`);
    },
  );

  check(
    {
      id: 'rate.429',
      rule: '§8.1',
      title: 'exceeding the limit -> 429 (with --rate-limit-key)',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (run.target.rateLimitKey === undefined)
        return run.skip('needs --rate-limit-key: a key the kit may drive into 429');
      const start = run.state.shared.get('rate-limit-start');
      if (start?.response?.status === 429) {
        // Refused at its very first request of the run: that 429 is the one to judge, and the key is not used again.
        run.state.shared.set(sharedKey, start);
        run.judged(1);
        run.note('the key was already over its limit at the start of the run');
        return;
      }
      run.state.mainRequestsAtFirstProbe = run.state.requestsByIdentity.main;
      const earlier = latestOfKey(run);
      if (isLimited(earlier)) {
        // Refused already, by a check above: that 429 is the one to judge, and the key is not used again.
        run.state.shared.set(sharedKey, earlier!);
        const served = [...run.state.exchanges]
          .reverse()
          .find(
            (exchange) => exchange.identity === 'rate-limit' && exchange.response !== undefined && !isLimited(exchange),
          );
        if (served !== undefined) run.state.shared.set(lastAllowedKey, served);
        run.judged(1);
        run.note('the key reached its limit during the checks above');
        return;
      }
      // The key's latest answer tells what is left; read it afresh only when there is none.
      let last = earlier ?? (await run.send(rateLimitKeyList(run)));
      if (!run.state.shared.has(firstProbeKey)) run.state.shared.set(firstProbeKey, last);
      if (isLimited(last)) {
        run.state.shared.set(sharedKey, last);
        run.note('the key was already over its limit');
        return;
      }
      if (responseOf(last).status === 401)
        return run.inconclusive('inconclusive: the server refused the rate-limit key with 401; check --rate-limit-key');
      const firstRemaining = reading(last).remaining;
      if (firstRemaining === undefined)
        return run.skip(
          'inconclusive: X-RateLimit-Remaining of the rate-limit key is missing or not an integer, so the kit cannot tell how many requests exceed it',
        );
      if (firstRemaining + 1 > run.target.maxRequests - run.state.requestsByIdentity['rate-limit']) {
        return run.skip(
          `refused: exceeding the limit needs ${firstRemaining + 1} more requests (X-RateLimit-Remaining ${firstRemaining}), more than --max-requests ${run.target.maxRequests}`,
        );
      }
      const batch = Math.min(4, run.target.concurrency);
      const record = rateLimitKeyRecord(run.state);
      // What the window promised when it was first read: more requests than that, and a 429 is due.
      let windowStart = last;
      let sentInWindow = 0;
      // Read afresh at each use: a window that begins mid-way makes a new promise.
      const promised = () => (reading(windowStart).remaining ?? 0) + 1;
      for (let attempt = 1; ; attempt += 1) {
        // One at a time while more than a batch is left: "the answer before" is then well defined.
        while ((reading(last).remaining ?? 0) > batch && promised() - sentInWindow > batch + 1) {
          affordKeyRequests(run, 1, 'exceeding the limit');
          const next = await run.send(rateLimitKeyList(run));
          sentInWindow += 1;
          if (isLimited(next)) return limitedEarly(run, last, next);
          if (newWindowBetween(reading(last), reading(next))) {
            windowStart = next;
            sentInWindow = 0;
          }
          last = next;
        }
        // The last few (and one more) in parallel: a server that checks and counts in two steps lets more through.
        const left = reading(last).remaining ?? 0;
        const size = Math.max(1, Math.min(left + 1, promised() - sentInWindow));
        affordKeyRequests(run, size, 'exceeding the limit');
        const answers = await Promise.all(Array.from({ length: size }, () => run.send(rateLimitKeyList(run))));
        sentInWindow += size;
        for (const answer of answers) record.parallel.add(answer.seq);
        const served = answers.filter((answer) => !isLimited(answer));
        const newer = served.filter((answer) => newWindowBetween(reading(last), reading(answer)));
        if (newer.length > 0 && attempt < batchAttempts && served.length === answers.length) {
          // A window began during the batch; go on in the new one.
          last = newer.reduce((lowest, answer) =>
            (reading(answer).remaining ?? 0) < (reading(lowest).remaining ?? 0) ? answer : lowest,
          );
          windowStart = last;
          sentInWindow = 0;
          continue;
        }
        const limited = answers.filter(isLimited);
        if (limited.length === 0) {
          throw new CheckFailure(
            `no 429: X-RateLimit-Remaining was ${reading(windowStart).remaining}, and all ${sentInWindow} requests sent since in that window were served (the last ${answers.length} in parallel)`,
            [
              evidenceOf(windowStart, `X-RateLimit-Remaining ${reading(windowStart).remaining}`, {
                header: 'X-RateLimit-Remaining',
              }),
              ...answers
                .slice(-2)
                .map((answer) =>
                  evidenceOf(
                    answer,
                    `${responseOf(answer).status}, X-RateLimit-Remaining ${responseOf(answer).headers['x-ratelimit-remaining'] ?? 'missing'}`,
                  ),
                ),
            ],
          );
        }
        run.state.shared.set(sharedKey, limited[0]!);
        const lowest =
          served.length === 0
            ? last
            : served.reduce((low, answer) =>
                (reading(answer).remaining ?? Infinity) < (reading(low).remaining ?? Infinity) ? answer : low,
              );
        run.state.shared.set(lastAllowedKey, lowest);
        run.state.shared.set('rate-limit-before-batch', last);
        run.note(
          `429 after ${run.state.requestsByIdentity['rate-limit']} requests of the key in this run (Remaining ${firstRemaining} at first; the last ${answers.length} in parallel)`,
        );
        return;
      }
    },
  );

  check(
    {
      id: 'rate.parallel-exact',
      rule: '§8.1',
      title:
        'when N requests are left, N+1 sent in parallel get exactly N served (Remaining N-1 ... 0, each once) and one 429',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const limited = limitedExchange(run);
      const before =
        run.state.shared.get('rate-limit-before-batch') ?? run.skip('the 429 came before the parallel batch');
      const record = rateLimitKeyRecord(run.state);
      const batch = run.state.exchanges.filter(
        (exchange) => record.parallel.has(exchange.seq) && !newWindowBetween(reading(before), reading(exchange)),
      );
      const left = reading(before).remaining ?? run.skip('X-RateLimit-Remaining is missing before the batch');
      if (batch.length !== left + 1) return run.skip('the parallel batch did not stay in one window');
      run.judged(batch.length);
      const served = batch.filter((exchange) => !isLimited(exchange));
      const reported = served.map((exchange) => reading(exchange).remaining).sort((a, b) => (b ?? -1) - (a ?? -1));
      const expected = Array.from({ length: left }, (_, index) => left - 1 - index);
      if (served.length !== left || JSON.stringify(reported) !== JSON.stringify(expected)) {
        const what =
          served.length > left
            ? `${served.length} were served, ${served.length - left} more than the ${left} it said were left`
            : served.length < left
              ? `only ${served.length} were served of the ${left} it said were left`
              : `the served answers said Remaining ${reported.join(', ')} instead of ${expected.join(', ')}`;
        throw new CheckFailure(
          `X-RateLimit-Remaining was ${left} and ${batch.length} requests were sent in parallel: ${what}`,
          [
            evidenceOf(before, `X-RateLimit-Remaining ${left} before the batch`, { header: 'X-RateLimit-Remaining' }),
            ...batch
              .slice(0, 5)
              .map((exchange) =>
                evidenceOf(
                  exchange,
                  `${responseOf(exchange).status}, X-RateLimit-Remaining ${responseOf(exchange).headers['x-ratelimit-remaining'] ?? 'missing'}`,
                  { header: 'X-RateLimit-Remaining' },
                ),
              ),
            evidenceOf(limited, 'the 429'),
          ],
        );
      }
      run.note(`Remaining ${left}: ${left} served (${reported.join(', ')}), 1 refused`);
    },
  );

  check(
    {
      id: 'rate.429-retry-after',
      rule: '§8.2',
      title: '429 carries Retry-After: a positive integer or an HTTP-date',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const exchange = limitedExchange(run);
      const response = responseOf(exchange);
      const clock = serverClock(response.headers, exchange.receivedAtMs);
      const parsed = parseRetryAfter(response.headers['retry-after'], clock.nowMs);
      if (!parsed.ok)
        throw new CheckFailure(`Retry-After ${parsed.reason}`, [
          evidenceOf(exchange, parsed.reason, { header: 'Retry-After' }),
        ]);
      const past = retryAfterInThePast(observedOf(exchange)!);
      if (past !== undefined) {
        const at = Date.parse(response.headers['retry-after']!.trim());
        throw new CheckFailure(past, [
          evidenceOf(
            exchange,
            `Retry-After ${new Date(at).toISOString()} before ${new Date(clock.nowMs).toISOString()}`,
            {
              header: 'Retry-After',
            },
          ),
        ]);
      }
      run.note(`Retry-After: ${response.headers['retry-after']} (${parsed.form}, judged against the ${clock.source})`);
    },
  );

  check(
    {
      id: 'rate.429-headers',
      rule: '§8',
      title: '429 carries X-RateLimit-Limit, -Remaining and -Reset as integers',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const exchange = limitedExchange(run);
      const headers = responseOf(exchange).headers;
      const missing = missingRateHeaders(headers);
      if (missing.length > 0)
        throw new CheckFailure(`the 429 lacks ${missing.join(', ')}`, [
          evidenceOf(exchange, `missing ${missing.join(', ')}`, { header: missing[0] }),
        ]);
      const problems = rateHeaderValueProblems(headers);
      if (problems.length > 0) {
        throw new CheckFailure(
          problems.map((problem) => `${problem.header} ${problem.detail}`).join('; '),
          problems.map((problem) => evidenceOf(exchange, problem.detail, { header: problem.header })),
        );
      }
    },
  );

  // Whether the first 429 sends the key away for longer than its window (a ban too early) is the catalogue's
  // rate.first-429-no-ban (spec/interface/ban-rules.ts), judged on every 429 of the run.

  check(
    {
      id: 'rate.429-body',
      rule: '§7',
      title: '429 body (not shown by the interface)',
      operation: listCategories.label,
    },
    async (run) => {
      const exchange = limitedExchange(run);
      const response = responseOf(exchange);
      run.info(`Content-Type ${response.headers['content-type'] ?? 'missing'}, body ${bodyExcerpt(exchange, 120)}`);
    },
  );
});

/** The latest answer to the rate-limit key. */
function latestOfKey(run: CheckRun): Exchange | undefined {
  return [...run.state.exchanges]
    .reverse()
    .find((exchange) => exchange.identity === 'rate-limit' && exchange.response !== undefined);
}

function reading(exchange: Exchange): BudgetReading {
  const response = exchange.response;
  return response === undefined
    ? { limit: undefined, remaining: undefined, resetSeconds: undefined }
    : readBudget(response.headers, exchange.receivedAtMs);
}

/** A 429 before the batch: the answer before it must have said 0 (judged by rate.429-only-when-exhausted). */
function limitedEarly(run: CheckRun, last: Exchange, limited: Exchange): void {
  run.state.shared.set(sharedKey, limited);
  run.state.shared.set(lastAllowedKey, last);
  run.note(
    `429 while sending one at a time, after an answer that said Remaining ${reading(last).remaining ?? 'missing'}`,
  );
}

function limitedExchange(run: CheckRun): Exchange {
  const exchange = run.state.shared.get(sharedKey);
  if (exchange !== undefined) {
    run.judged(1);
    return exchange;
  }
  return run.skip(
    run.target.rateLimitKey === undefined ? 'needs --rate-limit-key' : 'no 429 was received (see the check above)',
  );
}
