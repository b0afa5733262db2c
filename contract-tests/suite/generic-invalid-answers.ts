import type { CheckRun } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Evidence, type Exchange, evidenceOf } from '../lib/exchange.js';
import type { GenericOperation } from '../lib/generic-requests.js';
import { declaredResponse, judgeResponse } from '../lib/response-conformance.js';

/** What the invalid requests of one operation got: failures, statuses, and what the document leaves open. */
export class InvalidAnswers {
  readonly #operation: GenericOperation;
  readonly failures: Evidence[] = [];
  readonly summaries: string[] = [];
  readonly open = new Set<string>();
  readonly statuses = new Set<number>();

  constructor(operation: GenericOperation) {
    this.#operation = operation;
  }

  /** One invalid request's answer: a 2xx, 5xx or none fails; a 4xx is judged by the document where it declares it. */
  judge(label: string, exchange: Exchange): void {
    const response = exchange.response;
    const problem =
      response === undefined
        ? `no response: ${exchange.transportError ?? 'unknown'}`
        : response.status < 400
          ? `accepted with ${response.status}`
          : response.status >= 500
            ? `answered ${response.status}`
            : undefined;
    if (problem !== undefined) {
      this.summaries.push(`${label} (${problem})`);
      this.failures.push(evidenceOf(exchange, `${label}: ${problem}; body ${bodyExcerpt(exchange, 100)}`));
      return;
    }
    const definition = this.#operation.definition;
    this.statuses.add(response!.status);
    const declared = declaredResponse(definition, response!.status);
    if (declared === undefined) {
      this.open.add(`${response!.status} is not declared (which 4xx answers an invalid request is left open)`);
      return;
    }
    const verdict = judgeResponse(definition, response!, definition.method !== 'HEAD');
    for (const item of verdict.problems) {
      this.summaries.push(`${label} (${item})`);
      this.failures.push(evidenceOf(exchange, `${label}: ${item}`));
    }
    for (const item of verdict.open) this.open.add(item);
  }

  /** Fails with the first few failures, or notes the statuses and what was open. */
  report(run: CheckRun, total: number): void {
    const { failures, summaries, open, statuses } = this;
    if (failures.length > 0)
      throw new CheckFailure(
        `${summaries.length} of ${total} invalid requests answered against the document: ${summaries.slice(0, 3).join('; ')}${summaries.length > 3 ? `; and ${summaries.length - 3} more` : ''}`,
        failures.slice(0, 6),
      );
    run.note(
      `${total} cases answered ${[...statuses].sort().join('/')}${open.size > 0 ? `; information: ${[...open].slice(0, 2).join('; ')}` : ''}`,
    );
  }
}
