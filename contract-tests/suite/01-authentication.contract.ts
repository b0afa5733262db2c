import { defineArea } from '../lib/check.js';
import { expectError, expectStatus } from '../lib/expect-response.js';
import { allOperations, callOf, createCategory, listCategories } from './operations.js';

/**
 * Interface section 5: every operation requires `Authorization: Bearer <API_KEY>`; a missing or
 * invalid key is answered 401 with an Error body. Four probes per operation, all unauthenticated,
 * so they draw on the server's anonymous budget: this is the only file that sends such requests.
 */
export default defineArea('Authentication (§5)', 'concurrent', (check) => {
  for (const operation of allOperations) {
    const writes = operation === createCategory;
    const probes: { id: string; rule: string; title: string; authorization: (apiKey: string, runId: string) => string | undefined }[] = [
      { id: 'missing-key', rule: '§5.3', title: 'missing Authorization -> 401 + Error', authorization: () => undefined },
      { id: 'invalid-key', rule: '§5.3', title: 'invalid key -> 401 + Error', authorization: (_key, runId) => `Bearer contract-test-${runId}-not-a-key` },
      // The real key under another scheme: a server that takes whatever follows the first space accepts it.
      { id: 'other-scheme', rule: '§5.1', title: 'other scheme (Basic <API_KEY>) -> 401 + Error', authorization: (apiKey) => `Basic ${apiKey}` },
      { id: 'malformed-header', rule: '§5.1', title: 'malformed header (key without "Bearer ") -> 401 + Error', authorization: (apiKey) => apiKey },
    ];
    for (const probe of probes) {
      check({ id: `auth.${probe.id}:${operation.operationId}`, rule: probe.rule, title: probe.title, operation: operation.label, operationId: operation.operationId, writes }, async (run) => {
        const authorization = probe.authorization(run.target.apiKey, run.target.runId);
        const exchange = await run.send({
          ...callOf(operation),
          ...(authorization === undefined ? {} : { authorization }),
          identity: 'anonymous',
          // A valid body, so that the credentials are the only thing wrong with the request.
          ...(writes ? { json: { name: run.categoryName('auth-probe') } } : {}),
        });
        expectError(run.spec, exchange, 401, probe.title.split(' -> ')[0]!);
      });
    }
  }

  check(
    { id: 'auth.scheme-case-insensitive', rule: '§5.1', title: 'scheme name is case-insensitive: "bearer <API_KEY>" accepted (RFC 9110 §11.1)', operation: listCategories.label, operationId: listCategories.operationId },
    async (run) => {
      const exchange = await run.send({ ...callOf(listCategories), authorization: `bearer ${run.target.apiKey}`, identity: 'main' });
      expectStatus(exchange, 200, 'the valid key sent as "bearer <API_KEY>"');
    },
  );
});
