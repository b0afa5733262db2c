import type { ReferenceHooks } from '../reference/reference-hooks.js';
import type { BugServer } from './bug-server.js';
import { withHeader, withRequestHeader } from './wire.js';
import { post } from './witness.js';

/** docs/bug-taxonomy.md section 2: how a body is read and written. */

const refusedMediaType = 'application/x-refused-by-exact-compare';

/** A request hook that refuses (415) every body whose Content-Type `accepts` does not take. */
function refuseContentTypeUnless(accepts: (type: string) => boolean): ReferenceHooks['request'] {
  return (request) => {
    const type = request.headers['content-type'];
    return type === undefined || accepts(type) ? request : withRequestHeader(request, 'content-type', refusedMediaType);
  };
}

export const framingBugs: readonly BugServer[] = [
  {
    id: 'framing-chunked-body-ignored',
    taxonomyClass: 'framing',
    models: 'the handler reads Content-Length bytes only: a chunked body is seen as empty (400)',
    adds: "const length = Number(req.headers['content-length'] ?? 0); // chunked: 0",
    witness: [post({ name: 'a' }, { headers: { 'transfer-encoding': 'chunked' } })],
    hooks: () => ({
      request: (request) =>
        /chunked/i.test(String(request.headers['transfer-encoding']))
          ? { ...request, body: new Uint8Array() }
          : request,
    }),
  },
  {
    id: 'framing-charset-parameter-refused',
    taxonomyClass: 'framing',
    models: "an exact string compare of Content-Type refuses 'application/json; charset=utf-8'",
    adds: "if (req.headers['content-type'] !== 'application/json') return res.status(415)",
    witness: [post({ name: 'a' }, { headers: { 'content-type': 'application/json; charset=utf-8' } })],
    hooks: () => ({ request: refuseContentTypeUnless((type) => type === 'application/json') }),
  },
  {
    id: 'framing-media-type-case-sensitive',
    taxonomyClass: 'framing',
    models: 'the media type is compared case-sensitively: Application/JSON refused (RFC 9110 8.3.1: it is not)',
    adds: "if (type.split(';')[0].trim() !== 'application/json') return res.status(415)",
    witness: [post({ name: 'a' }, { headers: { 'content-type': 'Application/JSON' } })],
    hooks: () => ({ request: refuseContentTypeUnless((type) => type.split(';')[0]!.trim() === 'application/json') }),
  },
  {
    id: 'framing-body-read-as-latin1',
    taxonomyClass: 'framing',
    models: "the body is decoded as Latin-1 (req.setEncoding('binary')): non-ASCII text is stored mojibaked",
    adds: "req.setEncoding('binary')",
    witness: [post({ name: 'café' })],
    hooks: () => ({
      request: (request) => ({
        ...request,
        body: new TextEncoder().encode(Buffer.from(request.body).toString('latin1')),
      }),
    }),
  },
  {
    id: 'framing-content-length-in-chars',
    taxonomyClass: 'framing',
    models: "Content-Length set from the string's length, not its UTF-8 bytes: non-ASCII answers are cut short",
    adds: "res.setHeader('Content-Length', body.length)",
    witness: [post({ name: 'café' })],
    hooks: () => ({ response: (response) => withHeader(response, 'Content-Length', String(response.body.length)) }),
  },
  {
    id: 'framing-json-sent-as-html',
    taxonomyClass: 'framing',
    models: 'Express res.send(JSON.stringify(x)) answers successes as text/html',
    adds: 'res.status(201).send(JSON.stringify(category))',
    witness: [{}],
    hooks: () => ({
      response: (response) =>
        response.status < 300 ? withHeader(response, 'Content-Type', 'text/html; charset=utf-8') : response,
    }),
  },
];
