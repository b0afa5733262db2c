import type { PlainRequest } from '../reference/reference-petstore.js';
import type { BugServer } from './bug-server.js';
import { bearerOf, isCategoriesPath, pathOf, requestObject, withErrorBody, withRequestHeader } from './wire.js';

/** docs/bug-taxonomy.md section 4: credentials. */

/** The request as if it had sent `Bearer <key>`. */
function withKey(request: PlainRequest, key: string): PlainRequest {
  return withRequestHeader(request, 'authorization', `Bearer ${key}`);
}

/** The backend's own body validator (the one that runs before auth in the bug below). */
function validNewCategory(request: PlainRequest): boolean {
  const body = requestObject(request);
  return (
    /^application\/json\b/i.test(String(request.headers['content-type'])) &&
    typeof body?.name === 'string' &&
    (body.description === undefined || typeof body.description === 'string')
  );
}

export const credentialBugs: readonly BugServer[] = [
  {
    id: 'credentials-bearer-without-space',
    taxonomyClass: 'credentials',
    models: "a hand-written parser: header.replace('Bearer', '').trim() accepts Bearer<key> and Bearer<TAB><key>",
    adds: "const key = req.headers.authorization?.replace('Bearer', '').trim()",
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
    hooks: () => ({
      request: (request) => {
        const key = new URL(request.target, 'http://server').searchParams.get('api_key');
        return request.headers.authorization === undefined && key !== null ? withKey(request, key) : request;
      },
    }),
  },
];
