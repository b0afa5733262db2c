import { referenceKeys } from '../../reference/reference-server.js';
import type { BugServer } from '../bug-server.js';
import { isCreate, serverError } from '../second-batch/helpers.js';
import { bearerOf, requestJson, withErrorBody, withHeader, withRequestHeader } from '../wire.js';
import { post } from '../witness.js';

/**
 * Third batch, first round (decision 054): fifteen faults written down from what real backends ship before the
 * corpus's list was read, one line each over the whole interface, each breaking a rule the interface states. Five
 * were in the corpus already under the same id (time-reset-in-milliseconds, credentials-scheme-case-sensitive,
 * credentials-validation-before-auth, values-null-description-accepted, framing-charset-parameter-refused); the
 * other ten are here. The kit caught all fifteen before it changed.
 */

const knownKeys: readonly string[] = Object.values(referenceKeys);
const rateHeaderNames = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

export const firstFifteenBugs: readonly BugServer[] = [
  {
    id: 'limits-remaining-read-before-count',
    taxonomyClass: 'limits',
    models: 'the middleware reads the counter before incrementing it: Remaining is one more than what is left',
    adds: "res.set('X-RateLimit-Remaining', limit - countBefore)",
    witness: [{}],
    hooks: () => ({
      response: (response) => {
        if (response.status === 429) return response;
        const remaining = Number(response.headers['X-RateLimit-Remaining']);
        const limit = Number(response.headers['X-RateLimit-Limit']);
        return withHeader(response, 'X-RateLimit-Remaining', String(Math.min(limit, remaining + 1)));
      },
    }),
  },
  {
    id: 'methods-cors-preflight-before-limiter',
    taxonomyClass: 'methods',
    models: 'app.use(cors()) mounted before the limiter answers every OPTIONS 204 itself: no X-RateLimit-* on it',
    adds: 'app.use(cors()); app.use(rateLimit(...))',
    witness: [{ method: 'OPTIONS', as: 'anonymous', headers: { origin: 'https://a.example' } }],
    hooks: () => ({
      response: (response, request) => {
        if (request.method !== 'OPTIONS') return response;
        return {
          status: 204,
          headers: {
            Date: response.headers.Date ?? new Date().toUTCString(),
            'Access-Control-Allow-Origin': '*',
            'Access-Control-Allow-Methods': 'GET,HEAD,PUT,PATCH,POST,DELETE',
          },
          body: '',
        };
      },
    }),
  },
  {
    id: 'limits-headers-doubled-on-create',
    taxonomyClass: 'limits',
    models: 'the router and the app both run the limiter on POST: each X-RateLimit-* header sent twice, "300, 300"',
    adds: "router.post('/categories', rateLimit(...), create) under app.use(rateLimit(...))",
    witness: [post({ name: 'Dog' })],
    hooks: () => ({
      response: (response, request) => {
        if (!isCreate(request)) return response;
        let doubled = response;
        for (const name of rateHeaderNames) {
          const value = response.headers[name];
          if (value !== undefined) doubled = withHeader(doubled, name, `${value}, ${value}`);
        }
        return doubled;
      },
    }),
  },
  {
    id: 'values-list-omits-description',
    taxonomyClass: 'values',
    models: "the list query selects only the columns the index page shows: 'SELECT id, name FROM categories'",
    adds: "db.select('id', 'name').from('categories')",
    witness: [post({ name: 'Dog', description: 'Barks' }), {}],
    hooks: () => ({ list: (stored) => stored.map(({ id, name }) => ({ id, name })) }),
  },
  {
    id: 'keys-limited-per-address',
    taxonomyClass: 'keys and caching',
    models: "express-rate-limit's default keyGenerator (req.ip): every key from one address spends one budget",
    adds: 'rateLimit({ max: (req) => plan(req).perMinute }) // keyGenerator defaults to req.ip',
    witness: [{ as: 'limited' }, { as: 'main' }],
    hooks: () => ({
      decide: (take, bucket, request) => (bucket.startsWith('key:') ? take(`ip:${request.client}`) : take(bucket)),
    }),
  },
  {
    id: 'credentials-key-case-folded',
    taxonomyClass: 'credentials',
    models: 'keys looked up in a case-insensitive column (MySQL utf8mb4_general_ci): the key in upper case is accepted',
    adds: 'SELECT plan FROM api_keys WHERE key = ? -- collation _ci',
    witness: [{ as: { authorization: `Bearer ${referenceKeys.main.toUpperCase()}` } }],
    hooks: () => ({
      request: (request) => {
        const token = bearerOf(request);
        if (token === undefined || knownKeys.includes(token)) return request;
        const match = knownKeys.find((key) => key.toLowerCase() === token.toLowerCase());
        return match === undefined ? request : withRequestHeader(request, 'authorization', `Bearer ${match}`);
      },
    }),
  },
  {
    id: 'credentials-unknown-key-403',
    taxonomyClass: 'credentials',
    models: 'a key that is present but unknown gets 403 Forbidden; only a missing key gets 401',
    adds: 'if (!keys.has(token)) return res.status(403).json({ code: "forbidden", ... })',
    witness: [{ as: { authorization: 'Bearer not-a-key' } }],
    hooks: () => ({
      response: (response, request) =>
        response.status === 401 && request.headers.authorization !== undefined
          ? withErrorBody(response, 403, (error) => ({ ...error, code: 'forbidden', status: 403 }))
          : response,
    }),
  },
  {
    id: 'values-null-body-crashes',
    taxonomyClass: 'values',
    models: 'the handler reads req.body.name: a body of JSON null throws (Cannot read properties of null) and gets 500',
    adds: 'const { name, description } = req.body',
    witness: [post(null)],
    hooks: () => ({
      response: (response, request) =>
        isCreate(request) && request.body.length > 0 && requestJson(request) === null
          ? serverError(response, "Cannot read properties of null (reading 'name')")
          : response,
    }),
  },
  {
    id: 'error-paths-400-status-as-string',
    taxonomyClass: 'error paths',
    models: "the validation error handler copies err.status from a string field: the 400 Error says status '400'",
    adds: 'res.status(400).json({ code, message, status: err.statusCode }) // a string',
    witness: [post({})],
    hooks: () => ({
      response: (response) =>
        response.status === 400 ? withErrorBody(response, 400, (error) => ({ ...error, status: '400' })) : response,
    }),
  },
  {
    id: 'error-paths-401-says-403',
    taxonomyClass: 'error paths',
    models: "the auth guard's Error literal was copied from the forbidden handler: a 401 whose body says status 403",
    adds: "res.status(401).json({ code: 'unauthorized', message, status: 403 })",
    witness: [{ as: 'anonymous' }],
    hooks: () => ({
      response: (response) =>
        response.status === 401 ? withErrorBody(response, 401, (error) => ({ ...error, status: 403 })) : response,
    }),
  },
];
