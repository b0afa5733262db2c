import { expect } from 'vitest';
import type { MockConfigInput } from '../../src/core/config/mock-config.js';
import { expectError, expectRateLimitHeaders, type Received, type Sent } from '../support/interface-client.js';

/**
 * The interface's rules as ONE table of cases, run against every transport (the core, node:http,
 * MSW) and every store (memory, Redis) by `interface-rules.test.ts`, like hono's `common.case`
 * test runs one file against every router. A case talks to the mock only through `send`, so what
 * it asserts is what any client of any transport sees; a case that cannot hold on a transport
 * says why in `notFor` (it is then not defined there, rather than counted as skipped).
 *
 * Rules that depend on a factory option (the spec document, the seed, a client address) or on one
 * adapter (pipelining, MSW's URL matching, raw HTTP) stay beside that layer's code.
 */
export type TransportName = 'core' | 'node:http' | 'msw';

export interface CaseSent extends Sent {
  /** Send `path` from the origin instead of under the API's base path (`/v1`). Control paths (`/__mock/*`) always are. */
  fromOrigin?: boolean;
}

export interface CaseContext {
  send(method: string, path: string, sent?: CaseSent): Promise<Received>;
  /** The virtual clock of the mock at start, in ms (the tests' clock stands still). */
  startMs: number;
}

export interface RuleCase {
  name: string;
  /** The mock's config for this case, instead of `caseConfig` (not merged with it). */
  config?: MockConfigInput;
  /** Transports this case does not apply to, each with the reason (no test is defined there). */
  notFor?: Partial<Record<TransportName, string>>;
  /**
   * The mock breaks this rule today, for the reason given (reported, not fixed by a test change).
   * The case runs as `it.fails`: it turns red the day the mock is fixed, and the marker goes.
   */
  knownGap?: string;
  /** Why this case runs only in the default session (the runner also runs every case inside a named one). */
  defaultSessionOnly?: string;
  run(context: CaseContext): Promise<void>;
}

/** The config every transport's mock gets unless a case brings its own. */
export const caseConfig: MockConfigInput = {
  keys: [{ key: 'tiny-plan-key', limits: { perMinute: 3, perDay: 100 } }],
  ban: { enabled: true, threshold: 2, durationSeconds: 120 },
};
/** On a minute boundary, far from any real time. */
export const caseStartMs = Date.parse('2026-03-01T12:00:00Z');
const startSeconds = caseStartMs / 1000;
const startIso = new Date(caseStartMs).toISOString();

/** Where the default config seeds three categories; ids continue after them. */
const seededCount = 3;
const json = { 'content-type': 'application/json' };

async function listLength(send: CaseContext['send']): Promise<number> {
  return ((await send('GET', '/categories', { key: 'demo-pro' })).json as unknown[]).length;
}

async function repeat(times: number, request: () => Promise<Received>): Promise<Received[]> {
  const answers: Received[] = [];
  for (let index = 0; index < times; index += 1) answers.push(await request());
  return answers;
}

const authentication: RuleCase[] = [
  ...(
    [
      ['no Authorization header', {}, 'Missing API key; send Authorization: Bearer <API_KEY>'],
      [
        'another scheme',
        { headers: { authorization: 'Basic ZGVtbzpmcmVl' } },
        /^Unsupported authorization scheme Basic/,
      ],
      ['Bearer without a token', { headers: { authorization: 'Bearer' } }, /^Malformed Authorization header/],
      ['a token with spaces', { headers: { authorization: 'Bearer demo free' } }, /^Malformed Authorization header/],
      ['an unknown key', { key: 'sk_nope' }, 'Invalid API key'],
    ] as const
  ).map(([what, auth, message]) => ({
    name: `§5 401 with an Error and X-RateLimit-* for ${what}, on every operation`,
    async run({ send }: CaseContext) {
      for (const [method, path] of [
        ['GET', '/categories'],
        ['POST', '/categories'],
        ['GET', '/pets/1'],
        ['GET', '/store/orders'],
      ] as const) {
        const response = await send(method, path, { ...auth, json: method === 'POST' ? { name: 'dog' } : undefined });
        expectError(response, 401, 'unauthorized', message);
        expectRateLimitHeaders(response);
      }
      // A refused create stores nothing.
      expect(await listLength(send)).toBe(seededCount);
    },
  })),
  {
    name: '§5 the scheme word is case-insensitive (RFC 9110)',
    async run({ send }) {
      for (const scheme of ['bearer', 'BEARER', 'Bearer'])
        expect(
          (await send('GET', '/categories', { headers: { authorization: `${scheme} demo-pro` } })).status,
          scheme,
        ).toBe(200);
    },
  },
  {
    name: '§5 §8 requests without a valid key count against the anonymous budget of the client, up to a 429',
    config: { anonymous: { perMinute: 2, perDay: 100 } },
    async run({ send }) {
      const first = await send('GET', '/categories');
      expectError(first, 401, 'unauthorized');
      expect(first.headers['x-ratelimit-limit']).toBe('2');
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect((await send('GET', '/categories', { key: 'sk_nope' })).headers['x-ratelimit-remaining']).toBe('0');
      const limited = await send('GET', '/categories');
      expectError(limited, 429, 'rate_limited');
      expect(limited.headers['retry-after']).toBe('60');
      // A valid key has a budget of its own.
      expect((await send('GET', '/categories', { key: 'demo-free' })).status).toBe(200);
    },
  },
  {
    name: '§5 the Prefer header does not get past authentication',
    async run({ send }) {
      expectError(await send('GET', '/categories', { headers: { prefer: 'code=200' } }), 401, 'unauthorized');
      expectError(
        await send('POST', '/categories', { key: 'sk_nope', headers: { prefer: 'code=201' }, json: { name: 'x' } }),
        401,
        'unauthorized',
      );
    },
  },
];

const categories: RuleCase[] = [
  {
    name: '§4 listCategories: 200 with the seeded Category list and X-RateLimit-* for a valid key',
    async run({ send }) {
      const response = await send('GET', '/categories', { key: 'demo-free' });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json).toHaveLength(seededCount);
      for (const category of response.json)
        expect(category).toEqual({ id: expect.any(Number), name: expect.any(String), description: expect.any(String) });
      expectRateLimitHeaders(response);
      expect(response.headers['x-ratelimit-limit']).toBe('60');
      expect(response.headers['x-ratelimit-remaining']).toBe('59');
      expect(response.headers['x-ratelimit-reset']).toBe(String(startSeconds + 60));
    },
  },
  {
    name: '§4 createCategory: 201 with the Category, the next id and Location, listed afterwards in order',
    async run({ send }) {
      const created = await send('POST', '/categories', {
        key: 'demo-pro',
        json: { name: 'dog', description: 'Good boys' },
      });
      expect(created.status).toBe(201);
      expect(created.json).toEqual({ id: seededCount + 1, name: 'dog', description: 'Good boys' });
      expect(created.headers.location).toBe(`/v1/categories/${seededCount + 1}`);
      expectRateLimitHeaders(created);
      const second = await send('POST', '/categories', { key: 'demo-pro', json: { name: 'cat' } });
      expect(second.json).toEqual({ id: seededCount + 2, name: 'cat' });
      const listed = await send('GET', '/categories', { key: 'demo-pro' });
      expect(listed.json).toHaveLength(seededCount + 2);
      expect(listed.json.slice(-2)).toEqual([created.json, second.json]);
    },
  },
  {
    name: '§4 rule 2: ids are unique, for equal names and for 200 concurrent creates',
    async run({ send }) {
      const sequential = await repeat(3, () =>
        send('POST', '/categories', { key: 'demo-enterprise', json: { name: 'dog' } }),
      );
      const concurrent = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          send('POST', '/categories', { key: 'demo-enterprise', json: { name: `c${index}` } }),
        ),
      );
      const created = [...sequential, ...concurrent];
      expect(created.map((response) => response.status)).toEqual(created.map(() => 201));
      const ids = created.map((response) => response.json.id as number);
      expect(new Set(ids).size).toBe(203);
      const listed = (await send('GET', '/categories', { key: 'demo-enterprise' })).json as { id: number }[];
      expect(listed.map((category) => category.id)).toEqual(expect.arrayContaining(ids));
      expect(new Set(listed.map((category) => category.id)).size).toBe(listed.length);
    },
  },
  {
    name: '§4 createCategory stores only the fields the spec declares (no id, no extras, no prototype keys)',
    async run({ send }) {
      const created = await send('POST', '/categories', {
        key: 'demo-free',
        headers: json,
        body: '{"name":"x","id":99,"admin":true,"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}',
      });
      expect(created.status).toBe(201);
      expect(created.json).toEqual({ id: seededCount + 1, name: 'x' });
      expect((await send('GET', '/categories', { key: 'demo-free' })).json.at(-1)).toEqual({
        id: seededCount + 1,
        name: 'x',
      });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  },
  ...(
    [
      ['no body', { headers: json }, 'body_required', /body is required/],
      ['an empty body', { body: '', headers: json }, 'body_required', /body is required/],
      ['a blank body', { body: '  \n', headers: json }, 'body_required', /blank/],
      [
        'malformed JSON',
        { body: '{"name": "dog"', headers: json },
        'malformed_json',
        /^Invalid request body: malformed JSON/,
      ],
      [
        'invalid UTF-8',
        { body: new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: json },
        'malformed_json',
        /UTF-8/,
      ],
      [
        'a JSON array',
        { json: [{ name: 'dog' }] },
        'validation_failed',
        'Invalid request body: the body must be a JSON object, got an array',
      ],
      ['a JSON string', { json: 'dog' }, 'validation_failed', /must be a JSON object, got string/],
      ['JSON null', { body: 'null', headers: json }, 'validation_failed', /got null/],
      ['no name', { json: { description: 'x' } }, 'validation_failed', 'Invalid request body: name is required'],
      ['a null name', { json: { name: null } }, 'validation_failed', /name: expected string, received null/],
      [
        'a numeric name',
        { json: { name: 5 } },
        'validation_failed',
        /^Invalid request body: name: expected string, received number/,
      ],
      [
        'a non-string description',
        { json: { name: 'dog', description: ['x'] } },
        'validation_failed',
        /^Invalid request body: description: expected string/,
      ],
      [
        'deeply nested JSON',
        { body: `{"name":"x","description":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, headers: json },
        'validation_failed',
        /description/,
      ],
    ] as [string, Sent, string, string | RegExp][]
  ).map(([what, sent, code, message]) => ({
    name: `§4 rule 1: 400 ${code} naming the problem for ${what}; nothing stored`,
    async run({ send }: CaseContext) {
      const response = await send('POST', '/categories', { key: 'demo-free', ...sent });
      expectError(response, 400, code, message);
      expectRateLimitHeaders(response);
      expect(await listLength(send)).toBe(seededCount);
    },
  })),
  {
    name: '§4 415 unsupported_media_type for a body that is not UTF-8 JSON, or has no Content-Type',
    async run({ send }) {
      for (const contentType of [
        'text/plain;charset=UTF-8',
        'application/x-www-form-urlencoded',
        'application/json; charset=iso-8859-1',
      ]) {
        const response = await send('POST', '/categories', {
          key: 'demo-free',
          body: '{"name":"dog"}',
          headers: { 'content-type': contentType },
        });
        expectError(response, 415, 'unsupported_media_type');
        expectRateLimitHeaders(response);
      }
      // Bytes, not a string: fetch adds text/plain to a string body.
      expectError(
        await send('POST', '/categories', { key: 'demo-free', body: new TextEncoder().encode('{"name":"dog"}') }),
        415,
        'unsupported_media_type',
      );
      expect(await listLength(send)).toBe(seededCount);
    },
  },
  {
    name: '§4 accepts JSON with a UTF-8 charset and +json media types',
    async run({ send }) {
      const utf8 = await send('POST', '/categories', {
        key: 'demo-free',
        body: '{"name":"ü"}',
        headers: { 'content-type': 'application/json; charset=UTF-8' },
      });
      expect(utf8.status).toBe(201);
      expect(utf8.json.name).toBe('ü');
      expect(
        (
          await send('POST', '/categories', {
            key: 'demo-free',
            body: '{"name":"y"}',
            headers: { 'content-type': 'application/vnd.petstore+json' },
          })
        ).status,
      ).toBe(201);
    },
  },
  {
    name: '413 payload_too_large with X-RateLimit-* for a body over maxBodyBytes (counted), a body of exactly the limit is served',
    config: { maxBodyBytes: 64 },
    notFor: {
      core: 'the transport enforces maxBodyBytes and flags the request; the core answers 413 for that flag (src/core/mock-app.test.ts)',
    },
    async run({ send }) {
      const tooLarge = await send('POST', '/categories', { key: 'demo-free', json: { name: 'x'.repeat(100) } });
      expectError(tooLarge, 413, 'payload_too_large');
      expectRateLimitHeaders(tooLarge);
      expect(tooLarge.headers['x-ratelimit-remaining']).toBe('59');
      const exact = JSON.stringify({ name: 'y'.repeat(64 - '{"name":""}'.length) });
      expect(exact.length).toBe(64);
      expect((await send('POST', '/categories', { key: 'demo-free', body: exact, headers: json })).status).toBe(201);
      expect(await listLength(send)).toBe(seededCount + 1);
    },
  },
];

const routing: RuleCase[] = [
  {
    name: '404 not_found for an unknown path under /v1, 405 method_not_allowed with Allow for a known path',
    async run({ send }) {
      const unknown = await send('GET', '/dogs', { key: 'demo-pro' });
      expectError(unknown, 404, 'not_found');
      expectError(await send('GET', '', { key: 'demo-pro' }), 404, 'not_found');
      for (const [method, path, allow] of [
        ['DELETE', '/categories', 'GET, HEAD, POST'],
        ['PUT', '/categories', 'GET, HEAD, POST'],
        ['PUT', '/pets/3', 'GET, HEAD'],
      ] as const) {
        const wrong = await send(method, path, { key: 'demo-pro' });
        expectError(wrong, 405, 'method_not_allowed');
        expect(wrong.headers.allow).toBe(allow);
      }
    },
  },
  {
    name: '404 not_found naming the base path for a path outside /v1',
    notFor: {
      msw: 'the MSW handlers take only /v1/* and /__mock/*; anything else goes to the network (mocks/handlers.test.ts)',
    },
    async run({ send }) {
      const outside = await send('GET', '/categories', { key: 'demo-pro', fromOrigin: true });
      expectError(outside, 404, 'not_found', /served under \/v1/);
      expectRateLimitHeaders(outside);
    },
  },
  {
    name: 'a trailing slash and the query string do not change the operation',
    async run({ send }) {
      const response = await send('GET', '/categories/?page=2', { key: 'demo-pro' });
      expect(response.status).toBe(200);
      expect(response.json).toHaveLength(seededCount);
    },
  },
  {
    name: 'GET /pets/{petId} and GET /store/orders answer 200 with JSON for a valid key',
    async run({ send }) {
      for (const path of ['/pets/42', '/store/orders']) {
        const response = await send('GET', path, { key: 'demo-free' });
        expect(response.status, path).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expectRateLimitHeaders(response);
      }
    },
  },
  {
    name: 'a CORS preflight is answered 204 without counting, reporting the anonymous budget',
    async run({ send }) {
      const preflight = await send('OPTIONS', '/categories', {
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      expect(preflight.headers['access-control-allow-headers']).toBe('authorization, content-type');
      expect(preflight.headers['x-ratelimit-limit']).toBe('60');
      expect(preflight.headers['x-ratelimit-remaining']).toBe('60');
      expect((await send('GET', '/categories')).headers['x-ratelimit-remaining']).toBe('59');
    },
  },
];

/** HEAD is GET without content (RFC 9110 §9.3.2): the same answer, head for head, and counted like it. */
const head: RuleCase[] = [
  {
    name: 'HEAD is the GET answer without content: status, headers, the Content-Length of its body; counted',
    async run({ send }) {
      for (const path of ['/categories', '/pets/1', '/store/orders']) {
        const get = await send('GET', path, { key: 'demo-pro' });
        const answer = await send('HEAD', path, { key: 'demo-pro' });
        expect(answer.status, path).toBe(get.status);
        expect(answer.text, path).toBe('');
        expect(answer.headers['content-length'], path).toBe(String(new TextEncoder().encode(get.text).byteLength));
        for (const name of ['content-type', 'x-ratelimit-limit', 'deprecation', 'sunset', 'link'])
          expect(answer.headers[name], `${path} ${name}`).toBe(get.headers[name]);
        // Counted against the key as the GET before it was: one request less in the window.
        expect(Number(answer.headers['x-ratelimit-remaining']), path).toBe(
          Number(get.headers['x-ratelimit-remaining']) - 1,
        );
      }
    },
  },
  {
    name: 'HEAD without a key is the GET refusal without content: 401, WWW-Authenticate, X-RateLimit-*',
    async run({ send }) {
      const get = await send('GET', '/categories');
      const answer = await send('HEAD', '/categories');
      expect([get.status, answer.status]).toEqual([401, 401]);
      expect(answer.text).toBe('');
      expect(answer.headers['www-authenticate']).toBe(get.headers['www-authenticate']);
      expect(answer.headers['content-type']).toBe(get.headers['content-type']);
      expect(answer.headers['content-length']).toBe(String(new TextEncoder().encode(get.text).byteLength));
      expectRateLimitHeaders(answer);
      expect((await send('HEAD', '/categories', { key: 'nope' })).status).toBe(401);
    },
  },
  {
    name: 'HEAD spends the budget: 429 with Retry-After once the window is spent, then the ban',
    async run({ send }) {
      const answers = await repeat(5, () => send('HEAD', '/categories', { key: 'tiny-plan-key' }));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429]);
      expect(answers.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
      for (const answer of answers.slice(3)) {
        expect(answer.text).toBe('');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
      // Banned by HEADs alone (threshold 2): the GET is refused too, and says why.
      const get = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expectError(get, 429, 'key_banned');
    },
  },
  {
    name: 'HEAD meets a forced answer and a fault as GET would (Prefer), without content',
    async run({ send }) {
      const forced = await send('HEAD', '/categories', { key: 'demo-pro', headers: { prefer: 'code=418' } });
      const get = await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'code=418' } });
      expect([forced.status, forced.text]).toEqual([get.status, '']);
      expect(forced.headers['content-length']).toBe(String(new TextEncoder().encode(get.text).byteLength));
      const fault = await send('HEAD', '/categories', {
        key: 'demo-pro',
        headers: { prefer: 'fault=status, code=503' },
      });
      expect([fault.status, fault.text]).toEqual([503, '']);
    },
  },
];

const rateLimits: RuleCase[] = [
  {
    name: '§8 X-RateLimit-* on every response: 200, 201, 204, 400 (body, Prefer), 401, 404, 405, 415, 429 (limited, banned, forced) (413: its own case)',
    async run({ send }) {
      const responses = [
        await send('GET', '/categories', { key: 'demo-pro' }),
        await send('GET', '/pets/1', { key: 'demo-pro' }),
        await send('POST', '/categories', { key: 'demo-pro', json: { name: 'x' } }),
        await send('OPTIONS', '/categories', {
          headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
        }),
        await send('POST', '/categories', { key: 'demo-pro', json: {} }),
        await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'code=418' } }),
        await send('GET', '/categories', { key: 'nope' }),
        await send('GET', '/nothing', { key: 'demo-pro' }),
        await send('DELETE', '/categories', { key: 'demo-pro' }),
        await send('POST', '/categories', { key: 'demo-pro', body: 'x', headers: { 'content-type': 'text/plain' } }),
        await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'code=429' } }),
        ...(await repeat(6, () => send('GET', '/categories', { key: 'tiny-plan-key' }))).slice(3),
      ];
      expect(responses.map((response) => response.status)).toEqual([
        200, 200, 201, 204, 400, 400, 401, 404, 405, 415, 429, 429, 429, 429,
      ]);
      expect(responses.slice(-3).map((response) => response.json.code)).toEqual([
        'rate_limited',
        'rate_limited',
        'key_banned',
      ]);
      for (const response of responses) expectRateLimitHeaders(response);
    },
  },
  {
    name: '§8 X-RateLimit-* on the session errors too: 400 invalid_session, 503 too_many_sessions',
    config: { ...caseConfig, sessions: { maxSessions: 1, idleSeconds: 3600 } },
    async run({ send }) {
      const invalid = await send('GET', '/categories', {
        key: 'demo-pro',
        headers: { 'x-mock-session': 'not a name' },
      });
      expectError(invalid, 400, 'invalid_session');
      expect(
        (await send('GET', '/categories', { key: 'demo-pro', headers: { 'x-mock-session': 'first' } })).status,
      ).toBe(200);
      const full = await send('GET', '/categories', { key: 'demo-pro', headers: { 'x-mock-session': 'second' } });
      expectError(full, 503, 'too_many_sessions');
      expect(full.headers['retry-after']).toMatch(/^\d+$/);
      for (const response of [full, invalid]) expectRateLimitHeaders(response);
    },
  },
  {
    name: '§8 the Free plan: 60 a minute counted down, then 429 rate_limited with Retry-After, Remaining 0 and Reset; a new window after it',
    config: { ban: { enabled: false } },
    async run({ send }) {
      const remaining = (await repeat(60, () => send('GET', '/categories', { key: 'demo-free' }))).map((response) =>
        Number(response.headers['x-ratelimit-remaining']),
      );
      expect(remaining).toEqual(Array.from({ length: 60 }, (_, index) => 59 - index));
      const limited = await send('GET', '/categories', { key: 'demo-free' });
      expectError(
        limited,
        429,
        'rate_limited',
        'Rate limit exceeded; retry after 60 seconds and back off exponentially',
      );
      expect(limited.headers).toMatchObject({
        'retry-after': '60',
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(startSeconds + 60),
      });
      // A refused request spends nothing: creating is refused too, and nothing is stored.
      expectError(await send('POST', '/categories', { key: 'demo-free', json: { name: 'late' } }), 429, 'rate_limited');
      // Another key of the same plan has its own budget.
      expect((await send('GET', '/categories', { key: 'demo-pro' })).json).toHaveLength(seededCount);
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 30 } });
      expect((await send('GET', '/categories', { key: 'demo-free' })).headers['retry-after']).toBe('30');
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 30 } });
      const again = await send('GET', '/categories', { key: 'demo-free' });
      expect(again.status).toBe(200);
      expect(again.headers['x-ratelimit-remaining']).toBe('59');
      expect(again.headers['x-ratelimit-reset']).toBe(String(startSeconds + 120));
    },
  },
  {
    name: '§8 the daily limit of the plan, reported when it is the tighter window',
    config: { ban: { enabled: false } },
    async run({ send }) {
      for (let minute = 0; minute < 17; minute += 1) {
        const count = Math.min(60, 1000 - minute * 60);
        const served = await Promise.all(
          Array.from({ length: count }, () => send('GET', '/categories', { key: 'demo-free' })),
        );
        expect(
          served.every((response) => response.status === 200),
          `minute ${minute}`,
        ).toBe(true);
        await send('POST', '/__mock/clock', { json: { advanceSeconds: 60 } });
      }
      const limited = await send('GET', '/categories', { key: 'demo-free' });
      expectError(limited, 429, 'rate_limited');
      expect(limited.headers).toMatchObject({
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(startSeconds + 86_400),
        'retry-after': String(86_400 - 17 * 60),
      });
    },
  },
  {
    name: '§8 each plan gets its limits: Free 60, Pro 300, Business 1000; a key with custom limits gets those',
    async run({ send }) {
      for (const [key, limit] of [
        ['demo-free', '60'],
        ['demo-pro', '300'],
        ['demo-business', '1000'],
        ['tiny-plan-key', '3'],
      ] as const) {
        expect((await send('GET', '/categories', { key })).headers['x-ratelimit-limit'], key).toBe(limit);
      }
    },
  },
  {
    name: '§8 rule 3: the default ban: ten 429s in a row are tolerated, the next request bans the key for 900 s, then it is back',
    config: { keys: [{ key: 'tiny-plan-key', limits: { perMinute: 3, perDay: 100 } }] },
    async run({ send }) {
      expect(
        (await repeat(3, () => send('GET', '/categories', { key: 'tiny-plan-key' }))).map(
          (response) => response.status,
        ),
      ).toEqual([200, 200, 200]);
      for (const response of await repeat(10, () => send('GET', '/categories', { key: 'tiny-plan-key' })))
        expectError(response, 429, 'rate_limited');
      const banned = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expectError(banned, 429, 'key_banned', 'Too many requests after a 429: this API key is banned for 900 seconds');
      expect(banned.headers['retry-after']).toBe('900');
      // A new minute does not lift a ban.
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 60 } });
      expectError(await send('GET', '/categories', { key: 'tiny-plan-key' }), 429, 'key_banned');
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 840 } });
      expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(200);
    },
  },
  {
    name: '§8 rule 3: a banned key is never served a 2xx, not even with Prefer or on another operation; the ban ends after its duration',
    config: {
      keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 100 } }],
      ban: { threshold: 3, durationSeconds: 600 },
    },
    async run({ send }) {
      expect((await send('GET', '/categories', { key: 'tiny' })).status).toBe(200);
      expect(
        (await repeat(3, () => send('GET', '/categories', { key: 'tiny' }))).map((response) => response.json.code),
      ).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
      const banned = await send('GET', '/categories', { key: 'tiny' });
      expectError(banned, 429, 'key_banned');
      expect(banned.headers).toMatchObject({
        'retry-after': '600',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(startSeconds + 600),
      });
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 120 } });
      expectError(
        await send('GET', '/categories', { key: 'tiny', headers: { prefer: 'code=200' } }),
        429,
        'key_banned',
      );
      expectError(await send('POST', '/categories', { key: 'tiny', json: { name: 'x' } }), 429, 'key_banned');
      expectError(await send('GET', '/pets/1', { key: 'tiny' }), 429, 'key_banned');
      expect((await send('GET', '/categories', { key: 'tiny' })).headers['retry-after']).toBe('480');
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 480 } });
      expect((await send('GET', '/categories', { key: 'tiny' })).status).toBe(200);
      expect(await listLength(send)).toBe(seededCount);
    },
  },
  {
    name: '§8 429 with Retry-After past the limit, a ban after the threshold, and a new window once the clock passes the minute',
    async run({ send, startMs }) {
      for (let index = 0; index < 3; index += 1)
        expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(200);
      const limited = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expectError(limited, 429, 'rate_limited');
      expect(limited.headers['retry-after']).toBe('60');
      const clock = await send('POST', '/__mock/clock', { json: { advanceSeconds: 60 } });
      expect(clock.json.offsetSeconds).toBe(60);
      const served = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expect(served.status).toBe(200);
      expect(served.headers['x-ratelimit-remaining']).toBe('2');
      expect(served.headers['x-ratelimit-reset']).toBe(String(clock.json.epochSeconds + 60));
      // Date follows the virtual clock.
      expect(Date.parse(served.headers.date!)).toBe(startMs + 60_000);
      for (let index = 0; index < 2; index += 1) await send('GET', '/categories', { key: 'tiny-plan-key' });
      expectError(await send('GET', '/categories', { key: 'tiny-plan-key' }), 429, 'rate_limited');
      expectError(await send('GET', '/categories', { key: 'tiny-plan-key' }), 429, 'rate_limited');
      const banned = await send('GET', '/categories', { key: 'tiny-plan-key' });
      expectError(banned, 429, 'key_banned');
      expect(banned.headers['retry-after']).toBe('120');
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 120 } });
      expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).status).toBe(200);
    },
  },
  {
    name: '§8 one clock: after the virtual clock moves a day and a minute, Date, X-RateLimit-Reset, Retry-After and the log agree',
    config: { keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 100 } }] },
    async run({ send, startMs }) {
      const movedMs = startMs + 86_460_000;
      const moved = await send('POST', '/__mock/clock', { json: { advanceSeconds: 86_460 } });
      expect(Date.parse(moved.headers.date!)).toBe(movedMs);
      const served = await send('GET', '/categories', { key: 'tiny' });
      expect(Date.parse(served.headers.date!)).toBe(movedMs);
      expect(served.headers['x-ratelimit-reset']).toBe(String(movedMs / 1000 + 60));
      const limited = await send('GET', '/categories', { key: 'tiny' });
      expect(Date.parse(limited.headers.date!)).toBe(movedMs);
      expect(Number(limited.headers['x-ratelimit-reset']) - movedMs / 1000).toBe(
        Number(limited.headers['retry-after']),
      );
      expect((await send('GET', '/__mock/requests')).json.at(-1).time).toBe(new Date(movedMs).toISOString());
    },
  },
  {
    name: '§8 IETF RateLimit fields are off by default: X-RateLimit-* only',
    async run({ send }) {
      const response = await send('GET', '/categories', { key: 'demo-free' });
      expect(response.headers['x-ratelimit-limit']).toBe('60');
      expect(response.headers.ratelimit).toBeUndefined();
      expect(response.headers['ratelimit-policy']).toBeUndefined();
    },
  },
  {
    name: '§8 IETF RateLimit fields next to X-RateLimit-* when configured: on success, errors, 429, 401 and preflights, exposed to CORS',
    config: {
      rateLimitHeaders: ['x-ratelimit', 'ietf'],
      keys: [{ key: 'tiny', limits: { perMinute: 2, perDay: 50 } }],
    },
    async run({ send }) {
      const first = await send('GET', '/categories', { key: 'tiny' });
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect(first.headers['ratelimit-policy']).toBe('"minute";q=2;w=60, "day";q=50;w=86400');
      expect(first.headers.ratelimit).toBe('"minute";r=1;t=60, "day";r=49;t=86400');
      expect(first.headers['access-control-expose-headers']).toMatch(
        /X-RateLimit-Limit.*, RateLimit, RateLimit-Policy$/,
      );
      expect((await send('GET', '/nope', { key: 'tiny' })).headers.ratelimit).toBe(
        '"minute";r=0;t=60, "day";r=48;t=86400',
      );
      const limited = await send('GET', '/categories', { key: 'tiny' });
      expect(limited.status).toBe(429);
      expect(limited.headers.ratelimit).toBe('"minute";r=0;t=60, "day";r=48;t=86400');
      const anonymous = await send('GET', '/categories');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['ratelimit-policy']).toMatch(/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
      const preflight = await send('OPTIONS', '/categories', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    },
  },
  {
    name: '§8 IETF RateLimit shows the reported window spent on a forced 429',
    config: { rateLimitHeaders: ['x-ratelimit', 'ietf'] },
    async run({ send }) {
      const forced = await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'code=429' } });
      expect(forced.status).toBe(429);
      expect(forced.headers['x-ratelimit-remaining']).toBe('0');
      expect(forced.headers.ratelimit).toBe('"minute";r=0;t=60, "day";r=999;t=86400');
    },
  },
];

const deprecation: RuleCase[] = [
  {
    name: '§9 GET /pets/{petId} carries RFC 9745 Deprecation and RFC 8594 Sunset from the spec; other operations carry neither',
    async run({ send }) {
      const response = await send('GET', '/pets/7', { key: 'demo-pro' });
      expect(response.status).toBe(200);
      expect(response.headers.deprecation).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
      expect(response.headers.sunset).toBe('Fri, 31 Dec 2027 23:59:59 GMT');
      for (const path of ['/categories', '/store/orders']) {
        const other = await send('GET', path, { key: 'demo-pro' });
        expect(other.headers.deprecation, path).toBeUndefined();
        expect(other.headers.sunset, path).toBeUndefined();
      }
    },
  },
  {
    name: '§9 deprecation dates from the config replace the spec placeholders',
    config: { deprecation: { getPetById: { deprecatedAt: '2026-06-01T00:00:00Z', sunset: '2026-12-31T00:00:00Z' } } },
    async run({ send }) {
      const response = await send('GET', '/pets/7', { key: 'demo-pro' });
      expect(response.headers.deprecation).toBe(`@${Date.parse('2026-06-01T00:00:00Z') / 1000}`);
      expect(response.headers.sunset).toBe('Thu, 31 Dec 2026 00:00:00 GMT');
    },
  },
];

const prefer: RuleCase[] = [
  {
    name: 'Prefer: code=429 answers the 429 shape with Retry-After and Remaining 0, without spending the budget or storing anything',
    async run({ send }) {
      const forced = await send('GET', '/categories', { key: 'demo-free', headers: { prefer: 'code=429' } });
      expectError(forced, 429, 'rate_limited', 'Forced by Prefer: code=429');
      expect(forced.headers).toMatchObject({ 'retry-after': '60', 'x-ratelimit-remaining': '0' });
      const created = await send('POST', '/categories', {
        key: 'demo-pro',
        headers: { prefer: 'code=429' },
        json: { name: 'x' },
      });
      expectError(created, 429, 'rate_limited');
      expect(created.headers['retry-after']).toBe('60');
      expect((await send('GET', '/categories', { key: 'demo-free' })).headers['x-ratelimit-remaining']).toBe('58');
      expect(await listLength(send)).toBe(seededCount);
    },
  },
  {
    name: 'Prefer: code=401 and code=400 force the catalogue errors and store nothing',
    async run({ send }) {
      expectError(
        await send('POST', '/categories', { key: 'demo-pro', headers: { prefer: 'code=401' }, json: { name: 'x' } }),
        401,
        'unauthorized',
      );
      expectError(
        await send('POST', '/categories', { key: 'demo-pro', headers: { prefer: 'code=400' }, json: { name: 'x' } }),
        400,
        'validation_failed',
      );
      expectError(
        await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'code=401' } }),
        401,
        'unauthorized',
      );
      expect(await listLength(send)).toBe(seededCount);
    },
  },
  {
    name: 'Prefer: example=<name> picks a named example of the response, with or without a code',
    async run({ send }) {
      const empty = await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'example=empty' } });
      expect(empty.status).toBe(200);
      expect(empty.json).toEqual([]);
      expect(
        (
          await send('POST', '/categories', {
            key: 'demo-pro',
            headers: { prefer: 'code=400, example=malformedJson' },
            json: { name: 'x' },
          })
        ).json,
      ).toMatchObject({ code: 'malformed_json', status: 400 });
      const named = await send('POST', '/categories', {
        key: 'demo-pro',
        headers: { prefer: 'example=nameOnly, code=201' },
        json: { name: 'x' },
      });
      expect(named.status).toBe(201);
      expect(named.json).toEqual({ id: expect.any(Number), name: expect.any(String) });
    },
  },
  {
    name: 'Prefer: code=<the normal success> serves the real state; dynamic=true generates from the schema',
    async run({ send }) {
      const created = await send('POST', '/categories', { key: 'demo-pro', json: { name: 'only' } });
      const forced = await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'code=200' } });
      expect(forced.status).toBe(200);
      expect(forced.json.at(-1)).toEqual(created.json);
      const dynamic = await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'dynamic=true' } });
      expect(dynamic.status).toBe(200);
      expect(Array.isArray(dynamic.json)).toBe(true);
      for (const category of dynamic.json)
        expect(category).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
    },
  },
  ...(
    [
      ['code=418', /code=418 is not declared for listCategories; declared: 200, 401, 429/],
      ['code=404', /code=404 is not declared for listCategories/],
      ['code=abc', /must be an HTTP status/],
      ['example=nope', /example=nope is not an example of listCategories 200; examples: default, empty/],
      ['cod=429', /unknown preference "cod"/],
      ['return=minimal, code=abc', /must be an HTTP status/],
      ['dynamic=maybe', /dynamic must be true or false/],
    ] as const
  ).map(([value, message]) => ({
    name: `Prefer: ${value} is refused with 400 invalid_prefer saying why`,
    async run({ send }: CaseContext) {
      const response = await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: value } });
      expectError(response, 400, 'invalid_prefer', message);
      expectRateLimitHeaders(response);
    },
  })),
  {
    name: 'Prefer: preferences registered by RFC 7240 that are not ours are ignored; ours next to them still count',
    async run({ send }) {
      const plain = await send('GET', '/categories', { key: 'demo-pro' });
      for (const value of [
        'return=minimal',
        'return=representation',
        'respond-async',
        'respond-async, wait=5',
        'handling=strict',
      ]) {
        const preferred = await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: value } });
        expect(preferred.status, value).toBe(200);
        expect(preferred.text, value).toBe(plain.text);
      }
      const created = await send('POST', '/categories', {
        key: 'demo-pro',
        json: { name: 'kept' },
        headers: { prefer: 'return=representation' },
      });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ name: 'kept' });
      expectError(
        await send('GET', '/categories', { key: 'demo-pro', headers: { prefer: 'handling=lenient, code=429' } }),
        429,
        'rate_limited',
      );
    },
  },
];

const controls: RuleCase[] = [
  {
    name: 'controls: GET /__mock/health reports readiness and the store bounds',
    async run({ send }) {
      const health = await send('GET', '/__mock/health');
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({
        status: 'ok',
        categories: { count: seededCount, maxCount: 10_000, maxBytes: 16 * 1024 * 1024 },
        dropped: { categories: 0 },
      });
    },
  },
  {
    name: 'controls: the virtual clock is read and advanced; a bad step is 400 invalid_control_request',
    async run({ send }) {
      expect((await send('GET', '/__mock/clock')).json).toEqual({
        now: startIso,
        epochSeconds: startSeconds,
        offsetSeconds: 0,
      });
      const advanced = await send('POST', '/__mock/clock', { json: { advanceSeconds: 90 } });
      expect(advanced.status).toBe(200);
      expect(advanced.json).toEqual({
        now: new Date(caseStartMs + 90_000).toISOString(),
        epochSeconds: startSeconds + 90,
        offsetSeconds: 90,
      });
      for (const step of [{ advanceSeconds: -1 }, { advanceSeconds: '60' }, { advanceSeconds: 1, rewind: true }, {}]) {
        expectError(await send('POST', '/__mock/clock', { json: step }), 400, 'invalid_control_request');
      }
      expect((await send('GET', '/__mock/clock')).json.offsetSeconds).toBe(90);
    },
  },
  {
    name: 'controls: keys added at run time, with a plan or custom limits, work at once and are listed masked; a second add updates',
    async run({ send }) {
      const added = await send('POST', '/__mock/keys', { json: { key: 'team-key-123456', plan: 'business' } });
      expect(added).toMatchObject({
        status: 201,
        json: { key: 'team…(15)', plan: 'business', limits: { perMinute: 1000, perDay: 100_000 } },
      });
      expect((await send('GET', '/categories', { key: 'team-key-123456' })).headers['x-ratelimit-limit']).toBe('1000');
      const custom = await send('POST', '/__mock/keys', {
        json: { key: 'custom-key-1', limits: { perMinute: 1, perDay: 10 } },
      });
      expect(custom).toMatchObject({ status: 201, json: { plan: 'custom', limits: { perMinute: 1, perDay: 10 } } });
      expect((await send('GET', '/categories', { key: 'custom-key-1' })).headers['x-ratelimit-limit']).toBe('1');
      expectError(await send('GET', '/categories', { key: 'custom-key-1' }), 429, 'rate_limited');
      const updated = await send('POST', '/__mock/keys', { json: { key: 'team-key-123456', plan: 'pro' } });
      expect(updated.status).toBe(200);
      expect((await send('GET', '/categories', { key: 'team-key-123456' })).headers['x-ratelimit-limit']).toBe('300');
      const listed = await send('GET', '/__mock/keys');
      expect((listed.json as { key: string }[]).map((entry) => entry.key)).toContain('team…(15)');
      expect(listed.text).not.toContain('team-key-123456');
      expect(listed.text).not.toContain('custom-key-1');
    },
  },
  {
    name: 'controls: a key with an unknown plan, even a name every object has, is 400 invalid_control_request',
    async run({ send }) {
      for (const plan of ['platinum', 'nope', 'constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        expectError(
          await send('POST', '/__mock/keys', { json: { key: `k-${plan}`, plan } }),
          400,
          'invalid_control_request',
        );
      }
      expectError(await send('POST', '/__mock/keys', { json: { plan: 'free' } }), 400, 'invalid_control_request');
      expectError(
        await send('POST', '/__mock/keys', { body: '{"key":', headers: json }),
        400,
        'invalid_control_request',
      );
    },
  },
  {
    name: 'controls: the request log lists recent requests, keys masked, control requests included',
    async run({ send }) {
      await send('GET', '/categories', { key: 'demo-business' });
      await send('GET', '/categories', { key: 'sk_live_secret_value' });
      const log = await send('GET', '/__mock/requests');
      expect(log.status).toBe(200);
      expect(log.json).toEqual([
        {
          time: startIso,
          method: 'GET',
          path: '/v1/categories',
          operationId: 'listCategories',
          plan: 'business',
          key: 'demo…(13)',
          status: 200,
          code: null,
        },
        {
          time: startIso,
          method: 'GET',
          path: '/v1/categories',
          operationId: 'listCategories',
          plan: 'anonymous',
          key: 'sk_l…(20)',
          status: 401,
          code: 'unauthorized',
        },
      ]);
      expect(log.text).not.toContain('sk_live_secret_value');
      await send('GET', '/__mock/health');
      expect(
        (await send('GET', '/__mock/requests')).json.map(
          (entry: { path: string; status: number }) => `${entry.path} ${entry.status}`,
        ),
      ).toEqual(['/v1/categories 200', '/v1/categories 401', '/__mock/requests 200', '/__mock/health 200']);
    },
  },
  {
    name: 'controls: reset brings back the seeded state: data, ids, counters, bans, keys added at run time and the log; the clock stays',
    config: { keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 5 } }], ban: { threshold: 1 } },
    async run({ send }) {
      const seeded = (await send('GET', '/categories', { key: 'demo-pro' })).json;
      await send('POST', '/categories', { key: 'demo-pro', json: { name: 'new' } });
      await send('POST', '/__mock/keys', { json: { key: 'run-time-key', plan: 'pro' } });
      await send('GET', '/categories', { key: 'tiny' });
      await send('GET', '/categories', { key: 'tiny' });
      expect((await send('GET', '/categories', { key: 'tiny' })).json.code).toBe('key_banned');
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 30 } });
      const reset = await send('POST', '/__mock/reset');
      expect(reset).toMatchObject({ status: 200, json: { reset: true, categories: seededCount } });
      expect((await send('GET', '/categories', { key: 'demo-pro' })).json).toEqual(seeded);
      expect((await send('GET', '/categories', { key: 'tiny' })).status).toBe(200);
      expectError(await send('GET', '/categories', { key: 'run-time-key' }), 401, 'unauthorized');
      // Documented: the clock stays (README, controls table), so a reset does not move time back.
      expect((await send('GET', '/__mock/clock')).json.offsetSeconds).toBe(30);
      expect((await send('POST', '/categories', { key: 'demo-pro', json: { name: 'again' } })).json.id).toBe(
        seededCount + 1,
      );
      expect((await send('GET', '/__mock/requests')).json.map((entry: { path: string }) => entry.path)).toEqual([
        '/__mock/reset',
        '/v1/categories',
        '/v1/categories',
        '/v1/categories',
        '/__mock/clock',
        '/v1/categories',
      ]);
    },
  },
  {
    name: 'controls are never counted against a rate limit and carry no X-RateLimit-*',
    config: { anonymous: { perMinute: 1, perDay: 1 } },
    async run({ send }) {
      for (const [method, path] of [
        ['GET', '/__mock/clock'],
        ['GET', '/__mock/health'],
        ['GET', '/__mock/keys'],
        ['GET', '/__mock/requests'],
        ['GET', '/__mock/clock'],
      ] as const) {
        const response = await send(method, path);
        expect(response.status, path).toBe(200);
        expect(response.headers['x-ratelimit-limit'], path).toBeUndefined();
      }
      const refused = await send('POST', '/__mock/clock', { json: { advanceSeconds: -1 } });
      expectError(refused, 400, 'invalid_control_request');
      expect(refused.headers['x-ratelimit-limit']).toBeUndefined();
      const first = await send('GET', '/categories');
      expect(first.status).toBe(401);
      expect(first.headers['x-ratelimit-remaining']).toBe('0');
    },
  },
  {
    name: 'controls: an unknown control is 404 not_found, a wrong method 405 with Allow',
    async run({ send }) {
      expectError(await send('GET', '/__mock/nothing'), 404, 'not_found');
      const wrong = await send('DELETE', '/__mock/clock');
      expectError(wrong, 405, 'method_not_allowed');
      expect(wrong.headers.allow).toBe('GET, POST');
      expectError(await send('DELETE', '/__mock/reset'), 405, 'method_not_allowed');
    },
  },
  {
    name: 'controls: an oversized control body is 413 payload_too_large',
    config: { maxBodyBytes: 64 },
    notFor: {
      core: 'the transport enforces maxBodyBytes and flags the request; the core answers 413 for that flag (src/core/mock-app.test.ts)',
    },
    async run({ send }) {
      expectError(
        await send('POST', '/__mock/keys', { json: { key: 'k'.repeat(100), plan: 'free' } }),
        413,
        'payload_too_large',
      );
      expect((await send('GET', '/__mock/keys')).text).not.toContain('kkkk');
    },
  },
  {
    name: 'controls: with a control token set, a request without it or with a wrong one is 403 control_forbidden',
    config: { controlToken: 's3cret' },
    async run({ send }) {
      expectError(await send('POST', '/__mock/reset'), 403, 'control_forbidden');
      expectError(
        await send('POST', '/__mock/reset', { headers: { 'x-mock-control-token': 'wrong' } }),
        403,
        'control_forbidden',
      );
      expectError(
        await send('GET', '/__mock/requests', { headers: { 'x-mock-control-token': 's3cre' } }),
        403,
        'control_forbidden',
      );
      expect((await send('POST', '/__mock/reset', { headers: { 'x-mock-control-token': 's3cret' } })).status).toBe(200);
      // The API itself does not need the token.
      expect((await send('GET', '/categories', { key: 'demo-pro' })).status).toBe(200);
    },
  },
  {
    name: 'controls refuse what a web page of another origin makes the browser send, and send no CORS headers',
    notFor: {
      msw: 'MSW runs in the page or the test process itself: a same-process caller is trusted by design (control-api.ts assertControlAccess)',
    },
    async run({ send }) {
      expectError(
        await send('POST', '/__mock/reset', { headers: { origin: 'https://evil.example' } }),
        403,
        'control_forbidden',
      );
      const local = await send('POST', '/__mock/reset', { headers: { origin: 'http://localhost:5173' } });
      expect(local.status).toBe(200);
      expect(local.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await send('OPTIONS', '/__mock/keys', {
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).not.toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    },
  },
];

const sessions: RuleCase[] = [
  {
    name: 'sessions: isolated data, ids, counters, bans, clock, keys and log; 400 invalid_session for a bad name',
    defaultSessionOnly: 'it checks the default session (requests without the header) against named ones',
    async run({ send }) {
      const inA = { 'x-mock-session': 'job-a' };
      const inB = { 'x-mock-session': 'job-b' };
      const created = await send('POST', '/categories', { key: 'demo-pro', json: { name: 'only-in-a' }, headers: inA });
      expect(created.status).toBe(201);
      expect(created.headers['x-mock-session']).toBe('job-a');
      const listedB = await send('GET', '/categories', { key: 'demo-pro', headers: inB });
      expect(listedB.json.map((category: { name: string }) => category.name)).not.toContain('only-in-a');
      // Same id in B: every session has its own sequence.
      expect((await send('POST', '/categories', { key: 'demo-pro', json: { name: 'b' }, headers: inB })).json.id).toBe(
        created.json.id,
      );
      for (let index = 0; index < 6; index += 1)
        await send('GET', '/categories', { key: 'tiny-plan-key', headers: inA });
      expectError(await send('GET', '/categories', { key: 'tiny-plan-key', headers: inA }), 429, 'key_banned');
      expect((await send('GET', '/categories', { key: 'tiny-plan-key', headers: inB })).status).toBe(200);
      expect((await send('GET', '/categories', { key: 'tiny-plan-key' })).headers['x-ratelimit-remaining']).toBe('2');
      await send('POST', '/__mock/clock', { json: { advanceSeconds: 600 }, headers: inA });
      expect((await send('GET', '/__mock/clock', { headers: inB })).json.offsetSeconds).toBe(0);
      expect((await send('GET', '/__mock/clock', { headers: inA })).json.offsetSeconds).toBe(600);
      await send('POST', '/__mock/keys', { json: { key: 'key-of-a', plan: 'free' }, headers: inA });
      expect((await send('GET', '/categories', { key: 'key-of-a', headers: inA })).status).toBe(200);
      expectError(await send('GET', '/categories', { key: 'key-of-a', headers: inB }), 401, 'unauthorized');
      expectError(await send('GET', '/categories', { key: 'key-of-a' }), 401, 'unauthorized');
      // Keys from the config and the demo keys exist in every session.
      expect(
        (await send('GET', '/categories', { key: 'demo-free', headers: { 'x-mock-session': 'job-c' } })).status,
      ).toBe(200);
      expect((await send('GET', '/__mock/requests', { headers: inB })).text).not.toContain('only-in-a');
      const sessions = await send('GET', '/__mock/sessions');
      expect(sessions.json.sessions.map((session: { name: string }) => session.name)).toEqual(
        expect.arrayContaining(['job-a', 'job-b', 'job-c', 'default']),
      );
      // Reset in A leaves B alone.
      await send('POST', '/__mock/reset', { headers: inA });
      expect((await send('GET', '/categories', { key: 'demo-pro', headers: inB })).json).toHaveLength(seededCount + 1);
      // The default session never saw any of it.
      expect(await listLength(send)).toBe(seededCount);
      for (const name of ['no spaces allowed', 'x'.repeat(200)]) {
        expectError(
          await send('GET', '/categories', { key: 'demo-pro', headers: { 'x-mock-session': name } }),
          400,
          'invalid_session',
        );
      }
    },
  },
];

export const ruleCases: RuleCase[] = [
  ...authentication,
  ...categories,
  ...routing,
  ...head,
  ...rateLimits,
  ...deprecation,
  ...prefer,
  ...controls,
  ...sessions,
];
