import { hasNoContentByDefinition, isJsonContentType, isJsonMediaType } from './media-types.js';
import type { ObservedExchange, RuleViolation } from './observed.js';
import { responseBodyExcerpt } from './observed.js';
import { minuteLimits } from './plans.js';
import {
  missingRateHeaders,
  parseRetryAfter,
  rateHeaderValueProblems,
  readBudget,
  resetProblem,
  serverClock,
} from './rate-limit-headers.js';
import { describeIssues, type SpecModel, validateBody } from './spec-model.js';

/**
 * The rules that hold for every response, one response at a time: the rate-limit headers of
 * interface section 8, the Error body of section 7, JSON bodies (section 1), the Date header and
 * the spec's schema for the operation and status. Each is a pure function of one observed answer,
 * so the kit (which judges every exchange of its run at the end, suite/99-every-response) and the
 * judging proxy (which judges each answer as it passes) read the same rule.
 *
 * `applies` says whether an answer belongs to the rule's population (a rule that judges 429s only
 * does not count a 200 as judged); `judge` returns what is wrong, empty when nothing is.
 */
export interface ResponseRule {
  id: string;
  /** The interface section or standard the rule comes from. */
  rule: string;
  title: string;
  /** Plural noun phrase for a summary: "3 of 40 <what>". */
  what: string;
  applies(observed: ObservedExchange, context: ResponseRuleContext): boolean;
  judge(observed: ObservedExchange, context: ResponseRuleContext): RuleViolation[];
}

export interface ResponseRuleContext {
  spec: SpecModel;
  /** The request carried no credentials (the kit's 'anonymous' identity): its budget is the caller's address. */
  anonymous: boolean;
  /** Information the rule found on a response it does not fail (what the interface leaves open). */
  note?: (text: string) => void;
}

/** RFC 9110 section 5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const imfFixdate =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

const always = () => true;

/** The answer's body was read whole (a body cut at the bound is not judged) and a HEAD answer has none. */
function hasWholeBody(observed: ObservedExchange): boolean {
  return observed.response.truncatedAtBytes === undefined && observed.request.method !== 'HEAD';
}

/** Error responses whose body the interface describes: every status from 400 but 429 (bodies read whole only). */
function isDescribedError(observed: ObservedExchange): boolean {
  return hasWholeBody(observed) && observed.response.status >= 400 && observed.response.status !== 429;
}

const rateHeadersPresent: ResponseRule = {
  id: 'every.rate-headers-present',
  rule: '§8',
  title: 'X-RateLimit-Limit, -Remaining and -Reset on every response',
  what: 'responses lack rate-limit headers',
  applies: always,
  judge({ response }) {
    const missing = missingRateHeaders(response.headers);
    return missing.length === 0
      ? []
      : [{ detail: `${response.status} without ${missing.join(', ')}`, header: missing[0]! }];
  },
};

const rateHeadersIntegers: ResponseRule = {
  id: 'every.rate-headers-integers',
  rule: '§8',
  title: 'X-RateLimit-* are non-negative integers and Remaining <= Limit',
  what: 'responses have malformed rate-limit headers',
  applies: always,
  judge({ response }) {
    return rateHeaderValueProblems(response.headers).map((problem) => ({
      detail: problem.detail,
      summary: `${problem.header} ${problem.detail}`,
      header: problem.header,
    }));
  },
};

const rateResetSeconds: ResponseRule = {
  id: 'every.rate-reset-seconds',
  rule: '§8',
  title: 'X-RateLimit-Reset is a Unix timestamp in seconds in the near future (not ms, not a delta)',
  what: 'responses have an X-RateLimit-Reset that is not a near-future Unix time in seconds',
  applies: always,
  judge({ response, receivedAtMs }) {
    const clock = serverClock(response.headers, receivedAtMs);
    const problem = resetProblem(response.headers['x-ratelimit-reset'], clock.nowMs, clock.source);
    return problem === undefined
      ? []
      : [{ detail: problem.detail, summary: `${problem.header} ${problem.detail}`, header: problem.header }];
  },
};

export const resetWithinWindow: ResponseRule = {
  id: 'every.reset-within-window',
  rule: '§8',
  title:
    "a key on a plan's per-minute limit (X-RateLimit-Limit 60 or 300) is told of a reset at most a minute ahead (server Date, ± 2 s)",
  what: 'responses of a per-minute limit announce a reset more than a minute ahead',
  applies({ response, receivedAtMs }, { anonymous }) {
    return (
      !anonymous &&
      response.status !== 401 &&
      response.status !== 429 &&
      minuteLimits.has(readBudget(response.headers, receivedAtMs).limit ?? -1)
    );
  },
  judge({ response, receivedAtMs }) {
    const reset = readBudget(response.headers, receivedAtMs).resetSeconds;
    const clock = serverClock(response.headers, receivedAtMs);
    const slack = clock.source === 'Date header' ? 2_000 : 60_000;
    if (reset === undefined || reset * 1000 <= clock.nowMs + 60_000 + slack) return [];
    return [
      {
        detail: `X-RateLimit-Limit ${response.headers['x-ratelimit-limit']} (a plan's requests per minute) with X-RateLimit-Reset ${reset}, ${Math.round((reset * 1000 - clock.nowMs) / 1000)} s ahead of the ${clock.source}`,
        header: 'X-RateLimit-Reset',
      },
    ];
  },
};

export const retryAfterOn429: ResponseRule = {
  id: 'every.429-retry-after',
  rule: '§8.2',
  title: 'every 429 of the run carries Retry-After: a positive integer or an HTTP-date',
  what: '429 responses lack a usable Retry-After',
  applies: ({ response }) => response.status === 429,
  judge({ response, receivedAtMs }) {
    const parsed = parseRetryAfter(response.headers['retry-after'], serverClock(response.headers, receivedAtMs).nowMs);
    return parsed.ok ? [] : [{ detail: `Retry-After ${parsed.reason}`, header: 'Retry-After' }];
  },
};

const dateHeader: ResponseRule = {
  id: 'every.date-header',
  rule: 'RFC 9110 §6.6.1',
  title: 'every 2xx, 3xx and 4xx response carries Date as an HTTP-date (IMF-fixdate)',
  what: 'responses lack a Date header in IMF-fixdate form',
  applies: ({ response }) => response.status >= 200 && response.status < 500,
  judge({ response }) {
    const date = response.headers.date;
    if (date !== undefined && imfFixdate.test(date) && Number.isFinite(Date.parse(date))) return [];
    return [
      {
        detail: `${response.status} ${date === undefined ? 'without Date' : `with Date ${JSON.stringify(date)}, not an IMF-fixdate`}`,
        header: 'Date',
      },
    ];
  },
};

const notDeprecated: ResponseRule = {
  id: 'every.not-deprecated',
  rule: '§9.3',
  title: 'only GET /pets/{petId} is deprecated: no other operation announces Deprecation or Sunset',
  what: 'responses of operations that are not deprecated announce a deprecation',
  applies: ({ operationId }, { spec }) => spec.operations.get(operationId)?.deprecated === false,
  judge({ operationId, response }) {
    const announced = ['deprecation', 'sunset'].filter((name) => response.headers[name] !== undefined);
    return announced.length === 0
      ? []
      : [
          {
            detail: `${operationId} answered with ${announced.map((name) => `${name === 'sunset' ? 'Sunset' : 'Deprecation'}: ${response.headers[name]}`).join(', ')}, though the interface deprecates only GET /pets/{petId}`,
            header: announced[0] === 'sunset' ? 'Sunset' : 'Deprecation',
          },
        ];
  },
};

const errorShape: ResponseRule = {
  id: 'every.error-shape',
  rule: '§7',
  title: 'every error response (except 429) is a JSON Error {code, message, status}',
  what: 'error responses are not JSON Error objects',
  applies: isDescribedError,
  judge({ response }, { spec }) {
    if (!response.hasJson)
      return [{ detail: `${response.status} body is not JSON: ${responseBodyExcerpt(response, 80)}` }];
    const result = spec.errorValidator.safeParse(response.json);
    return result.success
      ? []
      : [
          {
            detail: `${response.status} body is not an Error: ${describeIssues(result.error.issues).join('; ')}`,
            field: result.error.issues[0]?.path.join('.') || '(body)',
          },
        ];
  },
};

const errorStatus: ResponseRule = {
  id: 'every.error-status',
  rule: '§7',
  title: 'Error.status repeats the HTTP status',
  what: 'Error bodies whose status differs from the HTTP status',
  applies: isDescribedError,
  judge({ response }) {
    const status =
      response.hasJson && response.json !== null && typeof response.json === 'object'
        ? (response.json as { status?: unknown }).status
        : undefined;
    return typeof status === 'number' && status !== response.status
      ? [{ detail: `HTTP ${response.status} but body status ${status}`, field: 'status' }]
      : [];
  },
};

const jsonContentType: ResponseRule = {
  id: 'every.json-content-type',
  rule: '§1',
  title: 'described response bodies are application/json',
  what: 'responses with a described body but another Content-Type',
  applies: always,
  judge({ operationId, response }, { spec }) {
    const operation = spec.operations.get(operationId);
    const described =
      response.status === 429
        ? false
        : response.status >= 400 || (response.status < 300 && operation !== undefined && !operation.open);
    if (!described || response.bodyText === '' || isJsonContentType(response.headers['content-type'])) return [];
    return [
      {
        detail: `${response.status} with Content-Type ${response.headers['content-type'] ?? 'missing'}`,
        header: 'Content-Type',
      },
    ];
  },
};

/** Labelled JSON and expected to carry content; the kit judges only those read whole (`hasWholeBody` aside from HEAD). */
export function isLabelledJson(observed: ObservedExchange): boolean {
  return (
    isJsonMediaType(observed.response.headers['content-type']) &&
    !hasNoContentByDefinition(observed.request.method, observed.response.status)
  );
}

export const jsonBodyParses: ResponseRule = {
  id: 'every.json-body-parses',
  rule: '§1',
  title:
    'every response labelled JSON (application/json or +json), of every operation and status, has a body that parses as JSON (only HEAD, 204, 205 and 304 have none)',
  what: 'responses labelled JSON have a body that is not JSON',
  applies: (observed) => isLabelledJson(observed) && observed.response.truncatedAtBytes === undefined,
  judge({ operationId, response }) {
    if (response.hasJson) return [];
    const body =
      response.bodyText === ''
        ? 'an empty body'
        : response.bodyText.trim() === ''
          ? 'a body of only white space'
          : `a body that is not JSON: ${responseBodyExcerpt(response, 80)}`;
    return [
      {
        detail: `${operationId} ${response.status} with Content-Type ${response.headers['content-type']} and ${body}`,
        field: '(body)',
      },
    ];
  },
};

export const schema: ResponseRule = {
  id: 'every.schema',
  rule: 'spec',
  title: 'every response status and body matches the spec for its operation',
  what: 'responses do not match the spec',
  applies: hasWholeBody,
  judge({ operationId, response, offInterface }, { spec, note = () => {} }) {
    const operation = spec.operations.get(operationId);
    if (operation === undefined) return [];
    const verdict = validateBody(operation, response.status, response.json, response.hasJson);
    const where = `${operationId} ${response.status}`;
    switch (verdict.kind) {
      case 'valid':
      case 'no-schema':
        return [];
      case 'undeclared-status':
        if (offInterface && response.status >= 400 && response.status < 500) {
          note(
            `${where}: a request outside the interface (a non-JSON media type) answered ${response.status}, a status the spec does not declare`,
          );
          return [];
        }
        if (operation.open) {
          note(`${where}: status not declared (the interface does not show this operation's responses)`);
          return [];
        }
        return [{ detail: `${where}: status not declared in the spec (declared: ${verdict.declared.join(', ')})` }];
      case 'not-json':
        if (verdict.notShown) return [];
        return [{ detail: `${where}: body is not JSON: ${responseBodyExcerpt(response, 80)}` }];
      case 'invalid':
        if (verdict.notShown) {
          note(
            `${where}: ${verdict.issues[0] ?? 'differs from the illustrative schema'} (shape not shown by the interface)`,
          );
          return [];
        }
        return [
          { detail: `${where}: ${verdict.issues.join('; ')}`, field: verdict.issues[0]?.split(':')[0] ?? '(body)' },
        ];
      default:
        return verdict satisfies never;
    }
  },
};

/** Every rule of one response, in the order the kit reports them. */
export const responseRules: readonly ResponseRule[] = [
  rateHeadersPresent,
  rateHeadersIntegers,
  rateResetSeconds,
  resetWithinWindow,
  retryAfterOn429,
  dateHeader,
  notDeprecated,
  errorShape,
  errorStatus,
  jsonContentType,
  jsonBodyParses,
  schema,
];
