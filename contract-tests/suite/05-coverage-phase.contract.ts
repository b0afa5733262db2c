import { type ExactId, idOf } from '../../spec/interface/exact-ids.js';
import { judgeEcho, OpenChoices, openRefusal, reportOpenChoices } from '../generate/open-choices.js';
import { recordId } from '../lib/category-checks.js';
import { type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { type BodyCase, type CaseFamily, deriveBodyCases } from '../lib/coverage-cases.js';
import { bodyExcerpt, type Evidence, type Exchange, type ExchangeResponse, evidenceOf } from '../lib/exchange.js';
import { type BodyOperation, bodyOperations } from '../lib/request-bodies.js';
import { type RequestWithoutKey, sendWithMainKey } from './main-key-requests.js';
import { createCategory } from './operations.js';

/**
 * The deterministic coverage phase (before the seeded fast-check phase of the validation area):
 * for every request body the spec declares, a finite, named list of cases derived from its schema
 * (lib/coverage-cases.ts), every one sent, every answer judged. A server that rejects a valid body
 * fails as surely as one that accepts an invalid one. One check per case family.
 */
const families: { family: CaseFamily; rule: (operationId: string) => string; title: string }[] = [
  { family: 'required', rule: (id) => `§4 ${id}.1`, title: 'coverage: each required property absent -> 400 + Error' },
  {
    family: 'types',
    rule: (id) => `§4 ${id}.1`,
    title: 'coverage: each property null or of every JSON type it is not -> 400 + Error',
  },
  {
    family: 'body-shape',
    rule: (id) => `§4 ${id}.1`,
    title:
      'coverage: body absent, empty, malformed, near-JSON (trailing comma, quotes, comments, NaN, trailing text), or not an object -> 400 + Error',
  },
  {
    family: 'valid-values',
    rule: (id) => `§4 ${id}.2`,
    title:
      'coverage: valid boundary values (empty, long, non-ASCII, emoji, RTL, control characters) and absent optional properties -> created, echoed',
  },
  {
    family: 'media-types',
    rule: () => '§1',
    title:
      'coverage: application/json in any letter case and parameter spelling accepted; text/plain and a form refused with an Error; other JSON-based types and no Content-Type open',
  },
  {
    family: 'raw-json',
    rule: (id) => `§4 ${id}`,
    title:
      'coverage: bodies no JSON writer produces (escaped or re-cased property names, a property twice, BOM, invalid UTF-8, lone surrogate, NUL, deep nesting, unknown property) judged as JSON defines them',
  },
];

export default defineArea('Coverage phase (§1, §4, deterministic)', 'concurrent', (check) => {
  for (const { family, rule, title } of families) {
    const casesOf = async (specPath: string) =>
      (await bodyOperations(specPath)).map((operation) => ({
        operation,
        cases: deriveBodyCases(operation.schema, (label) => `${specPath}-${label}`).filter(
          (entry) => entry.family === family,
        ),
      }));
    const maxCreates = async (target: { specPath: string }) =>
      (await casesOf(target.specPath)).reduce((total, { cases }) => total + cases.length, 0);
    check(
      {
        id: `coverage.${family}:${createCategory.operationId}`,
        rule: rule(createCategory.operationId),
        title,
        operation: createCategory.label,
        operationId: createCategory.operationId,
        writes: true,
        maxCreates,
      },
      async (run) => {
        const operations = await bodyOperations(run.target.specPath);
        if (operations.length === 0) return run.skip('the spec declares no JSON request body');
        const failures: { label: string; problem: string; evidence: Evidence }[] = [];
        const notes: string[] = [];
        const choices = new OpenChoices();
        let total = 0;
        for (const operation of operations) {
          const cases = deriveBodyCases(operation.schema, (label) => run.categoryName(`cov-${label}`)).filter(
            (entry) => entry.family === family,
          );
          total += cases.length;
          const outcomes = await Promise.all(cases.map((entry) => sendCase(run, operation, entry)));
          for (const outcome of outcomes) {
            if (outcome.problem !== undefined)
              failures.push({
                label: outcome.label,
                problem: outcome.problem,
                evidence: evidenceOf(outcome.exchange, `${outcome.label}: ${outcome.problem}`),
              });
            if (outcome.note !== undefined) notes.push(outcome.note);
            if (outcome.choice !== undefined) choices.add(outcome.choice.field, outcome.choice.choice);
          }
        }
        run.cases(total);
        if (failures.length > 0) {
          const shown = failures
            .slice(0, 4)
            .map((failure) => `${failure.label} (${failure.problem})`)
            .join('; ');
          throw new CheckFailure(
            `${failures.length} of ${total} cases answered against the interface: ${shown}${failures.length > 4 ? `; and ${failures.length - 4} more` : ''}`,
            failures.slice(0, 8).map((failure) => failure.evidence),
          );
        }
        if (notes.length > 0) run.note([...new Set(notes)].join('; '));
        reportOpenChoices(run, choices, 'valid boundary values');
      },
    );
  }
});

/** What one case came to: a problem (FAIL), a note, or an open choice of the server (INFO). */
interface CaseOutcome {
  label: string;
  exchange: Exchange;
  problem?: string;
  note?: string;
  choice?: { field: string; choice: string };
}

/** A case's answer, with what judging it needs. */
interface CaseAnswer {
  run: CheckRun;
  operation: BodyOperation;
  entry: BodyCase;
  exchange: Exchange;
  response: ExchangeResponse;
}

async function sendCase(run: CheckRun, operation: BodyOperation, entry: BodyCase): Promise<CaseOutcome> {
  const exchange = await sendWithMainKey(run, caseRequest(operation, entry));
  const response = exchange.response;
  if (response === undefined)
    return { label: entry.label, exchange, problem: `no response: ${exchange.transportError ?? 'unknown'}` };
  return judgeCase({ run, operation, entry, exchange, response });
}

/** The request of one case: its body as bytes on the wire, its Content-Type, straight to the server. */
function caseRequest(operation: BodyOperation, entry: BodyCase): RequestWithoutKey {
  return {
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    ...wireBody(entry.body),
    ...(entry.contentType === undefined ? {} : { contentType: entry.contentType }),
    // Prism's proxy refuses some of these itself; the server must see them.
    bypassPrism: true,
    ...(entry.family === 'media-types' && entry.expect !== 'accept' ? { offInterface: true } : {}),
  };
}

function wireBody(body: BodyCase['body']): { rawBody?: string | Uint8Array } {
  switch (body.kind) {
    case 'json':
      return { rawBody: JSON.stringify(body.value) };
    case 'raw':
      return { rawBody: body.text };
    case 'bytes':
      return { rawBody: body.bytes };
    case 'none':
      return {};
  }
}

/** A case's outcome by what its family expects: created, refused with 400 + Error, or either (open). */
function judgeCase(answer: CaseAnswer): CaseOutcome {
  const { run, entry, exchange, response } = answer;
  const label = entry.label;
  const status = response.status;
  // A value past the length limit the run found explains a 400 in any family; a blank one only where the case
  // varies a value alone (a refused BOM or media type is its own open question: a note).
  const refusal =
    status === 400 && entry.echo !== undefined ? openRefusal(entry.echo, run.state.lengthLimits) : undefined;
  const openRefused = refusal?.kind === 'length' || entry.family === 'valid-values' ? refusal : undefined;
  switch (entry.expect) {
    case 'accept':
      // A valid body refused for a choice the interface leaves open (a length limit): INFO, not FAIL.
      if (openRefused !== undefined) return { label, exchange, ...optional(errorProblem(answer)), choice: openRefused };
      return echoed(answer, creationVerdict(answer));
    case 'open':
      if (status >= 400 && status < 500)
        return {
          label,
          exchange,
          ...optional(errorProblem(answer)),
          ...(openRefused === undefined
            ? { note: `${label}: refused with ${status} (the interface leaves it open: information)` }
            : { choice: openRefused }),
        };
      return {
        ...echoed(answer, creationVerdict(answer)),
        ...(entry.echoOneOf === undefined
          ? {}
          : {
              note: `${label}: created with ${entry.echoOneOf.property} ${JSON.stringify((response.json as Record<string, unknown> | undefined)?.[entry.echoOneOf.property])?.slice(0, 40)}`,
            }),
      };
    case 'reject':
      return judgeRejected(answer);
  }
}

/** An invalid body: 400 + Error (any 4xx + Error for a media type). */
function judgeRejected(answer: CaseAnswer): CaseOutcome {
  const { entry, exchange, response } = answer;
  const label = entry.label;
  const status = response.status;
  if (status >= 200 && status < 300) return { label, exchange, problem: `an invalid body was accepted with ${status}` };
  const mediaType = entry.family === 'media-types';
  if (mediaType ? !(status >= 400 && status < 500) : status !== 400)
    return {
      label,
      exchange,
      problem: `expected ${mediaType ? 'a 4xx' : '400'}, got ${status}: ${bodyExcerpt(exchange, 60)}`,
    };
  const problem = errorProblem(answer);
  return { label, exchange, ...optional(problem), ...(mediaType ? { note: `${label}: ${status}` } : {}) };
}

/** What is wrong with an error answer: not JSON, not an Error, or an Error whose status is not the HTTP status. */
function errorProblem({ run, exchange, response }: CaseAnswer): string | undefined {
  const status = response.status;
  if (!response.hasJson) return `the ${status} body is not JSON: ${bodyExcerpt(exchange, 60)}`;
  const result = run.spec.errorValidator.safeParse(response.json);
  if (!result.success) return `the ${status} body is not an Error {code, message, status}`;
  const bodyStatus = (response.json as { status?: unknown }).status;
  return bodyStatus === status
    ? undefined
    : `Error.status ${String(bodyStatus)} differs from the HTTP status ${status}`;
}

/** What a created answer came to: its problem, or the open choice its echo showed (a value trimmed, normalised). */
interface CreationVerdict {
  problem?: string;
  choice?: { field: string; choice: string };
}

/**
 * A valid body: a 2xx the operation declares, a JSON object echoing what was sent (or changed only as an open
 * choice); its id is recorded for the run.
 */
function creationVerdict({ run, operation, entry, exchange, response }: CaseAnswer): CreationVerdict {
  const status = response.status;
  const declared = [...(run.spec.operations.get(operation.operationId)?.responses.keys() ?? [])].filter((key) =>
    key.startsWith('2'),
  );
  if (!(status >= 200 && status < 300) || (declared.length > 0 && !declared.includes(String(status))))
    return {
      problem: `a valid body, expected ${declared.join(' or ') || '2xx'}, got ${status}: ${bodyExcerpt(exchange, 80)}`,
    };
  const body = response.json as Record<string, unknown> | undefined;
  if (body === null || typeof body !== 'object') return { problem: `the ${status} body is not a JSON object` };
  let choice: CreationVerdict['choice'];
  for (const [name, value] of Object.entries(entry.echo ?? {})) {
    if (typeof value !== 'string') continue;
    const verdict = judgeEcho(value, body[name]);
    if (verdict.kind === 'altered')
      return {
        problem: `${name} not echoed: sent ${JSON.stringify(value).slice(0, 60)}, got ${JSON.stringify(body[name])?.slice(0, 60)}`,
      };
    if (verdict.kind === 'open') choice = { field: name, choice: verdict.choice };
  }
  if (entry.echoOneOf !== undefined && !entry.echoOneOf.values.includes(body[entry.echoOneOf.property])) {
    return {
      problem: `${entry.echoOneOf.property} sent twice (${entry.echoOneOf.values.map((value) => JSON.stringify(value).slice(0, 40)).join(' and ')}), created with neither: ${JSON.stringify(body[entry.echoOneOf.property])?.slice(0, 60)}`,
    };
  }
  if (typeof body.id === 'number') recordId(run.state.categoryIds, idOf(body) as ExactId, `coverage ${entry.label}`);
  return choice === undefined ? {} : { choice };
}

/** The outcome of an accepted body: its problem, or the open choice its echo showed. */
function echoed({ entry, exchange }: CaseAnswer, verdict: CreationVerdict): CaseOutcome {
  return {
    label: entry.label,
    exchange,
    ...optional(verdict.problem),
    ...(verdict.problem === undefined && verdict.choice !== undefined ? { choice: verdict.choice } : {}),
  };
}

function optional(problem: string | undefined): { problem?: string } {
  return problem === undefined ? {} : { problem };
}
