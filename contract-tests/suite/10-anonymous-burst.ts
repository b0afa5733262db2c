import { CheckFailure, OverBudget } from '../lib/check-errors.js';
import { type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { callOf, listCategories } from './operations.js';

/** Requests in the burst: a third of our mock's address budget (60 a minute), sent at once (bounded by --concurrency). */
const burstSize = 20;

/**
 * A burst of requests without a key (--thorough): interface section 5 says a missing key gets 401
 * with an Error body, whatever else is in flight; whether requests without a key are limited (by
 * address) is not shown, so a 429 among them is the server's choice (INFO). The requests go
 * through the kit's pacing of the address's budget (lib/rate-budget.ts), which waits for the
 * address's window when the burst does not fit what is left of it; every answer is also judged by
 * the catalogue's response rules (Error shape, rate-limit headers). A default run does not send
 * one: the authentication checks spend most of that budget, and a default run does not wait.
 */
export function anonymousBurstCheck(check: RegisterCheck): void {
  check(
    {
      id: 'auth.anonymous-burst',
      rule: '§5.3',
      title: `${burstSize} requests without a key at once -> each 401 + Error (a 429 of an address budget is the server's choice: information)`,
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      if (!run.target.thorough)
        throw new OverBudget(
          `a burst of ${burstSize} requests without a key draws on the address's budget, which the authentication checks spend and a default run does not wait for; --thorough sends it`,
        );
      const answers = await Promise.all(
        Array.from({ length: burstSize }, () => run.send({ ...callOf(listCategories), identity: 'anonymous' })),
      );
      run.judged(answers.length);
      const served = answers.filter((answer) => (answer.response?.status ?? 0) < 400);
      const wrong = answers.filter((answer) => ![401, 429].includes(answer.response?.status ?? 0));
      if (wrong.length > 0) throw burstFailure(answers, served, wrong);
      const limited = answers.filter((answer) => answer.response?.status === 429);
      if (limited.length > 0) {
        run.info(
          `${limited.length} of ${burstSize} requests without a key were refused with 429 (the address's budget: X-RateLimit-Limit ${responseOf(limited[0]!).headers['x-ratelimit-limit'] ?? 'missing'}), the rest 401; the interface does not say whether requests without a key are limited`,
          [evidenceOf(limited[0]!, '429 to a request without a key')],
        );
        return;
      }
      run.note(`all ${burstSize} answered 401`);
    },
  );
}

function burstFailure(answers: Exchange[], served: Exchange[], wrong: Exchange[]): CheckFailure {
  const statuses = [...new Set(wrong.map((answer) => answer.response?.status ?? 'no answer'))].join(', ');
  return new CheckFailure(
    `${wrong.length} of ${answers.length} requests without a key sent at once were answered ${statuses}, not 401${served.length > 0 ? `: ${served.length} were served without credentials` : ''} (§5.3: a missing key gets 401 + Error)`,
    wrong.slice(0, 3).map((answer) => evidenceOf(answer, `${answer.response?.status ?? 'no answer'} without a key`)),
  );
}
