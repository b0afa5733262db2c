import type { SpecDefinition } from '../../spec/compile-spec.js';
import { createDataGenerator, type DataGenerator } from '../../spec/data-generator.js';
import { describeIssues } from '../../spec/interface/spec-model.js';
import { type CheckArea, type CheckDefinition, type CheckRun, defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import { bodyExcerpt, type Evidence, type Exchange, evidenceOf } from '../lib/exchange.js';
import { responseOf } from '../lib/expect-response.js';
import {
  type CredentialMode,
  type GenericOperation,
  type GenericRequest,
  GenericRequestBuilder,
  genericOperations,
  isJsonMedia,
} from '../lib/generic-requests.js';
import { createdIdentifier, RefusedRequest } from '../lib/resource-path.js';
import { declaredResponse, judgeResponse } from '../lib/response-conformance.js';

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

type Register = (definition: CheckDefinition, body: (run: CheckRun) => Promise<void>) => void;

/** What the checks of one run share: the seeded generator, and what the run created where. */
class GenericContext {
  #data: DataGenerator | undefined;
  /** Path template of a POST -> the path values it was sent with and the body of its 2xx. */
  readonly created = new Map<string, { pathValues: Record<string, string>; body: Record<string, unknown> }>();

  readonly #builders = new Map<string, GenericRequestBuilder>();

  builder(operation: GenericOperation, make: () => GenericRequestBuilder): GenericRequestBuilder {
    let builder = this.#builders.get(operation.id);
    if (builder === undefined) {
      builder = make();
      this.#builders.set(operation.id, builder);
    }
    return builder;
  }

  data(seed: number): DataGenerator {
    this.#data ??= createDataGenerator(seed);
    return this.#data;
  }

  /**
   * The path values of a resource the kit created for an operation that changes one: the last
   * path parameter from the body of a 2xx to a POST on the path before it (`POST /pets` ->
   * `DELETE /pets/{petId}` with the created `petId` or `id`, at the top or in an envelope such as
   * `data`), the others from that POST's own path. `missing` says why a creation gave no usable id.
   */
  createdResource(operation: GenericOperation): { values: Record<string, string> } | { missing: string } {
    const match = /^(.*)\/\{([^}/]+)\}[^{}]*$/.exec(operation.definition.pathTemplate);
    if (match === null) return { missing: 'the path names no resource' };
    const [, collection, parameter] = match as unknown as [string, string, string];
    const record = this.created.get(collection);
    if (record === undefined) return { missing: `no 2xx to a POST on ${collection}` };
    const found = createdIdentifier(record.body, parameter);
    const created = `the 2xx to POST ${collection}`;
    if (found === undefined)
      return {
        missing: `${created} names no ${parameter === 'id' ? 'id' : `${parameter} or id`}, at its top or in an envelope`,
      };
    // An empty segment would address the collection (`PUT /lists/`), not the resource.
    if (String(found.value).trim() === '') return { missing: `${created} gives ${found.at} as an empty string` };
    // The created value must be one the parameter accepts (a float id does not fill an integer parameter).
    const definition = operation.definition.parameters.find(
      (candidate) => candidate.in === 'path' && candidate.name === parameter,
    );
    if (definition !== undefined && !definition.validator.isValid(found.value))
      return {
        missing: `${created} gives ${found.at} ${JSON.stringify(found.value)}, which ${parameter} does not accept`,
      };
    return { values: { ...record.pathValues, [parameter]: String(found.value) } };
  }
}

function defineOperationChecks(register: Register, operation: GenericOperation, context: GenericContext): void {
  // A request a URL parser would take elsewhere (a created resource named `..`) is not sent: INFO saying why.
  const check: Register = (definition, body) =>
    register(definition, async (run) => {
      try {
        await body(run);
      } catch (error) {
        if (!(error instanceof RefusedRequest)) throw error;
        run.info(error.message);
      }
    });
  const base = { operation: operation.label, operationId: operation.id, writes: operation.mayCreate };
  /** Where a changing operation may be sent: a resource the kit created, anywhere with the flag, or a SKIP. */
  const pathValuesFor = (run: CheckRun): Record<string, string> => {
    if (!operation.changesExisting) return {};
    const created = context.createdResource(operation);
    if ('values' in created) return created.values;
    if (run.target.allowDestructive) return {};
    // Without an id of its own creation, the request would change something else (or the collection).
    return run.skip(
      `${operation.label} changes an existing resource, and this run created none it could address (${created.missing}); --allow-destructive sends it anyway`,
    );
  };
  // One builder per operation and run: its parameters and body are made once, for every check of the operation.
  const builderFor = (run: CheckRun) =>
    context.builder(
      operation,
      () => new GenericRequestBuilder(operation, context.data(run.target.seed), pathValuesFor(run)),
    );
  const send = (
    run: CheckRun,
    request: GenericRequest,
    mode: CredentialMode['kind'],
    extra: { offInterface?: boolean; bypassPrism?: boolean } = {},
  ) =>
    run.send({
      operationId: operation.id,
      method: operation.definition.method,
      path: request.path,
      headers: request.headers,
      ...(request.authorization === undefined ? {} : { authorization: request.authorization }),
      ...(request.rawBody === undefined ? {} : { rawBody: request.rawBody }),
      ...(request.contentType === undefined ? {} : { contentType: request.contentType }),
      accept: 'application/json, */*;q=0.8',
      identity: mode === 'valid' ? 'main' : 'anonymous',
      ...extra,
    });

  if (operation.requiresCredentials) {
    const probes: { id: string; title: string; mode: (run: CheckRun) => CredentialMode }[] = [
      { id: 'no-credentials', title: 'no credentials -> 401', mode: () => ({ kind: 'none' }) },
      {
        id: 'wrong-credentials',
        title: 'wrong credentials -> 401',
        mode: (run) => ({ kind: 'wrong', key: `contract-test-${run.target.runId}-not-a-key` }),
      },
    ];
    for (const probe of probes) {
      check(
        {
          ...base,
          id: `generic.${probe.id}:${operation.id}`,
          rule: 'spec security',
          title: `${probe.title} (${describeSecurity(operation)})`,
          ...(operation.mayCreate ? { maxCreates: () => 1 } : {}),
        },
        async (run) => {
          const mode = probe.mode(run);
          // Otherwise valid (a valid body included), so that the credentials are the only thing wrong.
          const exchange = await send(run, builderFor(run).valid(mode), mode.kind);
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

  check(
    {
      ...base,
      id: `generic.valid-request:${operation.id}`,
      rule: 'spec valid request',
      title: 'a valid request -> a declared status, media type and schema, required headers',
      ...(operation.mayCreate ? { maxCreates: () => 1 } : {}),
    },
    async (run) => {
      const builder = builderFor(run);
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
      const exchange = await send(run, builder.valid({ kind: 'valid', key: run.target.apiKey }, body), 'valid');
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
      if (
        operation.definition.method === 'POST' &&
        response.status >= 200 &&
        response.status < 300 &&
        response.json !== null &&
        typeof response.json === 'object' &&
        !Array.isArray(response.json)
      ) {
        context.created.set(operation.definition.pathTemplate, {
          pathValues: builder.pathValues(),
          body: response.json as Record<string, unknown>,
        });
      }
    },
  );

  const hasInputs =
    operation.definition.parameters.some((parameter) => parameter.in !== 'cookie') ||
    operation.definition.requestBody !== undefined;
  if (!hasInputs) return;
  check(
    {
      ...base,
      id: `generic.invalid-requests:${operation.id}`,
      rule: 'spec invalid request',
      title:
        'requests the document makes invalid (parameter absent or of the wrong type, body cases of the coverage phase) -> 4xx, never 2xx or 5xx',
      ...(operation.mayCreate ? { maxCreates: (target) => target.invalidCases } : {}),
    },
    async (run) => {
      if (run.target.invalidCases === 0) return run.skip('--invalid-cases 0: no invalid request is sent');
      const cases = builderFor(run).invalid(run.target.apiKey, run.target.invalidCases);
      if (cases.length === 0)
        return run.skip(
          'the document gives nothing to make invalid here (no required or typed parameter, no JSON body with a schema)',
        );
      run.cases(cases.length);
      const failures: Evidence[] = [];
      const summaries: string[] = [];
      const open = new Set<string>();
      const statuses = new Set<number>();
      for (const entry of cases) {
        const exchange = await send(run, entry.request, 'valid', { offInterface: true, bypassPrism: true });
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
          summaries.push(`${entry.label} (${problem})`);
          failures.push(evidenceOf(exchange, `${entry.label}: ${problem}; body ${bodyExcerpt(exchange, 100)}`));
          continue;
        }
        statuses.add(response!.status);
        const declared = declaredResponse(operation.definition, response!.status);
        if (declared === undefined) {
          open.add(`${response!.status} is not declared (which 4xx answers an invalid request is left open)`);
          continue;
        }
        const verdict = judgeResponse(operation.definition, response!, operation.definition.method !== 'HEAD');
        for (const item of verdict.problems) {
          summaries.push(`${entry.label} (${item})`);
          failures.push(evidenceOf(exchange, `${entry.label}: ${item}`));
        }
        for (const item of verdict.open) open.add(item);
      }
      if (failures.length > 0)
        throw new CheckFailure(
          `${summaries.length} of ${cases.length} invalid requests answered against the document: ${summaries.slice(0, 3).join('; ')}${summaries.length > 3 ? `; and ${summaries.length - 3} more` : ''}`,
          failures.slice(0, 6),
        );
      run.note(
        `${cases.length} cases answered ${[...statuses].sort().join('/')}${open.size > 0 ? `; information: ${[...open].slice(0, 2).join('; ')}` : ''}`,
      );
    },
  );
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
