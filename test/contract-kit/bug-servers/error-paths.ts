import type { PlainRequest } from '../reference/reference-petstore.js';
import type { BugServer } from './bug-server.js';
import { htmlAnswer, isCategoriesPath, pathOf, requestJson, requestObject, withErrorBody, withHeader } from './wire.js';
import { post } from './witness.js';

/** docs/bug-taxonomy.md section 9: error paths. */

/** body-parser's default `limit`. */
const bodyLimitBytes = 100 * 1024;

function isCreate(request: PlainRequest): boolean {
  return request.method === 'POST' && isCategoriesPath(request);
}

export const errorPathBugs: readonly BugServer[] = [
  {
    id: 'errors-html-stack-for-bad-json',
    taxonomyClass: 'error paths',
    models: "body-parser's SyntaxError reaches Express's default error handler (NODE_ENV unset): an HTML stack trace",
    adds: 'app.use(express.json()) // and no error handler of our own',
    witness: [post(undefined, { text: '{"name":' })],
    hooks: () => ({
      response: (response, request) =>
        isCreate(request) && request.body.length > 0 && requestJson(request) === undefined && response.status === 400
          ? htmlAnswer(
              400,
              'SyntaxError: Unexpected token in JSON<br> &nbsp; &nbsp;at JSON.parse (&lt;anonymous&gt;)<br> &nbsp; &nbsp;at parse (/app/node_modules/body-parser/lib/types/json.js:92:19)',
              response.headers,
            )
          : response,
    }),
  },
  {
    id: 'errors-html-404',
    taxonomyClass: 'error paths',
    models: "Express's final handler answers unknown paths with its HTML 'Cannot GET' page, before the limiter",
    adds: '// no app.use((req, res) => res.status(404).json(...)) at the end',
    witness: [{ target: '/v1/no-such-path' }],
    hooks: () => ({
      response: (response, request) =>
        response.status === 404 ? htmlAnswer(404, `Cannot ${request.method} ${pathOf(request)}`) : response,
    }),
  },
  {
    id: 'errors-status-as-string',
    taxonomyClass: 'error paths',
    models: "the error serializer copies the status line's code as a string",
    adds: 'res.json({ code, message, status: String(res.statusCode) })',
    witness: [{ as: 'anonymous' }],
    hooks: () => ({
      response: (response) =>
        response.status >= 400 && response.status !== 429
          ? withErrorBody(response, response.status, (error) => ({ ...error, status: String(response.status) }))
          : response,
    }),
  },
  {
    id: 'errors-401-plain-text',
    taxonomyClass: 'error paths',
    models: "res.sendStatus(401) answers the text 'Unauthorized'",
    adds: 'if (!plan) return res.sendStatus(401)',
    witness: [{ as: 'anonymous' }],
    hooks: () => ({
      response: (response) =>
        response.status === 401
          ? {
              ...response,
              headers: { ...response.headers, 'Content-Type': 'text/plain; charset=utf-8' },
              body: 'Unauthorized',
            }
          : response,
    }),
  },
  {
    id: 'errors-401-drf-detail',
    taxonomyClass: 'error paths',
    models: 'Django REST framework\'s default 401 body {"detail": ...}',
    adds: "REST_FRAMEWORK = {'DEFAULT_AUTHENTICATION_CLASSES': [...]}  # default exception handler",
    witness: [{ as: 'anonymous' }],
    hooks: () => ({
      response: (response) =>
        response.status === 401
          ? withErrorBody(response, 401, () => ({ detail: 'Authentication credentials were not provided.' }))
          : response,
    }),
  },
  {
    id: 'errors-validation-422',
    taxonomyClass: 'error paths',
    models: "FastAPI's (and Rails') default 422 Unprocessable Entity for a body that fails validation",
    adds: 'async def create(category: NewCategory): ...  # RequestValidationError -> 422',
    witness: [post({ title: 'a' })],
    hooks: () => ({
      response: (response) =>
        response.status === 400 ? withErrorBody(response, 422, (error) => ({ ...error, status: 422 })) : response,
    }),
  },
  {
    id: 'errors-500-for-non-string-description',
    taxonomyClass: 'error paths',
    models: 'description.trim() throws a TypeError on a non-string: a 500, not a 400',
    adds: 'const description = body.description?.trim()',
    witness: [post({ name: 'a', description: 5 })],
    hooks: () => ({
      response: (response, request) => {
        const description = requestObject(request)?.description;
        const throws = isCreate(request) && description !== undefined && typeof description !== 'string';
        return throws && response.status === 400
          ? withErrorBody(response, 500, () => ({
              code: 'internal_error',
              message: 'description.trim is not a function',
              status: 500,
            }))
          : response;
      },
    }),
  },
  {
    id: 'errors-413-html-over-100kb',
    taxonomyClass: 'error paths',
    models: "body-parser's default 100 kB limit, answered by Express's default error handler as HTML",
    adds: 'app.use(express.json()) // limit: 100kb',
    witness: [post({ name: 'a', description: 'x'.repeat(110_000) })],
    hooks: () => ({
      response: (response, request) =>
        isCreate(request) && request.body.length > bodyLimitBytes
          ? htmlAnswer(413, 'PayloadTooLargeError: request entity too large', response.headers)
          : response,
    }),
  },
  {
    id: 'errors-sent-as-html',
    taxonomyClass: 'error paths',
    models: 'the error handler sends JSON text with res.send: every error is labelled text/html',
    adds: 'res.status(err.status).send(JSON.stringify(error))',
    witness: [{ as: 'anonymous' }],
    hooks: () => ({
      response: (response) =>
        response.status >= 400 ? withHeader(response, 'Content-Type', 'text/html; charset=utf-8') : response,
    }),
  },
];
