import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setupPetstoreServer, unhandledRequests } from '../../mocks/node.js';
import { createFixedClock } from '../../src/core/clock.js';
import { headDocument } from '../support/head-document.js';

// HEAD through the MSW handlers in Node, seen by the global fetch (RFC 9110 §9.3.2): the GET answer's
// head with the Content-Length of the body it leaves out, 401 and 429 as GET, 405 with Allow on a path
// without GET, and a document's own `head` operation. interface-rules.case.ts runs the Petstore's
// HEAD cases on MSW too (through getResponse); this file goes through msw's interceptor.

const origin = 'https://api.head-msw.example';
const { server, controls } = setupPetstoreServer({
  spec: headDocument,
  seed: 3,
  baseUrl: `${origin}/v1`,
  clock: createFixedClock(Date.parse('2026-03-01T12:00:00Z')),
  config: { keys: [{ key: 'tiny-head-key', limits: { perMinute: 2, perDay: 100 } }] },
});

beforeAll(() => server.listen(unhandledRequests('error')));
afterAll(() => server.close());
beforeEach(() => controls.reset());

const send = (path: string, method: string, key: string | null = 'demo-pro') =>
  fetch(`${origin}/v1${path}`, { method, headers: key === null ? {} : { authorization: `Bearer ${key}` } });

describe('HEAD through MSW in Node', () => {
  it('is the GET answer without content: status, headers, the Content-Length of its UTF-8 body', async () => {
    const get = await send('/things', 'GET');
    const text = await get.text();
    const head = await send('/things', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(new TextEncoder().encode(text).byteLength));
    expect(head.headers.get('x-ratelimit-limit')).toBe(get.headers.get('x-ratelimit-limit'));
    expect(Number(head.headers.get('x-ratelimit-remaining'))).toBe(
      Number(get.headers.get('x-ratelimit-remaining')) - 1,
    );
    expect(head.body).toBeNull();
    expect(await head.text()).toBe('');
  });

  it('refuses HEAD without a key (401) and past the budget (429, Retry-After) as GET', async () => {
    const anonymous = await send('/things', 'HEAD', null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await anonymous.text()).toBe('');
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let sent = 0; sent < 3; sent += 1) {
      last = await send('/things', 'HEAD', 'tiny-head-key');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last!.text()).toBe('');
  });

  it('answers 405 with Allow on a path without GET, and the document’s own head operation where it has one', async () => {
    const post = await send('/uploads', 'HEAD');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('POST');
    expect(await post.text()).toBe('');
    const own = await send('/files/7', 'HEAD');
    expect(own.status).toBe(204);
    expect(own.headers.get('x-file-size')).toBe('42');
    const log = (await controls.requests()).map((entry) => [entry.method, entry.operationId, entry.status]);
    expect(log).toEqual([
      ['HEAD', null, 405],
      ['HEAD', 'headFile', 204],
    ]);
  });
});
