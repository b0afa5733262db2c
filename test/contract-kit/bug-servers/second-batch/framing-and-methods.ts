import type { BugServer } from '../bug-server.js';
import { htmlAnswer, pathOf, withHeader, withoutRateHeaders } from '../wire.js';
import { post } from '../witness.js';
import { isListing } from './helpers.js';

/** Second batch, docs/bug-taxonomy.md sections 2 and 3: how a body is written, methods and routing. */

/** What a writer whose charset is ISO-8859-1 makes of a character it cannot encode. */
function latin1OrQuestionMark(text: string): string {
  return Array.from(text, (character) => (character.codePointAt(0)! > 0xff ? '?' : character)).join('');
}

export const secondBatchFramingBugs: readonly BugServer[] = [
  {
    id: 'framing-json-with-bom',
    taxonomyClass: 'framing',
    models: "a UTF-8 writer that emits a byte order mark (.NET's Encoding.UTF8 preamble) before every JSON body",
    adds: 'new StreamWriter(response.Body, Encoding.UTF8) // writes EF BB BF first',
    witness: [{}],
    hooks: () => ({
      response: (response) => (response.body === '' ? response : { ...response, body: `\uFEFF${response.body}` }),
    }),
  },
  {
    id: 'framing-content-type-missing',
    taxonomyClass: 'framing',
    models: 'successes written with res.end(JSON.stringify(x)) on a raw node handler: no Content-Type at all',
    adds: 'res.writeHead(200); res.end(JSON.stringify(categories))',
    witness: [{}],
    hooks: () => ({
      response: (response) => (response.status < 300 ? withHeader(response, 'Content-Type', undefined) : response),
    }),
  },
  {
    id: 'framing-non-latin1-as-question-marks',
    taxonomyClass: 'framing',
    models:
      "the response writer's charset is ISO-8859-1 (a servlet's default): characters outside it are written as '?'",
    adds: 'response.getWriter().write(json) // no setCharacterEncoding("UTF-8")',
    witness: [post({ name: 'dog 🐶' })],
    hooks: () => ({
      response: (response) => ({
        ...withHeader(response, 'Content-Type', 'application/json;charset=ISO-8859-1'),
        body: latin1OrQuestionMark(response.body),
      }),
    }),
  },
  {
    id: 'framing-empty-list-204',
    taxonomyClass: 'framing',
    models: 'the tutorial pattern `if (list.isEmpty()) return ResponseEntity.noContent()`: an empty list answers 204',
    adds: 'if (categories.isEmpty()) return new ResponseEntity<>(HttpStatus.NO_CONTENT);',
    witness: [{}],
    hooks: () => ({
      response: (response, request) =>
        isListing(request) && response.status === 200 && response.body === '[]'
          ? { ...withHeader(response, 'Content-Type', undefined), status: 204, body: '' }
          : response,
    }),
  },
];

export const secondBatchMethodBugs: readonly BugServer[] = [
  {
    id: 'methods-unrouted-method-html-404',
    taxonomyClass: 'methods',
    models: "Express has no 405: PUT, PATCH or DELETE on a routed path reach the final handler's HTML 'Cannot PUT' 404",
    adds: "router.route('/categories').get(list).post(create) // and no .all(methodNotAllowed)",
    witness: [{ method: 'PUT', json: { name: 'a' } }],
    hooks: () => ({
      response: (response, request) =>
        response.status === 405
          ? htmlAnswer(404, `Cannot ${request.method} ${pathOf(request)}`, {
              ...response.headers,
              'Content-Type': 'text/html; charset=utf-8',
            })
          : response,
    }),
  },
  {
    id: 'methods-head-skipped-by-limiter',
    taxonomyClass: 'methods',
    models:
      "the limiter skips HEAD (`skip: req => req.method === 'HEAD'`, for health checks): HEAD answers carry no rate headers",
    adds: "rateLimit({ skip: (req) => ['HEAD', 'OPTIONS'].includes(req.method) })",
    witness: [{ method: 'HEAD' }],
    hooks: () => ({
      // Express answers HEAD with the GET route (its body dropped); the skipped limiter neither counts nor writes.
      request: (request) =>
        request.method === 'HEAD'
          ? { ...request, method: 'GET', headers: { ...request.headers, 'x-bug-corpus-head': '1' } }
          : request,
      decide: (take, bucket, request) =>
        request.headers['x-bug-corpus-head'] === '1'
          ? { allowed: true, limit: 0, remaining: 0, resetMs: 0, retryAfterSeconds: 0 }
          : take(bucket),
      response: (response, request) =>
        request.headers['x-bug-corpus-head'] === '1' ? { ...withoutRateHeaders(response), body: '' } : response,
    }),
  },
];
