#!/usr/bin/env node
// The ceiling of the benchmark: a node:http server that answers every request with the same
// status, headers and body as the mock gives for one bench case, with no logic at all (no routing,
// no auth, no JSON parsing). Plain JavaScript on purpose: it runs on bare `node` with no loader, so
// neither its throughput, its memory nor its start-up time pays for TypeScript.
//
// Usage: node bench/bare-server.mjs --port N [--case get|post|401|429] [--responses FILE]
//   --responses  JSON {caseId: {status, headers: [[name, value], ...], body}} captured from the mock
//                by run-bench.ts; without it the built-in copies below are served.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const expose =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Deprecation, Sunset, Allow';
const list =
  '[{"id":1,"name":"giraffe","description":"A cognatus arca aliquam audentia coniuratio crux fugit."},{"id":2,"name":"giraffe","description":"Bardus utrimque acsi spargo cur laboriosam aqua avaritia."},{"id":3,"name":"sea lion","description":"Combibo stultus utor varius ago adflicto assentator utrimque altus curiositas."}]';

/** @typedef {{ status: number, headers: [string, string][], body: string }} CannedResponse */

/** Copies of the mock's answers (seed 1), used when no `--responses` file is given. */
/** @type {Record<string, CannedResponse>} */
const builtIn = {
  get: {
    status: 200,
    headers: [
      ['X-RateLimit-Limit', '1000000'],
      ['X-RateLimit-Remaining', '999999'],
      ['X-RateLimit-Reset', '1795309848'],
      ['Content-Type', 'application/json'],
      ['Access-Control-Allow-Origin', '*'],
      ['Access-Control-Expose-Headers', expose],
    ],
    body: list,
  },
  post: {
    status: 201,
    headers: [
      ['X-RateLimit-Limit', '1000000'],
      ['X-RateLimit-Remaining', '999998'],
      ['X-RateLimit-Reset', '1795309848'],
      ['Location', '/v1/categories/4'],
      ['Content-Type', 'application/json'],
      ['Access-Control-Allow-Origin', '*'],
      ['Access-Control-Expose-Headers', expose],
    ],
    body: '{"id":4,"name":"bench","description":"x"}',
  },
  401: {
    status: 401,
    headers: [
      ['X-RateLimit-Limit', '100000000'],
      ['X-RateLimit-Remaining', '99999999'],
      ['X-RateLimit-Reset', '1795396189'],
      ['Content-Type', 'application/json'],
      ['Access-Control-Allow-Origin', '*'],
      ['Access-Control-Expose-Headers', expose],
    ],
    body: '{"code":"unauthorized","message":"Missing API key; send Authorization: Bearer <API_KEY>","status":401}',
  },
  429: {
    status: 429,
    headers: [
      ['X-RateLimit-Limit', '1'],
      ['X-RateLimit-Remaining', '0'],
      ['X-RateLimit-Reset', '1795396189'],
      ['Retry-After', '86400'],
      ['Content-Type', 'application/json'],
      ['Access-Control-Allow-Origin', '*'],
      ['Access-Control-Expose-Headers', expose],
    ],
    body: '{"code":"rate_limited","message":"Rate limit exceeded; retry after 86400 seconds and back off exponentially","status":429}',
  },
};

function fail(message) {
  process.stderr.write(`bare-server: ${message}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: { port: { type: 'string' }, case: { type: 'string' }, responses: { type: 'string' } },
    strict: true,
  }));
} catch (error) {
  fail(error.message);
}

let canned = builtIn;
if (values.responses) {
  try {
    canned = JSON.parse(readFileSync(values.responses, 'utf8'));
  } catch (error) {
    fail(`Failed to read responses ${values.responses}: ${error.message}`);
  }
}
const caseId = values.case ?? 'get';
const chosen = canned[caseId];
if (!chosen) fail(`Failed to pick a response: unknown case "${caseId}" (known: ${Object.keys(canned).join(', ')})`);
const port = Number(values.port ?? '0');
if (!Number.isInteger(port) || port < 0 || port > 65_535)
  fail(`--port must be an integer from 0 to 65535, got "${values.port}"`);

// Everything is computed once: per request the server only writes these bytes. The body stays a
// string on purpose: node:http then sends status line, headers and body in one write(), while a
// Buffer body goes out as a corked writev of two chunks, measured 30-50% slower on this machine
// (see docs/decisions/004-performance.md). The ceiling must be the fastest way to send the bytes.
const body = chosen.body;
const headers = Object.fromEntries(chosen.headers);
headers['Content-Length'] = String(Buffer.byteLength(body, 'utf8'));
const status = chosen.status;

const server = createServer((request, response) => {
  const send = () => {
    response.writeHead(status, headers);
    response.end(body, 'utf8');
  };
  // A request with a body is read to its end first, as any real server (and the mock) must.
  if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) {
    send();
  } else {
    request.on('end', send);
    request.resume();
  }
});
server.on('error', (error) => fail(`Failed to listen on 127.0.0.1:${port}: ${error.message}`));
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`bare-server (${caseId}) listening on http://127.0.0.1:${server.address().port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
