import type { DataGenerator } from '../../../spec/data-generator.js';
import { responseByStatus } from '../../../spec/interface/response-lookup.js';
import type { NewCategory } from '../../../spec/schemas.js';
import { HttpError } from '../errors.js';
import type { CompiledOperation } from '../spec/compiled-spec.js';
import type { HitInput, HitResult } from '../state/state-store.js';
import { integerText } from '../wire/number-text.js';
import { RawJson } from '../wire/response-shaping.js';
import { addDeclaredHeaders } from './declared-headers.js';
import { mediaBody, responseMedia, sampleOf } from './media-answers.js';

export interface OperationResult {
  status: number;
  body: unknown;
}

export interface OperationContext {
  operation: CompiledOperation;
  /** The validated body, as the client sent it (`storeWork` picks the declared fields to store). */
  body: unknown;
  pathParams: Readonly<Record<string, string>>;
  /** The store's answer to this request's one round trip. */
  hit: HitResult;
  basePath: string;
  data: DataGenerator;
  /** The answer's headers so far (rate limits): `respond` adds its own here (a separate object would be copied in on every request). */
  headers: Record<string, string>;
  /**
   * What generated data is drawn for (the request's target): the same key, the same data, the document's
   * examples in it. Undefined: drawn afresh (`--dynamic`).
   */
  drawKey?: string | undefined;
}

/**
 * One operation that reads or writes state. Its state work rides along with the rate-limit hit
 * (`storeWork`), so a request is one store round trip; `respond` turns the store's answer into the
 * response. Operations without a module here are answered from the spec (`generatedResponse`).
 */
export interface StatefulOperation {
  /** What the store does for this request in the hit's round trip, from the validated body. */
  storeWork(operation: CompiledOperation, body: unknown): HitInput['categories'];
  respond(context: OperationContext): OperationResult;
}

const emptyList = new RawJson('[]');

/** `GET /categories`: the session's list, as JSON text kept by the store. */
const listCategories: StatefulOperation = {
  storeWork: (operation) => ({ kind: 'list', requiresKey: operation.requiresAuth }),
  respond: ({ hit }) => ({
    status: 200,
    body: hit.categoriesJson === undefined ? emptyList : new RawJson(hit.categoriesJson),
  }),
};

/** `POST /categories`: stores the declared fields under the session's next id. */
export const createCategory: StatefulOperation = {
  storeWork: (operation, body) => ({
    kind: 'create',
    requiresKey: operation.requiresAuth,
    input: declaredFields(operation, body) as NewCategory,
  }),
  respond: ({ hit, basePath, headers }) => {
    if (hit.categoryRefusal) throw hit.categoryRefusal;
    const { id, json } = hit.created!;
    headers.Location = `${basePath}/categories/${integerText(id)}`;
    return { status: 201, body: new RawJson(json) };
  },
};

/** The stateful operations of the Petstore, by operationId. */
export const petstoreOperations: Readonly<Record<string, StatefulOperation>> = { listCategories, createCategory };

/**
 * Any other operation: its success response in the media type `Accept` prefers, from its first
 * example or data drawn from its schema (the document's values first), with the headers it declares;
 * no body when it declares none.
 */
export function generatedResponse(
  {
    operation,
    data,
    headers,
    drawKey,
    basePath,
    pathParams,
  }: Pick<OperationContext, 'operation' | 'data' | 'drawKey'> &
    Partial<Pick<OperationContext, 'headers' | 'basePath' | 'pathParams'>>,
  accept?: string,
): OperationResult {
  const status = operation.successStatus ?? answerableStatus(operation);
  const response = responseByStatus(status, (key) =>
    key === String(status) ? operation.responses.get(status) : operation.rangeResponses.get(key),
  );
  if (!response) return { status, body: undefined };
  const media = responseMedia(response, accept);
  const value = media === undefined ? undefined : sampleOf(media, data, drawKey);
  if (headers !== undefined)
    addDeclaredHeaders(headers, response.headers, { data, drawKey, status, value, operation, basePath, pathParams });
  return { status, body: media === undefined ? undefined : mediaBody(media, value) };
}

/**
 * The status an operation without a 2xx answers: its first 3xx, else 200 when a range or `default`
 * allows it (or nothing is declared). One that declares only 1xx besides errors (Docker's `POST
 * /session`: 101) answers by switching protocols, which a mock cannot do: a 400, never an undeclared 200.
 */
function answerableStatus(operation: CompiledOperation): number {
  const declared = [...operation.responses.keys()].sort((a, b) => a - b);
  const redirect = declared.find((status) => status >= 300 && status < 400);
  if (redirect !== undefined) return redirect;
  const informational = declared.find((status) => status < 200);
  if (informational === undefined || operation.rangeResponses.has('2XX') || operation.rangeResponses.has('DEFAULT'))
    return 200;
  throw new HttpError(
    'bad_request',
    `${operation.method.toUpperCase()} ${operation.pathTemplate.slice(0, 200)} answers ${informational} (switching protocols) only, which the mock does not do`,
  );
}

/**
 * The fields of a validated body that the operation's schema declares, and nothing else: what a
 * client adds beyond the spec (or a hostile `__proto__` key) is never stored.
 */
function declaredFields(operation: CompiledOperation, body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of operation.requestBody?.declaredProperties ?? []) {
    if (Object.hasOwn(body as object, name)) out[name] = (body as Record<string, unknown>)[name];
  }
  return out;
}
