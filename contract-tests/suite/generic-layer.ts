import type { SpecDefinition } from '../../spec/compile-spec.js';
import { describeIssues } from '../../spec/interface/spec-model.js';
import { type CheckArea, type CheckDefinition, type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import {
  type CredentialMode,
  type GenericOperation,
  type GenericRequest,
  GenericRequestBuilder,
  genericOperations,
  isJsonMedia,
} from '../lib/generic-requests.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { RefusedRequest } from '../lib/resource-path.js';
import { declaredResponse, judgeResponse } from '../lib/response-conformance.js';
import { GenericContext } from './generic-context.js';
import { InvalidAnswers } from './generic-invalid-answers.js';

/**
 * The generic layer: checks derived from the document alone, for every operation it declares (or
 * those `include` keeps): security (no credentials, wrong credentials -> 401), a valid request
 * (declared status, media type, schema, required headers) and invalid requests (4xx, never 5xx).
 * What the document leaves open is INFO.
 *
 * Safe for a shared server: at most 3 + `--invalid-cases` requests per operation; GET, HEAD,
 * OPTIONS and POST to a collection run side by side; PUT, PATCH, DELETE and POST to a path with
 * parameters only on a resource the kit created in this run (or with --allow-destructive), one at
 * a time afterwards, DELETE last.
 *
 * @example const areas = genericAreas(compileSpecDefinition(await readSpecFile(path)));
 */
export function genericAreas(
  spec: SpecDefinition,
  include: (operationId: string) => boolean = () => true,
): CheckArea[] {
  const operations = genericOperations(spec).filter((operation) => include(operation.id));
  if (operations.length === 0) return [];
  const context = new GenericContext();
  const reading = operations.filter((operation) => !operation.changesExisting);
  const depth = (operation: GenericOperation) => operation.definition.pathTemplate.split('/').length;
  const changing = operations.filter((operation) => operation.changesExisting);
  const ordered = [
    ...changing.filter((operation) => operation.definition.method !== 'DELETE').sort((a, b) => depth(a) - depth(b)),
    ...changing.filter((operation) => operation.definition.method === 'DELETE').sort((a, b) => depth(b) - depth(a)),
  ];
  const areas = [
    defineArea('Generic layer: reading and creating operations (spec)', 'concurrent', (check) => {
      for (const operation of reading) defineOperationChecks(check, operation, context);
    }),
  ];
  if (ordered.length > 0)
    areas.push(
      defineArea(
        'Generic layer: operations that change or delete, on what the kit created (spec)',
        'sequential',
        (check) => {
          for (const operation of ordered) defineOperationChecks(check, operation, context);
        },
      ),
    );
  return areas;
}

/** Registers the generic checks of one operation: credentials (when it needs any), a valid request, invalid ones. */
function defineOperationChecks(register: RegisterCheck, operation: GenericOperation, context: GenericContext): void {
  const checks = new OperationChecks(register, operation, context);
  if (operation.requiresCredentials) checks.credentialChecks();
  checks.validRequestCheck();
  const hasInputs =
    operation.definition.parameters.some((parameter) => parameter.in !== 'cookie') ||
    operation.definition.requestBody !== undefined;
  if (hasInputs) checks.invalidRequestsCheck();
}

/** The probes of an operation's security: otherwise valid requests with no or wrong credentials. */
const credentialProbes: { id: string; title: string; mode: (run: CheckRun) => CredentialMode }[] = [
  { id: 'no-credentials', title: 'no credentials -> 401', mode: () => ({ kind: 'none' }) },
  {
    id: 'wrong-credentials',
    title: 'wrong credentials -> 401',
    mode: (run) => ({ kind: 'wrong', key: `contract-test-${run.target.runId}-not-a-key` }),
  },
];

/** The generic checks of one operation, and how they build and send its requests. */
class OperationChecks {
  readonly #register: RegisterCheck;
  readonly #operation: GenericOperation;
  readonly #context: GenericContext;
  /** What every check of the operation declares. */
  readonly #base: Pick<CheckDefinition, 'operation' | 'operationId' | 'writes'>;

  constructor(register: RegisterCheck, operation: GenericOperation, context: GenericContext) {
    this.#register = register;
    this.#operation = operation;
    this.#context = context;
    this.#base = { operation: operation.label, operationId: operation.id, writes: operation.mayCreate };
  }

  /**
   * What a check of the operation declares: its id `generic.<name>:<operationId>`, and when the
   * operation may create, the most it creates.
   */
  #definition(
    name: string,
    rule: string,
    title: string,
    maxCreates: NonNullable<CheckDefinition['maxCreates']>,
  ): CheckDefinition {
    const operation = this.#operation;
    return {
      ...this.#base,
      id: `generic.${name}:${operation.id}`,
      rule,
      title,
      ...(operation.mayCreate ? { maxCreates } : {}),
    };
  }

  /** A request a URL parser would take elsewhere (a created resource named `..`) is not sent: INFO saying why. */
  #check(definition: CheckDefinition, body: (run: CheckRun) => Promise<void>): void {
    this.#register(definition, async (run) => {
      try {
        await body(run);
      } catch (error) {
        if (!(error instanceof RefusedRequest)) throw error;
        run.info(error.message);
      }
    });
  }

  /** Where a changing operation may be sent: a resource the kit created, anywhere with the flag, or a SKIP. */
  #pathValuesFor(run: CheckRun): Record<string, string> {
    const operation = this.#operation;
    if (!operation.changesExisting) return {};
    const created = this.#context.createdResource(operation);
    if ('values' in created) return created.values;
    if (run.target.allowDestructive) return {};
    // Without an id of its own creation, the request would change something else (or the collection).
    return run.skip(
      `${operation.label} changes an existing resource, and this run created none it could address (${created.missing}); --allow-destructive sends it anyway`,
    );
  }

  /** One builder per operation and run: its parameters and body are made once, for every check of the operation. */
  #builderFor(run: CheckRun): GenericRequestBuilder {
    return this.#context.builder(
      this.#operation,
      () => new GenericRequestBuilder(this.#operation, this.#context.data(run.target.seed), this.#pathValuesFor(run)),
    );
  }

  #send(
    run: CheckRun,
    request: GenericRequest,
    mode: CredentialMode['kind'],
    extra: { offInterface?: boolean; bypassPrism?: boolean } = {},
  ): Promise<Exchange> {
    return run.send({
      operationId: this.#operation.id,
      method: this.#operation.definition.method,
      path: request.path,
      headers: request.headers,
      ...(request.authorization === undefined ? {} : { authorization: request.authorization }),
      ...(request.rawBody === undefined ? {} : { rawBody: request.rawBody }),
      ...(request.contentType === undefined ? {} : { contentType: request.contentType }),
      accept: 'application/json, */*;q=0.8',
      identity: mode === 'valid' ? 'main' : 'anonymous',
      ...extra,
    });
  }

  /** No credentials and wrong credentials -> 401 (a challenge in WWW-Authenticate, or a WARN). */
  credentialChecks(): void {
    const operation = this.#operation;
    for (const probe of credentialProbes) {
      this.#check(
        this.#definition(probe.id, 'spec security', `${probe.title} (${describeSecurity(operation)})`, () => 1),
        async (run) => {
          const mode = probe.mode(run);
          // Otherwise valid (a valid body included), so that the credentials are the only thing wrong.
          const exchange = await this.#send(run, this.#builderFor(run).valid(mode), mode.kind);
          const response = responseOf(exchange);
          if (response.status !== 401)
            throw new CheckFailure(`expected 401 for ${probe.title.split(' -> ')[0]}, got ${response.status}`, [
              evidenceOf(exchange, `${response.status}: ${bodyExcerpt(exchange, 120)}`),
            ]);
          // A 401 the document gives no shape for is the rule's answer all the same.
          if (declaredResponse(operation.definition, 401) !== undefined) judgeAnswer(run, operation, exchange);
          if (response.headers['www-authenticate'] === undefined)
            run.warn('401 without WWW-Authenticate (RFC 9110 §11.6.1 asks every 401 for a challenge)', [
              evidenceOf(exchange, '401 without WWW-Authenticate', { header: 'WWW-Authenticate' }),
            ]);
        },
      );
    }
  }

  /** A valid request -> a declared status, media type and schema; a 2xx to a POST is kept for the changing operations. */
  validRequestCheck(): void {
    const operation = this.#operation;
    this.#check(
      this.#definition(
        'valid-request',
        'spec valid request',
        'a valid request -> a declared status, media type and schema, required headers',
        () => 1,
      ),
      async (run) => {
        const builder = this.#builderFor(run);
        const body = builder.body();
        if (
          body.media?.validator !== undefined &&
          isJsonMedia(body.media.essence) &&
          !body.media.validator.isValid(body.value)
        ) {
          return run.skip(
            `no valid ${body.media.type} body to send: the document gives no example its schema accepts, and data generated from the schema did not pass it (${describeIssues(
              body.media.validator.safeParse(body.value).error?.issues ?? [],
            )
              .slice(0, 2)
              .join('; ')})`,
          );
        }
        const exchange = await this.#send(run, builder.valid({ kind: 'valid', key: run.target.apiKey }, body), 'valid');
        judgeValidAnswer(run, operation, exchange);
        const response = responseOf(exchange);
        if (
          operation.definition.method === 'POST' &&
          response.status >= 200 &&
          response.status < 300 &&
          response.json !== null &&
          typeof response.json === 'object' &&
          !Array.isArray(response.json)
        ) {
          this.#context.created.set(operation.definition.pathTemplate, {
            pathValues: builder.pathValues(),
            body: response.json as Record<string, unknown>,
          });
        }
      },
    );
  }

  /** Requests the document makes invalid -> a 4xx (declared, or INFO), never 2xx or 5xx. */
  invalidRequestsCheck(): void {
    const operation = this.#operation;
    this.#check(
      this.#definition(
        'invalid-requests',
        'spec invalid request',
        'requests the document makes invalid (parameter absent or of the wrong type, body cases of the coverage phase) -> 4xx, never 2xx or 5xx',
        (target) => target.invalidCases,
      ),
      async (run) => {
        if (run.target.invalidCases === 0) return run.skip('--invalid-cases 0: no invalid request is sent');
        const cases = this.#builderFor(run).invalid(run.target.apiKey, run.target.invalidCases);
        if (cases.length === 0)
          return run.skip(
            'the document gives nothing to make invalid here (no required or typed parameter, no JSON body with a schema)',
          );
        run.cases(cases.length);
        const answers = new InvalidAnswers(operation);
        for (const entry of cases)
          answers.judge(
            entry.label,
            await this.#send(run, entry.request, 'valid', { offInterface: true, bypassPrism: true }),
          );
        answers.report(run, cases.length);
      },
    );
  }
}

/** The answer to a valid request: not 401 with the given credentials, never 5xx, then judged by the document. */
function judgeValidAnswer(run: CheckRun, operation: GenericOperation, exchange: Exchange): void {
  const response = responseOf(exchange);
  if (response.status === 401 && operation.security.alternatives.length > 0) {
    throw new CheckFailure(
      `the credentials given by --api-key were refused with 401 (${describeSecurity(operation)})`,
      [evidenceOf(exchange, `401: ${bodyExcerpt(exchange, 120)}`)],
    );
  }
  // A 5xx the document declares describes how a failure looks, not a right answer to a valid request.
  if (response.status >= 500) {
    const declared = declaredResponse(operation.definition, response.status)?.statusKey === String(response.status);
    throw new CheckFailure(
      `a valid request was answered ${response.status}${declared ? ' (the document declares it: that gives a failure its shape, it does not make the failure right)' : ''}`,
      [evidenceOf(exchange, `${response.status}: ${bodyExcerpt(exchange, 160)}`)],
    );
  }
  judgeAnswer(run, operation, exchange);
  if (response.status >= 400)
    run.note(
      `answered ${response.status}, declared for this operation (a generated value may name nothing on the server)`,
    );
  else run.note(`answered ${response.status}`);
}

/** Judges an answer by the document; FAIL on what it breaks, INFO on what it leaves open. */
function judgeAnswer(run: CheckRun, operation: GenericOperation, exchange: Exchange): void {
  const response = responseOf(exchange);
  const verdict = judgeResponse(operation.definition, response, operation.definition.method !== 'HEAD');
  if (verdict.problems.length > 0)
    throw new CheckFailure(
      verdict.problems.join('; '),
      verdict.problems
        .slice(0, 4)
        .map((problem) => evidenceOf(exchange, `${problem}; body ${bodyExcerpt(exchange, 100)}`)),
    );
  if (verdict.open.length > 0) {
    run.info(verdict.open.join('; '), [evidenceOf(exchange, verdict.open[0]!)]);
    return;
  }
  for (const note of verdict.notes) run.note(note);
}

function describeSecurity(operation: GenericOperation): string {
  return operation.security.alternatives
    .map((alternative) =>
      alternative
        .map((check) =>
          check.kind === 'apiKey'
            ? `API key in ${check.in} ${check.parameter}`
            : check.kind === 'basic'
              ? 'HTTP basic'
              : 'bearer token',
        )
        .join(' + '),
    )
    .join(' or ');
}
