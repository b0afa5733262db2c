import { plans } from '../reference/plans.js';
import type { PlainRequest } from '../reference/reference-petstore.js';
import { referenceKeys } from '../reference/reference-server.js';
import type { BugServer } from './bug-server.js';
import { bearerOf, isCategoriesPath, pathOf, validNewCategory, withErrorBody, withRequestHeader } from './wire.js';
import { post } from './witness.js';

/** docs/bug-taxonomy.md section 4: credentials. */

/** The request as if it had sent `Bearer <key>`. */
function withKey(request: PlainRequest, key: string): PlainRequest {
  return withRequestHeader(request, 'authorization', `Bearer ${key}`);
}

export const credentialBugs: readonly BugServer[] = [
  {
    id: 'credentials-bearer-without-space',
    taxonomyClass: 'credentials',
    models: "a hand-written parser: header.replace('Bearer', '').trim() accepts Bearer<key> and Bearer<TAB><key>",
    adds: "const key = req.headers.authorization?.replace('Bearer', '').trim()",
    witness: [{ as: { authorization: `Bearer${referenceKeys.main}` } }],
    hooks: () => ({
      request: (request) => {
        const header = request.headers.authorization;
        return header === undefined ? request : withKey(request, header.replace('Bearer', '').trim());
      },
    }),
  },
  {
    id: 'credentials-scheme-case-sensitive',
    taxonomyClass: 'credentials',
    models: "startsWith('Bearer ') refuses `bearer <key>` (RFC 9110 11.1: the scheme is case-insensitive)",
    adds: "if (!header.startsWith('Bearer ')) return res.status(401)",
    witness: [{ as: { authorization: `bearer ${referenceKeys.main}` } }],
    hooks: () => ({
      request: (request) =>
        String(request.headers.authorization).startsWith('Bearer ')
          ? request
          : withRequestHeader(request, 'authorization', undefined),
    }),
  },
  {
    id: 'credentials-key-case-insensitive',
    taxonomyClass: 'credentials',
    models: 'the api_keys table has a case-insensitive collation: REF-MAIN-KEY is accepted',
    adds: 'SELECT plan FROM api_keys WHERE key = ? -- utf8mb4_general_ci',
    witness: [{ as: { authorization: `Bearer ${referenceKeys.main.toUpperCase()}` } }],
    hooks: ({ keys }) => ({
      request: (request) => {
        const token = bearerOf(request)?.toLowerCase();
        const match = [...keys.keys()].find((key) => key.toLowerCase() === token);
        return match === undefined ? request : withKey(request, match);
      },
    }),
  },
  {
    id: 'credentials-key-prefix-match',
    taxonomyClass: 'credentials',
    models: 'keys compared by prefix (a LIKE or startsWith lookup): a valid key with any suffix is accepted',
    adds: 'const plan = [...keys].find(([key]) => token.startsWith(key))',
    witness: [{ as: { authorization: `Bearer ${referenceKeys.main}-revoked` } }],
    hooks: ({ keys }) => ({
      request: (request) => {
        const token = bearerOf(request);
        const match = [...keys.keys()].find((key) => token?.startsWith(key) === true);
        return match === undefined ? request : withKey(request, match);
      },
    }),
  },
  {
    id: 'credentials-validation-before-auth',
    taxonomyClass: 'credentials',
    models:
      'body validation runs before authentication (@Valid before @PreAuthorize): a bad body without a key gets 400',
    adds: "router.post('/categories', validate(NewCategory), requireKey, create)",
    witness: [post({ title: 'a' }, { as: 'anonymous' })],
    hooks: () => ({
      response: (response, request) =>
        response.status === 401 && request.method === 'POST' && isCategoriesPath(request) && !validNewCategory(request)
          ? withErrorBody(response, 400, () => ({
              code: 'validation_failed',
              message: 'name must be a string',
              status: 400,
            }))
          : response,
    }),
  },
  {
    id: 'credentials-auth-on-categories-only',
    taxonomyClass: 'credentials',
    models: 'the auth middleware is mounted on the categories router only: pets and orders answer without a key',
    adds: "app.use('/v1/categories', requireKey, categoriesRouter); app.use('/v1', petsRouter, ordersRouter)",
    witness: [{ target: '/v1/store/orders', as: 'anonymous' }],
    hooks: ({ keys }) => ({
      request: (request) => {
        const path = pathOf(request);
        const open = path === '/v1/store/orders' || path.startsWith('/v1/pets/');
        const known = keys.has(String(bearerOf(request)));
        // The backend serves them as its own service account.
        return open && !known ? withKey(request, [...keys.keys()][0]!) : request;
      },
    }),
  },
  {
    id: 'credentials-list-public',
    taxonomyClass: 'credentials',
    models: 'a permitAll() rule for GET makes the list public; it is read with the service account',
    adds: 'http.authorizeHttpRequests(a -> a.requestMatchers(HttpMethod.GET, "/v1/categories").permitAll())',
    witness: [{ as: 'anonymous' }],
    hooks: ({ keys }) => ({
      request: (request) =>
        request.method === 'GET' && isCategoriesPath(request) && !keys.has(String(bearerOf(request)))
          ? withKey(request, [...keys.keys()][0]!)
          : request,
    }),
  },
  {
    id: 'credentials-key-from-query',
    taxonomyClass: 'credentials',
    models: 'the key is also read from ?api_key= when the header is absent',
    adds: 'const key = bearer(req) ?? req.query.api_key',
    witness: [{ target: `/v1/categories?api_key=${referenceKeys.main}`, as: 'anonymous' }],
    hooks: () => ({
      request: (request) => {
        const key = new URL(request.target, 'http://server').searchParams.get('api_key');
        return request.headers.authorization === undefined && key !== null ? withKey(request, key) : request;
      },
    }),
  },
  {
    id: 'credentials-free-plan-read-only',
    taxonomyClass: 'credentials',
    models: 'an undocumented plan gate: a Free key may read but its POST is answered 403',
    adds: "if (req.method !== 'GET' && plan.name === 'free') return res.status(403).json(error)",
    witness: [post({ name: 'a' }, { as: 'limited' })],
    hooks: ({ keys }) => ({
      response: (response, request) => {
        const plan = keys.get(String(bearerOf(request)));
        const free = plan !== undefined && plan.perMinute === plans.free.perMinute;
        return free && request.method === 'POST' && response.status < 300
          ? withErrorBody(response, 403, () => ({ code: 'plan_forbidden', message: 'Upgrade to create', status: 403 }))
          : response;
      },
    }),
  },
];
