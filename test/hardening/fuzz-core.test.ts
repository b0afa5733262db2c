import { validateHeaderName, validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { MockRequest, MockResponse } from '../../src/core/types.js';
import { createCoreApp } from './support/core-app.js';
import { errorShapeProblems } from './support/error-shape.js';
import { fuzzRuns, fuzzSeed } from './support/fuzz-budget.js';
import { prototypeChanges, snapshotPrototypes } from './support/prototype-guard.js';
import {
  deepBodies,
  headerNameArbitrary,
  headerValueArbitrary,
  methodArbitrary,
  smallBodyArbitrary,
  targetArbitrary,
} from './support/request-arbitraries.js';

/**
 * Property-based fuzzing of the behaviour core without a transport (issue 6, "Fuzz"): thousands
 * of hostile MockRequests per second, including what only another transport (MSW, a test) could
 * hand it, such as client addresses a loopback socket never has. Every answer is a valid HTTP
 * answer that node:http can write, never a 5xx, errors are Error objects, nothing throws.
 */
// `npm run fuzz` gives 20 times the runs and a seed of the day (support/fuzz-budget.ts).
const seed = fuzzSeed(20_260_614);
const numRuns = fuzzRuns(5_000);
let tried = 0;
const prototypesBefore = snapshotPrototypes();

afterAll(() => {
  console.log(`[hardening] core fuzz seed ${seed}: ${tried} requests handed to app.handle`);
});

// What node:http can deliver in a header value: no CR, LF or NUL, one byte per character.
const deliverable = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

const mockRequestArbitrary: fc.Arbitrary<MockRequest> = fc
  .record({
    method: fc.oneof(methodArbitrary, fc.string({ maxLength: 30 })),
    url: fc.oneof(
      { weight: 4, arbitrary: targetArbitrary },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    ),
    authorization: fc.option(headerValueArbitrary.map(deliverable), { nil: undefined, freq: 3 }),
    headers: fc.array(
      fc.tuple(
        headerNameArbitrary.map((name) => name.toLowerCase()),
        headerValueArbitrary.map(deliverable),
      ),
      { maxLength: 10 },
    ),
    body: smallBodyArbitrary,
    bodyTooLarge: fc.option(fc.boolean(), { nil: undefined }),
    clientAddress: fc.option(
      fc.oneof(
        fc.constantFrom(
          '127.0.0.1',
          '::1',
          '::ffff:127.0.0.1',
          '10.1.2.3',
          '::ffff:10.0.0.1',
          'unknown',
          '',
          'localhost',
        ),
        fc.ipV4(),
        fc.ipV6(),
      ),
      { nil: undefined },
    ),
  })
  .map(({ authorization, headers, body, ...rest }) => ({
    ...rest,
    // Names are lower-case, as the core's contract says; the last duplicate wins, as when a transport flattens.
    headers: Object.fromEntries([
      ['authorization', authorization ?? 'Bearer demo-enterprise'],
      ['content-type', 'application/json'],
      ...headers,
    ]) as Record<string, string>,
    body: body === null ? null : new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
  }));

/** What is wrong with one response of the core, measured against what a transport must be able to send. */
function responseProblems(method: string, response: MockResponse): string[] {
  const problems: string[] = [];
  // HEAD: the head GET would have had, no content (RFC 9110 §9.3.2), the length it would have had.
  if (method === 'HEAD') {
    if (response.body !== null || response.bytes !== undefined) problems.push('a HEAD answered with content');
    const length = response.headers['Content-Length'];
    if (response.status !== 204 && response.status !== 304 && !/^\d+$/.test(length ?? ''))
      problems.push(`a HEAD answered without the Content-Length of its GET: ${length}`);
    if (response.status >= 500) problems.push(`a server error on HEAD (${response.status})`);
    return problems;
  }
  if (!Number.isInteger(response.status) || response.status < 100 || response.status > 599)
    problems.push(`status ${response.status} is not an HTTP status`);
  if (response.status >= 500) problems.push(`a server error: ${response.body ?? ''}`);
  for (const [name, value] of Object.entries(response.headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch (error) {
      problems.push(`header ${JSON.stringify(name)} cannot be written by node:http: ${(error as Error).message}`);
    }
  }
  if (response.body !== null) {
    try {
      JSON.parse(response.body);
    } catch {
      problems.push(`the body is not JSON: ${response.body.slice(0, 80)}`);
    }
  }
  if ((response.status === 204 || response.status === 304) && response.body !== null)
    problems.push(`a ${response.status} with a body`);
  if (response.status >= 400)
    problems.push(
      ...errorShapeProblems({
        status: response.status,
        contentType: response.headers['Content-Type'],
        body: response.body,
      }),
    );
  return problems;
}

describe('fuzzing the behaviour core in-process', () => {
  // A budget nobody exhausts, so anonymous inputs reach routing and validation too.
  const app = createCoreApp({ anonymous: { perMinute: 1_000_000, perDay: 100_000_000 } });

  it('answers every MockRequest with a writable response, an Error body for errors, never a 5xx or a throw', async () => {
    await fc.assert(
      fc.asyncProperty(mockRequestArbitrary, async (request) => {
        tried += 1;
        const problems = responseProblems(request.method, await app.handle(request));
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      { seed, numRuns },
    );
    expect(prototypeChanges(prototypesBefore)).toEqual([]);
  });

  it('answers the deeply nested bodies with 400, not a stack overflow', async () => {
    // Kept out of the generator (each takes milliseconds to parse); checked once each here.
    for (const body of deepBodies) {
      tried += 1;
      const response = await app.handle({
        method: 'POST',
        url: '/v1/categories',
        headers: { authorization: 'Bearer demo-enterprise', 'content-type': 'application/json' },
        body: new Uint8Array(body),
        clientAddress: '127.0.0.1',
      });
      expect(responseProblems('POST', response)).toEqual([]);
    }
  });

  it('still creates and lists categories afterwards: the fuzzed state is usable', async () => {
    await app.controls.reset();
    const created = await app.handle({
      method: 'POST',
      url: '/v1/categories',
      headers: { authorization: 'Bearer demo-enterprise', 'content-type': 'application/json' },
      body: new TextEncoder().encode('{"name":"after"}'),
      clientAddress: '127.0.0.1',
    });
    expect(created.status).toBe(201);
    const list = await app.handle({
      method: 'GET',
      url: '/v1/categories',
      headers: { authorization: 'Bearer demo-enterprise' },
      body: null,
      clientAddress: '127.0.0.1',
    });
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body!)).toContainEqual(JSON.parse(created.body!));
  });
});
