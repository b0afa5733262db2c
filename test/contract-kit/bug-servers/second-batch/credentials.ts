import { referenceKeys } from '../../reference/reference-server.js';
import type { BugServer } from '../bug-server.js';
import { withRequestHeader } from '../wire.js';

/** Second batch, docs/bug-taxonomy.md section 4: credentials. */

const knownKeys: readonly string[] = Object.values(referenceKeys);

/** Whether an Authorization header carries a valid key as the reference reads it (one space, any scheme case). */
function hasValidKey(authorization: string | undefined): boolean {
  const token = /^bearer (.*)$/i.exec(String(authorization))?.[1];
  return token !== undefined && knownKeys.includes(token);
}

export const secondBatchCredentialBugs: readonly BugServer[] = [
  {
    id: 'credentials-token-after-split',
    taxonomyClass: 'credentials',
    models: "the token is read as header.split(' ')[1]: 'Bearer <key> anything' is accepted",
    adds: "const token = req.headers.authorization?.split(' ')[1]",
    witness: [{ as: { authorization: `Bearer ${referenceKeys.main} extra` } }],
    hooks: () => ({
      request: (request) => {
        const header = request.headers.authorization;
        const token = header?.split(' ')[1];
        return token === undefined || token === ''
          ? request
          : withRequestHeader(request, 'authorization', `Bearer ${token}`);
      },
    }),
  },
  {
    id: 'credentials-basic-scheme-accepted',
    taxonomyClass: 'credentials',
    models: 'a Basic strategy added for curl users: the API key as the Basic user name is accepted as well as Bearer',
    adds: 'passport.use(new BasicStrategy((user, _password, done) => done(null, keys.find(user))))',
    witness: [{ as: { authorization: `Basic ${Buffer.from(`${referenceKeys.main}:`).toString('base64')}` } }],
    hooks: () => ({
      request: (request) => {
        const encoded = /^basic (.+)$/i.exec(String(request.headers.authorization))?.[1];
        if (encoded === undefined) return request;
        const user = Buffer.from(encoded, 'base64').toString('utf8').split(':')[0];
        return withRequestHeader(request, 'authorization', `Bearer ${user}`);
      },
    }),
  },
  {
    id: 'credentials-key-from-x-api-key',
    taxonomyClass: 'credentials',
    models: 'the key is also read from an X-API-Key header when Authorization is absent',
    adds: "const key = bearer(req) ?? req.get('x-api-key')",
    witness: [{ as: 'anonymous', headers: { 'x-api-key': referenceKeys.main } }],
    hooks: () => ({
      request: (request) => {
        const key = request.headers['x-api-key'];
        return request.headers.authorization === undefined && key !== undefined
          ? withRequestHeader(request, 'authorization', `Bearer ${key}`)
          : request;
      },
    }),
  },
  {
    id: 'credentials-key-compared-on-first-8',
    taxonomyClass: 'credentials',
    models:
      'a hand-written constant-time compare with a hard-coded 8 (the key id length): a key of the right length differing after its 8th character is accepted',
    adds: 'if (a.length !== b.length) return false; for (let i = 0; i < 8; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)',
    witness: [{ as: { authorization: `Bearer ${referenceKeys.main.slice(0, -1)}X` } }],
    hooks: () => ({
      request: (request) => {
        const token = /^bearer (.*)$/i.exec(String(request.headers.authorization))?.[1];
        if (token === undefined || knownKeys.includes(token)) return request;
        const match = knownKeys.find((key) => key.length === token.length && key.slice(0, 8) === token.slice(0, 8));
        return match === undefined ? request : withRequestHeader(request, 'authorization', `Bearer ${match}`);
      },
    }),
  },
  {
    id: 'credentials-empty-bearer-demo-key',
    taxonomyClass: 'credentials',
    models: 'an empty bearer token falls back to the demo key of the environment (`token || process.env.DEMO_KEY`)',
    adds: 'const key = bearerToken(req) || process.env.DEMO_API_KEY',
    witness: [{ as: { authorization: 'Bearer' } }],
    hooks: () => ({
      request: (request) =>
        /^bearer\s*$/i.test(String(request.headers.authorization))
          ? withRequestHeader(request, 'authorization', `Bearer ${referenceKeys.main}`)
          : request,
    }),
  },
  {
    id: 'credentials-head-skips-auth',
    taxonomyClass: 'credentials',
    models:
      'the auth middleware lets HEAD through for load-balancer health checks; HEAD then runs the GET route without a key',
    adds: "if (req.method === 'HEAD' || req.method === 'OPTIONS') return next() // in requireKey",
    witness: [{ method: 'HEAD', as: 'anonymous' }],
    hooks: () => ({
      response: (response, request) =>
        request.method === 'HEAD' && response.status === 401 && !hasValidKey(request.headers.authorization)
          ? { ...response, status: 200, body: '' }
          : response,
    }),
  },
];
