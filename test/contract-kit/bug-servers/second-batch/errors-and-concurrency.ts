import type { PlainRequest, PlainResponse } from '../../reference/reference-petstore.js';
import type { BugServer } from '../bug-server.js';
import { pathOf, requestJson } from '../wire.js';
import { post } from '../witness.js';
import { insertFailsWhen, isCreate, serverError } from './helpers.js';

/** Second batch, docs/bug-taxonomy.md sections 8 and 9: concurrency and error paths. */

const reasonPhrases: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  415: 'Unsupported Media Type',
};

/** The answer's status and headers with another JSON body (a framework's own error shape). */
function withJsonBody(response: PlainResponse, body: unknown, contentType = 'application/json'): PlainResponse {
  return { ...response, headers: { ...response.headers, 'Content-Type': contentType }, body: JSON.stringify(body) };
}

function errorMessageOf(response: PlainResponse): string {
  return String((JSON.parse(response.body) as { message?: unknown }).message);
}

export const secondBatchConcurrencyBugs: readonly BugServer[] = [
  {
    id: 'concurrency-id-from-clock-ms',
    taxonomyClass: 'concurrency',
    models: 'ids taken from the clock in milliseconds (Date.now()): two creates in the same millisecond share an id',
    adds: 'const category = { id: Date.now(), ...body }',
    witness: [post({ name: 'a' }), post({ name: 'b' })],
    hooks: ({ clock }) => ({ create: (draft) => ({ ...draft, id: clock.now() }) }),
  },
];

export const secondBatchErrorBugs: readonly BugServer[] = [
  {
    id: 'errors-spring-default-error-body',
    taxonomyClass: 'error paths',
    models: "Spring Boot's BasicErrorController answers 404 and 405 itself: {timestamp, status, error, path}",
    adds: '// no @ControllerAdvice for NoHandlerFoundException / HttpRequestMethodNotSupportedException',
    witness: [{ method: 'DELETE' }],
    hooks: () => ({
      response: (response, request) =>
        response.status === 404 || response.status === 405
          ? withJsonBody(response, {
              timestamp: '2026-03-02T10:00:20.000+00:00',
              status: response.status,
              error: reasonPhrases[response.status],
              path: pathOf(request),
            })
          : response,
    }),
  },
  {
    id: 'errors-fastify-default-error-shape',
    taxonomyClass: 'error paths',
    models: "Fastify's default error serializer for a 400: {statusCode, code, error, message}, no `status`",
    adds: '// schema validation on the route, no setErrorHandler',
    witness: [{ method: 'POST', json: {} }],
    hooks: () => ({
      response: (response) =>
        response.status === 400
          ? withJsonBody(response, {
              statusCode: 400,
              code: 'FST_ERR_VALIDATION',
              error: 'Bad Request',
              message: errorMessageOf(response),
            })
          : response,
    }),
  },
  {
    id: 'errors-problem-details',
    taxonomyClass: 'error paths',
    models:
      "Spring 6's ProblemDetail for validation errors: application/problem+json {type, title, status, detail, instance}",
    adds: 'spring.mvc.problemdetails.enabled=true',
    witness: [{ method: 'POST', json: {} }],
    hooks: () => ({
      response: (response, request) =>
        response.status === 400
          ? withJsonBody(
              response,
              {
                type: 'about:blank',
                title: 'Bad Request',
                status: 400,
                detail: errorMessageOf(response),
                instance: pathOf(request),
              },
              'application/problem+json',
            )
          : response,
    }),
  },
  {
    id: 'errors-null-body-500',
    taxonomyClass: 'error paths',
    models: 'a JSON body `null` reaches `const { name } = req.body`: a TypeError, answered 500',
    adds: 'const { name, description } = req.body // body-parser strict: false',
    witness: [post(null)],
    hooks: () => ({
      response: (response, request: PlainRequest) =>
        isCreate(request) && response.status === 400 && requestJson(request) === null
          ? serverError(response, "Cannot destructure property 'name' of 'req.body' as it is null.")
          : response,
    }),
  },
  {
    id: 'errors-long-name-500',
    taxonomyClass: 'error paths',
    models: "a VARCHAR(255) column in strict mode: a longer name is 'value too long', answered 500",
    adds: 'CREATE TABLE categories (name VARCHAR(255) NOT NULL, description VARCHAR(1000))',
    witness: [post({ name: 'n'.repeat(256) })],
    hooks: () =>
      insertFailsWhen(
        (draft) => draft.name.length > 255 || (draft.description?.length ?? 0) > 1000,
        'value too long for type character varying(255)',
      ),
  },
];
