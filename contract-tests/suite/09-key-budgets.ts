import { newWindowBetween } from '../../spec/interface/rate-limit-headers.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import { affordKeyRequests, isLimited, rateLimitKeyList } from '../lib/rate-limit-key.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { allOperations, callOf, createCategory, listCategories } from './operations.js';
import { budgetReading, keyAnswers, latestOfKey } from './rate-limit-key-answers.js';

/**
 * The rate-limit key before suite 09 drives it to its 429: its budget is its own (the main key's
 * requests since the start of the run did not spend it), and every operation accepts it.
 */
export function keyBudgetChecks(check: RegisterCheck): void {
  independentBudgetsCheck(check);
  everyOperationCheck(check);
}

function independentBudgetsCheck(check: RegisterCheck): void {
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
      const start = run.state.shared.get(keyAnswers.start);
      if (start?.response === undefined) return run.skip('no reading of the rate-limit key at the start of the run');
      if (start.response.status === 429)
        return run.skip('the rate-limit key was already over its limit at the start of the run');
      let before = start;
      let mainSent = run.state.requestsByIdentity.main - run.state.mainRequestsAtRateLimitStart;
      // The key's own requests since its first reading (that one was its first of the run), the next one included:
      // other checks list with it too (the generated values' view of the other key).
      let ownSent = run.state.requestsByIdentity['rate-limit'];
      let later = await run.send(rateLimitKeyList(run));
      run.state.shared.set(keyAnswers.firstProbe, later);
      // A new window between the two readings makes them incomparable: measure again, briefly.
      for (let attempt = 1; newWindowBetween(budgetReading(before), budgetReading(later)); attempt += 1) {
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
      const first = budgetReading(before).remaining;
      // A 429 at the second reading, in the same window, is the budget spent to nothing.
      const second = budgetReading(later).remaining ?? (isLimited(later) ? 0 : undefined);
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
}

function everyOperationCheck(check: RegisterCheck): void {
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
        if (latest === undefined || isLimited(latest) || (budgetReading(latest).remaining ?? 0) < 2 || !affordable) {
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
}
