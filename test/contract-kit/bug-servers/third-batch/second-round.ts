import type { BugServer } from '../bug-server.js';
import { isCreate, isListing, serverError } from '../second-batch/helpers.js';
import { pathOf, requestJson, requestObject, withHeader, withoutRateHeaders, withRequestBody } from '../wire.js';
import { post } from '../witness.js';

/**
 * Third batch, second round (decision 054): after the first round was all caught, fifteen faults aimed at the
 * paths a middleware order skips (a parse error, a 404, HEAD, a 401 of one route), at values a lenient reader
 * takes (an array, a number, U+0000) and at an anonymous caller's 429. Two were in the corpus already
 * (methods-405-before-limiter, time-retry-after-in-milliseconds); the other thirteen are here. The kit missed one
 * in both profiles: time-address-429-without-retry-after (it never spends an address's budget to its 429).
 */
export const secondRoundBugs: readonly BugServer[] = [
  {
    id: 'limits-parse-error-before-limiter',
    taxonomyClass: 'limits',
    models: 'express.json() mounted before the limiter: its parse error answers 400 without X-RateLimit-*',
    adds: 'app.use(express.json()); app.use(errorHandler); app.use(rateLimit())',
    witness: [post(undefined, { text: '{"name":' })],
    hooks: () => ({
      response: (response, request) =>
        isCreate(request) && request.body.length > 0 && requestJson(request) === undefined && response.status === 400
          ? withoutRateHeaders(response)
          : response,
    }),
  },
  {
    id: 'limits-404-before-limiter',
    taxonomyClass: 'limits',
    models: 'the not-found handler answers unknown paths before the limiter runs: no X-RateLimit-* on a 404',
    adds: 'app.use(router); app.use(notFound) // limiter mounted on the router only',
    witness: [{ target: '/v1/nowhere' }],
    hooks: () => ({ response: (response) => (response.status === 404 ? withoutRateHeaders(response) : response) }),
  },
  {
    id: 'methods-head-skips-header-middleware',
    taxonomyClass: 'methods',
    models: "HEAD answered by the framework's automatic handler, which skips the app's header middleware",
    adds: 'app.head(*, (req, res) => res.end())',
    witness: [{ method: 'HEAD' }],
    hooks: () => ({
      response: (response, request) => (request.method === 'HEAD' ? withoutRateHeaders(response) : response),
    }),
  },
  {
    id: 'limits-first-request-of-window-uncounted',
    taxonomyClass: 'limits',
    models: 'a lazily created counter: the first request of a window sets count 1 but answers Remaining = limit',
    adds: "if (!entry) { store.set(key, 1); res.set('X-RateLimit-Remaining', limit) }",
    witness: [{}],
    hooks: () => {
      const firstSeen = new Set<string>();
      return {
        response: (response, request) => {
          const window = `${request.headers.authorization ?? request.client} ${response.headers['X-RateLimit-Reset']}`;
          if (response.status === 429 || firstSeen.has(window)) return response;
          firstSeen.add(window);
          return withHeader(response, 'X-RateLimit-Remaining', response.headers['X-RateLimit-Limit']);
        },
      };
    },
  },
  {
    id: 'values-list-join-duplicates',
    taxonomyClass: 'values',
    models: 'the list query LEFT JOINs a second table: a category with two rows there is listed twice',
    adds: 'SELECT c.* FROM categories c LEFT JOIN category_aliases a ON a.category_id = c.id',
    witness: [post({ name: 'Dog' }), {}],
    hooks: () => ({ list: (stored) => (stored.length === 0 ? stored : [...stored, stored[0]!]) }),
  },
  {
    id: 'values-nul-refused-by-postgres',
    taxonomyClass: 'values',
    models: 'PostgreSQL text refuses U+0000: an insert with a NUL in the name fails with 500',
    adds: 'await pg.query(INSERT ...) // invalid byte sequence for encoding "UTF8": 0x00',
    witness: [post({ name: 'a\u0000b' })],
    hooks: () => ({
      response: (response, request) => {
        const body = requestObject(request);
        const hasNul = [body?.name, body?.description].some((v) => typeof v === 'string' && v.includes('\u0000'));
        return isCreate(request) && response.status === 201 && hasNul
          ? serverError(response, 'invalid byte sequence for encoding "UTF8": 0x00')
          : response;
      },
    }),
  },
  {
    id: 'time-address-429-without-retry-after',
    taxonomyClass: 'time',
    models: 'the address limiter (for requests without a key) is another middleware that sends no Retry-After',
    adds: 'ipLimiter = rateLimit({ handler: (req, res) => res.status(429).json(...) })',
    witness: [{ as: 'anonymous', times: 121 }],
    hooks: () => ({
      response: (response, request) =>
        response.status === 429 && request.headers.authorization === undefined
          ? withHeader(response, 'Retry-After', undefined)
          : response,
    }),
  },
  {
    id: 'values-array-body-first-element',
    taxonomyClass: 'values',
    models: 'a bulk-friendly handler: an array body creates its first element',
    adds: 'const input = Array.isArray(req.body) ? req.body[0] : req.body',
    witness: [post([{ name: 'Dog' }])],
    hooks: () => ({
      request: (request) => {
        const value = requestJson(request);
        return isCreate(request) && Array.isArray(value) && value.length > 0
          ? withRequestBody(request, value[0])
          : request;
      },
    }),
  },
  {
    id: 'values-numbers-coerced-to-strings',
    taxonomyClass: 'values',
    models: 'a coercing validator (ajv coerceTypes) turns a number description into a string',
    adds: 'new Ajv({ coerceTypes: true })',
    witness: [post({ name: 'Dog', description: 5 })],
    hooks: () => ({
      request: (request) => {
        const body = requestObject(request);
        if (!isCreate(request) || body === undefined) return request;
        const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
        if (!scalar(body.name) && !scalar(body.description)) return request;
        const coerce = (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);
        return withRequestBody(request, { ...body, name: coerce(body.name), description: coerce(body.description) });
      },
    }),
  },
  {
    id: 'credentials-create-401-before-limiter',
    taxonomyClass: 'credentials',
    models:
      "the route's auth guard runs before the app-level limiter on POST only: a 401 to a create has no X-RateLimit-*",
    adds: "router.post('/categories', requireKey, ...) mounted before app.use(rateLimit())",
    witness: [post({ name: 'Dog' }, { as: 'anonymous' })],
    hooks: () => ({
      response: (response, request) =>
        response.status === 401 && isCreate(request) ? withoutRateHeaders(response) : response,
    }),
  },
  {
    id: 'keys-list-cached-to-next-second',
    taxonomyClass: 'keys and caching',
    models: 'the list is cached until the next whole second of the server clock',
    adds: 'cache.set("categories", rows, { ttl: msToNextSecond })',
    witness: [{}, post({ name: 'Dog' }), {}],
    hooks: ({ clock }) => {
      let cached: { second: number; body: string } | undefined;
      return {
        response: (response, request) => {
          if (!isListing(request) || response.status !== 200) return response;
          const second = Math.floor(clock.now() / 1000);
          if (cached?.second === second) return { ...response, body: cached.body };
          cached = { second, body: response.body };
          return response;
        },
      };
    },
  },
  {
    id: 'credentials-legacy-pet-route-without-key',
    taxonomyClass: 'credentials',
    models: 'the deprecated pet route is mounted on the legacy router, which has no auth guard',
    adds: "legacy.get('/pets/:id', getPet) // no requireKey",
    witness: [{ target: '/v1/pets/1', as: 'anonymous' }],
    hooks: () => ({
      response: (response, request) =>
        response.status === 401 && request.method === 'GET' && pathOf(request).startsWith('/v1/pets/')
          ? { ...response, status: 200, body: '{}' }
          : response,
    }),
  },
  {
    id: 'time-reset-fractional',
    taxonomyClass: 'time',
    models: 'X-RateLimit-Reset as windowEnd / 1000 without rounding: a fractional timestamp',
    adds: "res.set('X-RateLimit-Reset', String(windowEndMs / 1000 + 0.5))",
    witness: [{}],
    hooks: () => ({
      response: (response) => withHeader(response, 'X-RateLimit-Reset', `${response.headers['X-RateLimit-Reset']}.5`),
    }),
  },
];
