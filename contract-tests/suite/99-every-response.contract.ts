import { type CheckRun, defineArea, isSoft } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import {
  bodyExcerpt,
  type Evidence,
  type Exchange,
  type ExchangeResponse,
  evidenceOf,
  truncate,
} from '../lib/exchange.js';
import { hasNoContentByDefinition, isJsonContentType, isJsonMediaType } from '../lib/expect-response.js';
import {
  interfacePlans,
  missingRateHeaders,
  parseRetryAfter,
  rateHeaderValueProblems,
  readBudget,
  resetProblem,
  serverClock,
} from '../lib/rate-limit-headers.js';
import { describeIssues, validateBody } from '../lib/spec-model.js';

/**
 * The rules that hold for every response, judged over every exchange of the run (this file runs
 * last): the rate-limit headers of section 8, the Error body of section 7, JSON bodies (section 1:
 * labelled JSON, and a body that parses when labelled so) and the spec's schema for each operation
 * and status. Responses of experimental or beta operations only warn, unless --strict.
 */
interface Violation {
  exchange: Exchange;
  /** What is wrong, as the evidence line shows it. */
  detail: string;
  /** The same, standing alone in the check's message (defaults to `detail`). */
  summary?: string;
  header?: string;
  field?: string;
}

const maxEvidence = 6;

export default defineArea('Every response (§1, §7, §8, spec)', 'sequential', (check) => {
  check(
    {
      id: 'every.rate-headers-present',
      rule: '§8',
      title: 'X-RateLimit-Limit, -Remaining and -Reset on every response',
    },
    async (run) => {
      judge(
        run,
        'responses lack rate-limit headers',
        answered(run).flatMap(({ exchange, response }) => {
          const missing = missingRateHeaders(response.headers);
          return missing.length === 0
            ? []
            : [{ exchange, detail: `${response.status} without ${missing.join(', ')}`, header: missing[0]! }];
        }),
      );
    },
  );

  check(
    {
      id: 'every.rate-headers-integers',
      rule: '§8',
      title: 'X-RateLimit-* are non-negative integers and Remaining <= Limit',
    },
    async (run) => {
      judge(
        run,
        'responses have malformed rate-limit headers',
        answered(run).flatMap(({ exchange, response }) =>
          rateHeaderValueProblems(response.headers).map((problem) => ({
            exchange,
            detail: problem.detail,
            summary: `${problem.header} ${problem.detail}`,
            header: problem.header,
          })),
        ),
      );
    },
  );

  check(
    {
      id: 'every.rate-reset-seconds',
      rule: '§8',
      title: 'X-RateLimit-Reset is a Unix timestamp in seconds in the near future (not ms, not a delta)',
    },
    async (run) => {
      judge(
        run,
        'responses have an X-RateLimit-Reset that is not a near-future Unix time in seconds',
        answered(run).flatMap(({ exchange, response }) => {
          const clock = serverClock(response.headers, exchange.receivedAtMs);
          const problem = resetProblem(response.headers['x-ratelimit-reset'], clock.nowMs, clock.source);
          return problem === undefined
            ? []
            : [
                {
                  exchange,
                  detail: problem.detail,
                  summary: `${problem.header} ${problem.detail}`,
                  header: problem.header,
                },
              ];
        }),
      );
    },
  );

  check(
    {
      id: 'every.reset-within-window',
      rule: '§8',
      title:
        "a key on a plan's per-minute limit (X-RateLimit-Limit 60 or 300) is told of a reset at most a minute ahead (server Date, ± 2 s)",
    },
    async (run) => {
      const population = answered(run).filter(
        ({ exchange, response }) =>
          exchange.identity !== 'anonymous' &&
          response.status !== 401 &&
          response.status !== 429 &&
          minuteLimits.has(readBudget(response.headers, exchange.receivedAtMs).limit ?? -1),
      );
      if (population.length === 0)
        return run.skip(
          `no answer to a key reported a plan's per-minute limit (${[...minuteLimits].join(' or ')}): nothing to judge`,
        );
      judge(
        run,
        'responses of a per-minute limit announce a reset more than a minute ahead',
        population.flatMap(({ exchange, response }) => {
          const reset = readBudget(response.headers, exchange.receivedAtMs).resetSeconds;
          const clock = serverClock(response.headers, exchange.receivedAtMs);
          const slack = clock.source === 'Date header' ? 2_000 : 60_000;
          if (reset === undefined || reset * 1000 <= clock.nowMs + 60_000 + slack) return [];
          return [
            {
              exchange,
              detail: `X-RateLimit-Limit ${response.headers['x-ratelimit-limit']} (a plan's requests per minute) with X-RateLimit-Reset ${reset}, ${Math.round((reset * 1000 - clock.nowMs) / 1000)} s ahead of the ${clock.source}`,
              header: 'X-RateLimit-Reset',
            },
          ];
        }),
        population.length,
      );
    },
  );

  check(
    {
      id: 'every.429-retry-after',
      rule: '§8.2',
      title: 'every 429 of the run carries Retry-After: a positive integer or an HTTP-date',
    },
    async (run) => {
      const population = answered(run).filter(({ response }) => response.status === 429);
      if (population.length === 0) return run.skip('no response of the run was a 429');
      judge(
        run,
        '429 responses lack a usable Retry-After',
        population.flatMap(({ exchange, response }) => {
          const parsed = parseRetryAfter(
            response.headers['retry-after'],
            serverClock(response.headers, exchange.receivedAtMs).nowMs,
          );
          return parsed.ok ? [] : [{ exchange, detail: `Retry-After ${parsed.reason}`, header: 'Retry-After' }];
        }),
        population.length,
      );
    },
  );

  check(
    {
      id: 'every.date-header',
      rule: 'RFC 9110 §6.6.1',
      title: 'every 2xx, 3xx and 4xx response carries Date as an HTTP-date (IMF-fixdate)',
    },
    async (run) => {
      const population = answered(run).filter(({ response }) => response.status >= 200 && response.status < 500);
      judge(
        run,
        'responses lack a Date header in IMF-fixdate form',
        population.flatMap(({ exchange, response }) => {
          const date = response.headers.date;
          if (date !== undefined && imfFixdate.test(date) && Number.isFinite(Date.parse(date))) return [];
          return [
            {
              exchange,
              detail: `${response.status} ${date === undefined ? 'without Date' : `with Date ${JSON.stringify(date)}, not an IMF-fixdate`}`,
              header: 'Date',
            },
          ];
        }),
        population.length,
      );
    },
  );

  check(
    {
      id: 'every.not-deprecated',
      rule: '§9.3',
      title: 'only GET /pets/{petId} is deprecated: no other operation announces Deprecation or Sunset',
    },
    async (run) => {
      const population = answered(run).filter(
        ({ exchange }) => run.spec.operations.get(exchange.operationId)?.deprecated === false,
      );
      judge(
        run,
        'responses of operations that are not deprecated announce a deprecation',
        population.flatMap(({ exchange, response }) => {
          const announced = ['deprecation', 'sunset'].filter((name) => response.headers[name] !== undefined);
          return announced.length === 0
            ? []
            : [
                {
                  exchange,
                  detail: `${exchange.operationId} answered with ${announced.map((name) => `${name === 'sunset' ? 'Sunset' : 'Deprecation'}: ${response.headers[name]}`).join(', ')}, though the interface deprecates only GET /pets/{petId}`,
                  header: announced[0] === 'sunset' ? 'Sunset' : 'Deprecation',
                },
              ];
        }),
        population.length,
      );
    },
  );

  check(
    {
      id: 'every.error-shape',
      rule: '§7',
      title: 'every error response (except 429) is a JSON Error {code, message, status}',
    },
    async (run) => {
      const population = errors(run);
      judge(
        run,
        'error responses are not JSON Error objects',
        population.flatMap(({ exchange, response }) => {
          if (!response.hasJson)
            return [{ exchange, detail: `${response.status} body is not JSON: ${bodyExcerpt(exchange, 80)}` }];
          const result = run.spec.errorValidator.safeParse(response.json);
          return result.success
            ? []
            : [
                {
                  exchange,
                  detail: `${response.status} body is not an Error: ${describeIssues(result.error.issues).join('; ')}`,
                  field: result.error.issues[0]?.path.join('.') || '(body)',
                },
              ];
        }),
        population.length,
      );
    },
  );

  check({ id: 'every.error-status', rule: '§7', title: 'Error.status repeats the HTTP status' }, async (run) => {
    const population = errors(run);
    judge(
      run,
      'Error bodies whose status differs from the HTTP status',
      population.flatMap(({ exchange, response }) => {
        const status =
          response.hasJson && response.json !== null && typeof response.json === 'object'
            ? (response.json as { status?: unknown }).status
            : undefined;
        return typeof status === 'number' && status !== response.status
          ? [{ exchange, detail: `HTTP ${response.status} but body status ${status}`, field: 'status' }]
          : [];
      }),
      population.length,
    );
  });

  check(
    { id: 'every.json-content-type', rule: '§1', title: 'described response bodies are application/json' },
    async (run) => {
      judge(
        run,
        'responses with a described body but another Content-Type',
        answered(run).flatMap(({ exchange, response }) => {
          const operation = run.spec.operations.get(exchange.operationId);
          const described =
            response.status === 429
              ? false
              : response.status >= 400 || (response.status < 300 && operation !== undefined && !operation.open);
          if (!described || response.bodyText === '' || isJsonContentType(response.headers['content-type'])) return [];
          return [
            {
              exchange,
              detail: `${response.status} with Content-Type ${response.headers['content-type'] ?? 'missing'}`,
              header: 'Content-Type',
            },
          ];
        }),
      );
    },
  );

  check(
    {
      id: 'every.json-body-parses',
      rule: '§1',
      title:
        'every response labelled JSON (application/json or +json), of every operation and status, has a body that parses as JSON (only HEAD, 204, 205 and 304 have none)',
    },
    async (run) => {
      const labelled = answered(run).filter(
        ({ exchange, response }) =>
          isJsonMediaType(response.headers['content-type']) &&
          !hasNoContentByDefinition(exchange.request.method, response.status),
      );
      if (labelled.length === 0) return run.skip('no response of the run was labelled JSON: nothing to judge');
      // A body cut at --max-body-bytes was never parsed: not judged, and said so.
      const whole = labelled.filter(({ response }) => response.truncatedAtBytes === undefined);
      if (whole.length === 0)
        return run.skip(
          `all ${labelled.length} responses labelled JSON were longer than --max-body-bytes: none read whole, none judged`,
        );
      judge(
        run,
        'responses labelled JSON have a body that is not JSON',
        whole.flatMap(({ exchange, response }) => {
          if (response.hasJson) return [];
          const body =
            response.bodyText === ''
              ? 'an empty body'
              : response.bodyText.trim() === ''
                ? 'a body of only white space'
                : `a body that is not JSON: ${bodyExcerpt(exchange, 80)}`;
          return [
            {
              exchange,
              detail: `${exchange.operationId} ${response.status} with Content-Type ${response.headers['content-type']} and ${body}`,
              field: '(body)',
            },
          ];
        }),
        whole.length,
      );
      if (whole.length < labelled.length)
        run.note(`${labelled.length - whole.length} bodies longer than --max-body-bytes not judged`);
    },
  );

  check(
    { id: 'every.schema', rule: 'spec', title: 'every response status and body matches the spec for its operation' },
    async (run) => {
      const notes: string[] = [];
      judge(
        run,
        'responses do not match the spec',
        wholeBodies(run).flatMap(({ exchange, response }): Violation[] => {
          const operation = run.spec.operations.get(exchange.operationId);
          if (operation === undefined) return [];
          const verdict = validateBody(operation, response.status, response.json, response.hasJson);
          const where = `${exchange.operationId} ${response.status}`;
          switch (verdict.kind) {
            case 'valid':
            case 'no-schema':
              return [];
            case 'undeclared-status':
              if (exchange.offInterface && response.status >= 400 && response.status < 500) {
                notes.push(
                  `${where}: a request outside the interface (a non-JSON media type) answered ${response.status}, a status the spec does not declare`,
                );
                return [];
              }
              if (operation.open) {
                notes.push(`${where}: status not declared (the interface does not show this operation's responses)`);
                return [];
              }
              return [
                {
                  exchange,
                  detail: `${where}: status not declared in the spec (declared: ${verdict.declared.join(', ')})`,
                },
              ];
            case 'not-json':
              if (verdict.notShown) return [];
              return [{ exchange, detail: `${where}: body is not JSON: ${bodyExcerpt(exchange, 80)}` }];
            case 'invalid':
              if (verdict.notShown) {
                notes.push(
                  `${where}: ${verdict.issues[0] ?? 'differs from the illustrative schema'} (shape not shown by the interface)`,
                );
                return [];
              }
              return [
                {
                  exchange,
                  detail: `${where}: ${verdict.issues.join('; ')}`,
                  field: verdict.issues[0]?.split(':')[0] ?? '(body)',
                },
              ];
            default:
              return verdict satisfies never;
          }
        }),
        wholeBodies(run).length,
      );
      if (notes.length > 0) run.note(`information: ${[...new Set(notes)].slice(0, 3).join('; ')}`);
    },
  );

  check(
    {
      id: 'every.prism',
      rule: 'spec (Prism)',
      title: "Prism's validating proxy finds no violation in the server's responses",
    },
    async (run) => {
      if (!run.target.viaPrism) return run.skip('only with --via-prism');
      const forwarded = run.state.exchanges.filter(
        (exchange) => exchange.response !== undefined && !exchange.bypassedPrism,
      );
      const violations: Violation[] = [];
      const notes: string[] = [];
      let requestSide = 0;
      for (const exchange of forwarded) {
        for (const violation of exchange.prismViolations) {
          if (violation.location[0] !== 'response') {
            requestSide += 1;
            continue;
          }
          const place = violation.location.slice(1).join('.');
          violations.push({ exchange, detail: `Prism: ${place === '' ? 'response' : place}: ${violation.message}` });
        }
      }
      if (requestSide > 0)
        notes.push(
          `Prism also flagged ${requestSide} request-side violations, expected for the kit's deliberately invalid requests`,
        );
      const answeredByPrism = run.state.exchanges.filter((exchange) => exchange.answeredByPrism).length;
      if (answeredByPrism > 0)
        notes.push(`Prism answered ${answeredByPrism} requests itself instead of forwarding them`);
      judge(run, 'responses violate the spec according to Prism', violations, forwarded.length);
      if (notes.length > 0) run.note([...new Set(notes)].join('; '));
    },
  );
});

/** Exchanges that got a response from the server itself (not from Prism in its place). */
function answered(run: CheckRun): { exchange: Exchange; response: ExchangeResponse }[] {
  return run.state.exchanges.flatMap((exchange) =>
    exchange.response !== undefined && !exchange.answeredByPrism ? [{ exchange, response: exchange.response }] : [],
  );
}

/** Error responses whose body the interface describes: every status from 400 but 429 (bodies read whole only). */
function errors(run: CheckRun): { exchange: Exchange; response: ExchangeResponse }[] {
  return wholeBodies(run).filter(({ response }) => response.status >= 400 && response.status !== 429);
}

/** Answers whose body was read whole (a body cut at --max-body-bytes is not judged; its check says so); HEAD answers have none. */
function wholeBodies(run: CheckRun): { exchange: Exchange; response: ExchangeResponse }[] {
  return answered(run).filter(
    ({ exchange, response }) => response.truncatedAtBytes === undefined && exchange.request.method !== 'HEAD',
  );
}

/** The per-minute limits of the plans (section 8) that no plan also has as a day limit: their windows are a minute. */
const minuteLimits = new Set<number>(
  interfacePlans
    .filter((plan) => !interfacePlans.some((other) => other.perDay === plan.perMinute))
    .map((plan) => plan.perMinute),
);

/** RFC 9110 section 5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const imfFixdate =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Fails with the first few offenders as evidence; violations that all come from experimental or
 * beta operations only warn (unless --strict).
 */
function judge(run: CheckRun, what: string, violations: Violation[], total = answered(run).length): void {
  run.judged(total);
  const hard = violations.filter((violation) => !isSoft(run, violation.exchange.operationId));
  const shown = (list: Violation[]): Evidence[] =>
    list.slice(0, maxEvidence).map((violation) =>
      evidenceOf(violation.exchange, violation.detail, {
        ...(violation.header ? { header: violation.header } : {}),
        ...(violation.field ? { field: violation.field } : {}),
      }),
    );
  const summary = (list: Violation[]) => {
    // One example per kind: details that differ only in their numbers (times, ids) are one kind.
    const kinds = new Map<string, string>();
    for (const violation of list) {
      const text = truncate(violation.summary ?? violation.detail, 200);
      const kind = text.replace(/\d+/g, '#');
      if (!kinds.has(kind)) kinds.set(kind, text);
    }
    const distinct = [...kinds.values()];
    return `${list.length} of ${total} ${what}: ${distinct.slice(0, 3).join('; ')}${distinct.length > 3 ? `; and ${distinct.length - 3} more kinds` : ''}`;
  };
  if (hard.length > 0) {
    const evidence = shown(hard);
    if (hard.length > maxEvidence)
      evidence.push({ request: `(and ${hard.length - maxEvidence} more responses)`, detail: '' });
    throw new CheckFailure(summary(hard), evidence);
  }
  if (violations.length > 0) {
    run.warn(`only experimental/beta operations (x-stability): ${summary(violations)}`, shown(violations));
    return;
  }
  run.note(`${total} responses checked`);
}
