import { defineArea } from '../lib/check.js';
import { expectError, expectStatus } from '../lib/expect-response.js';
import type { RegisterCheck } from '../lib/register-check.js';
import { allOperations, callOf, createCategory, listCategories, type SuiteOperation } from './operations.js';

interface Probe {
  id: string;
  rule: string;
  title: string;
  /** The Authorization header to send; undefined sends none; null when the probe cannot apply to this key. */
  authorization: (apiKey: string, runId: string) => string | undefined | null;
  query?: (apiKey: string) => string;
  headers?: (apiKey: string) => Record<string, string>;
}

function swapCase(text: string): string {
  return [...text].map((char) => (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase())).join('');
}

/** The probes each operation gets: credentials that are missing, malformed, nearly right, or in the wrong place. */
const credentialProbes: readonly Probe[] = [
  {
    id: 'missing-key',
    rule: '§5.3',
    title: 'missing Authorization -> 401 + Error',
    authorization: () => undefined,
  },
  {
    id: 'invalid-key',
    rule: '§5.3',
    title: 'invalid key -> 401 + Error',
    authorization: (_key, runId) => `Bearer contract-test-${runId}-not-a-key`,
  },
  // The real key under another scheme: a server that takes whatever follows the first space accepts it.
  {
    id: 'other-scheme',
    rule: '§5.1',
    title: 'other scheme (Basic <API_KEY>) -> 401 + Error',
    authorization: (apiKey) => `Basic ${apiKey}`,
  },
  // A scheme that merely contains "Bearer": what a server that searches the header instead of parsing it lets through.
  {
    id: 'scheme-prefixed',
    rule: '§5.1',
    title: 'a scheme that only ends in "Bearer" (NotBearer <API_KEY>) -> 401 + Error',
    authorization: (apiKey) => `NotBearer ${apiKey}`,
  },
  {
    id: 'malformed-header',
    rule: '§5.1',
    title: 'malformed header (key without "Bearer ") -> 401 + Error',
    authorization: (apiKey) => apiKey,
  },
  {
    id: 'empty-token',
    rule: '§5.3',
    title: 'empty token ("Bearer" with no key) -> 401 + Error',
    authorization: () => 'Bearer',
  },
  // Near misses of the real key: what servers that compare keys loosely let through.
  {
    id: 'key-plus-one',
    rule: '§5.3',
    title: 'near miss: the key plus one character (prefix match) -> 401 + Error',
    authorization: (apiKey) => `Bearer ${apiKey}0`,
  },
  {
    id: 'key-minus-one',
    rule: '§5.3',
    title: 'near miss: the key without its last character -> 401 + Error',
    authorization: (apiKey) => `Bearer ${apiKey.slice(0, -1)}`,
  },
  {
    id: 'key-case-changed',
    rule: '§5.3',
    title: 'near miss: the key with its letter case swapped -> 401 + Error',
    authorization: (apiKey) => (swapCase(apiKey) === apiKey ? null : `Bearer ${swapCase(apiKey)}`),
  },
  {
    id: 'key-extra-token',
    rule: '§5.1',
    title: 'malformed: "Bearer <API_KEY> <more>" -> 401 + Error',
    authorization: (apiKey) => `Bearer ${apiKey} ${apiKey}`,
  },
  // The real key offered anywhere but the Authorization header.
  {
    id: 'key-in-query',
    rule: '§5.1',
    title: 'key in the query string (api_key, access_token, ...) without Authorization -> 401 + Error',
    authorization: () => undefined,
    query: (apiKey) =>
      ['api_key', 'apikey', 'access_token', 'key', 'token']
        .map((name) => `${name}=${encodeURIComponent(apiKey)}`)
        .join('&'),
  },
  {
    id: 'key-in-cookie',
    rule: '§5.1',
    title: 'key in a cookie without Authorization -> 401 + Error',
    authorization: () => undefined,
    headers: (apiKey) => ({
      cookie: ['api_key', 'apikey', 'access_token', 'token', 'key', 'session']
        .map((name) => `${name}=${apiKey}`)
        .join('; '),
    }),
  },
  {
    id: 'key-in-other-header',
    rule: '§5.1',
    title: 'key in X-API-Key / Api-Key / X-Auth-Token without Authorization -> 401 + Error',
    authorization: () => undefined,
    headers: (apiKey) =>
      Object.fromEntries(['x-api-key', 'api-key', 'x-auth-token', 'x-access-token'].map((name) => [name, apiKey])),
  },
];

/**
 * Interface section 5: every operation requires `Authorization: Bearer <API_KEY>`; a missing or
 * invalid key is answered 401 with an Error body. Thirteen probes per operation (missing, other
 * scheme, a scheme that only ends in "Bearer", malformed, empty token, near misses of the real
 * key, the key offered in the query, a cookie or another header), and two that pair a missing
 * key with a bad body (the key is checked first), none with valid credentials, so they draw on
 * the server's anonymous budget: this is the only file that sends such requests.
 */
export default defineArea('Authentication (§5)', 'concurrent', (check) => {
  for (const operation of allOperations) checkCredentialProbes(check, operation);
  checkKeyBeforeBody(check);
  checkSchemeCase(check);
});

/** Every credential probe on one operation -> 401 + Error (a POST carries a valid body: only the credentials are wrong). */
function checkCredentialProbes(check: RegisterCheck, operation: SuiteOperation): void {
  const writes = operation === createCategory;
  for (const probe of credentialProbes) {
    check(
      {
        id: `auth.${probe.id}:${operation.operationId}`,
        rule: probe.rule,
        title: probe.title,
        operation: operation.label,
        operationId: operation.operationId,
        writes,
        ...(writes ? { maxCreates: () => 1 } : {}),
      },
      async (run) => {
        const authorization = probe.authorization(run.target.apiKey, run.target.runId);
        if (authorization === null) return run.skip('the key has no letters, so its case cannot be changed');
        const query = probe.query?.(run.target.apiKey);
        const call = callOf(operation);
        const exchange = await run.send({
          ...call,
          ...(query === undefined ? {} : { path: `${call.path}?${query}` }),
          ...(probe.headers === undefined ? {} : { headers: probe.headers(run.target.apiKey) }),
          ...(authorization === undefined ? {} : { authorization }),
          identity: 'anonymous',
          // A valid body, so that the credentials are the only thing wrong with the request.
          ...(writes ? { json: { name: run.categoryName(`auth-probe-${probe.id}`) } } : {}),
        });
        expectError(run.spec, exchange, 401, probe.title.split(' -> ')[0]!);
      },
    );
  }
}

/** The order of the checks: a request without a key is refused for the key, whatever else is wrong with it (§5.3 is unconditional). */
function checkKeyBeforeBody(check: RegisterCheck): void {
  const orderProbes: { id: string; title: string; body: { json?: unknown; rawBody?: string } }[] = [
    {
      id: 'order.auth-before-validation',
      title: 'no key and a body without name -> 401 (the key is checked before the body) + Error',
      body: { json: { description: 'no key and no name' } },
    },
    {
      id: 'order.auth-before-parsing',
      title: 'no key and a body that is not JSON -> 401 (the key is checked before the body is parsed) + Error',
      body: { rawBody: '{"name": "not json' },
    },
  ];
  for (const probe of orderProbes) {
    check(
      {
        id: `${probe.id}:${createCategory.operationId}`,
        rule: '§5.3',
        title: probe.title,
        operation: createCategory.label,
        operationId: createCategory.operationId,
        writes: true,
        maxCreates: () => 1,
      },
      async (run) => {
        const exchange = await run.send({
          ...callOf(createCategory),
          ...probe.body,
          identity: 'anonymous',
          bypassPrism: true,
        });
        expectError(run.spec, exchange, 401, 'a request without a key (and a bad body)');
      },
    );
  }
}

/** The valid key with the scheme in lower case is accepted (RFC 9110 §11.1: scheme names are case-insensitive). */
function checkSchemeCase(check: RegisterCheck): void {
  check(
    {
      id: 'auth.scheme-case-insensitive',
      rule: '§5.1',
      title: 'scheme name is case-insensitive: "bearer <API_KEY>" accepted (RFC 9110 §11.1)',
      operation: listCategories.label,
      operationId: listCategories.operationId,
    },
    async (run) => {
      const exchange = await run.send({
        ...callOf(listCategories),
        authorization: `bearer ${run.target.apiKey}`,
        identity: 'main',
      });
      expectStatus(exchange, 200, 'the valid key sent as "bearer <API_KEY>"');
    },
  );
}
