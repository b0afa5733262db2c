import { afterEach, describe, expect, it } from 'vitest';
import { renderHumanReport } from '../../contract-tests/report/human-report.js';
import { fakeKeys, startFakePetstore, type Fault, type FakePetstore } from './support/fake-petstore.js';
import { idsWith, resultOf, runKit } from './support/run-kit.js';

/**
 * The kit's proof against deliberately broken servers: a small independent implementation of the
 * interface (support/fake-petstore.ts) passes as is, and each single fault makes the kit exit 1
 * and fail exactly the checks of the rule it breaks, by id and by rule in the human report.
 */
interface BrokenCase {
  fault: Fault;
  /** What the fault breaks, in the interface's words. */
  breaks: string;
  /** Every check that must fail, and no other. */
  failing: string[];
  /** The rule the report must name on a FAIL line. */
  rule: string;
  timeoutSeconds?: number;
}

const authProbes = (kind: string) => ['listCategories', 'createCategory', 'getPetById', 'listStoreOrders'].map((operation) => `auth.${kind}:${operation}`);
const allAuthProbes = ['missing-key', 'invalid-key', 'other-scheme', 'malformed-header'].flatMap((kind) => authProbes(kind)).sort();

const cases: BrokenCase[] = [
  { fault: 'unauthorized-without-error-body', breaks: '§5.3 401 with an Error body', failing: [...allAuthProbes, 'every.error-shape', 'every.schema'], rule: '§5.3' },
  { fault: 'error-status-mismatch', breaks: '§7 the status field repeats the HTTP status', failing: ['every.error-status'], rule: '§7' },
  { fault: 'no-rate-headers-on-errors', breaks: '§8 headers present on every response', failing: ['every.rate-headers-present', 'rate.429-headers'], rule: '§8' },
  { fault: 'reset-in-milliseconds', breaks: '§8 Reset is a Unix timestamp (seconds)', failing: ['every.rate-reset-seconds'], rule: '§8' },
  { fault: 'reset-as-delta', breaks: '§8 Reset is a Unix timestamp, not a delta', failing: ['every.rate-reset-seconds'], rule: '§8' },
  { fault: 'duplicate-ids', breaks: '§4 createCategory rule 2: the returned id is unique', failing: ['create.listed', 'create.unique-ids-parallel', 'create.unique-ids-sequential'], rule: '§4 createCategory.2' },
  { fault: 'create-returns-200', breaks: '§4 createCategory: 201 response', failing: ['create.listed', 'create.name-only', 'create.ok', 'create.property', 'create.unique-ids-parallel', 'create.unique-ids-sequential', 'every.schema'], rule: '§4 createCategory.2' },
  { fault: 'missing-name-accepted', breaks: '§4 createCategory rule 1: a body lacking name -> 400', failing: ['validation.missing-name'], rule: '§4 createCategory.1' },
  { fault: 'lowercase-bearer-rejected', breaks: '§5.1 HTTP bearer (scheme names are case-insensitive)', failing: ['auth.scheme-case-insensitive'], rule: '§5.1' },
  { fault: 'created-not-listed', breaks: '§4 listCategories returns all categories', failing: ['create.listed'], rule: '§4 listCategories' },
  { fault: 'no-retry-after', breaks: '§8.2 Retry-After on 429', failing: ['rate.429-retry-after'], rule: '§8.2' },
  { fault: 'retry-after-invalid', breaks: '§8.2 Retry-After is seconds or an HTTP-date', failing: ['rate.429-retry-after'], rule: '§8.2' },
  { fault: 'text-error-body', breaks: '§7 errors are JSON Error objects', failing: [...allAuthProbes, 'every.error-shape', 'every.json-content-type', 'every.schema', 'validation.malformed-json', 'validation.missing-body', 'validation.missing-name', 'validation.wrong-types'], rule: '§7' },
  { fault: 'remaining-constant', breaks: '§8 Remaining counts down within a window', failing: ['rate.remaining-decreases'], rule: '§8' },
  { fault: 'remaining-above-limit', breaks: '§8 Remaining cannot exceed Limit', failing: ['every.rate-headers-integers', 'rate.429-headers', 'rate.remaining-decreases'], rule: '§8' },
  { fault: 'non-integer-rate-headers', breaks: '§8 header values are integers', failing: ['every.rate-headers-integers', 'rate.429-headers'], rule: '§8' },
  { fault: 'never-429', breaks: '§8.1 a request over the limit -> 429', failing: ['rate.429'], rule: '§8.1' },
  { fault: 'invalid-key-accepted', breaks: '§5.3 an invalid key -> 401', failing: authProbes('invalid-key'), rule: '§5.3' },
  { fault: 'basic-scheme-accepted', breaks: '§5.1 the key is sent as a Bearer token', failing: authProbes('other-scheme'), rule: '§5.1' },
  { fault: 'pets-without-auth', breaks: '§5.2 the requirement applies to every operation', failing: ['getPetById'].flatMap((operation) => ['missing-key', 'invalid-key', 'other-scheme', 'malformed-header'].map((kind) => `auth.${kind}:${operation}`)), rule: '§5.3' },
  { fault: 'malformed-json-500', breaks: '§4 createCategory rule 1: invalid body -> 400', failing: ['every.schema', 'validation.malformed-json'], rule: '§4 createCategory.1' },
  { fault: 'wrong-types-accepted', breaks: '§4 createCategory rule 1: invalid values -> 400', failing: ['validation.wrong-types'], rule: '§4 createCategory.1' },
  { fault: 'description-dropped', breaks: '§2 Category: all fields of NewCategory', failing: ['create.ok', 'create.property'], rule: '§4 createCategory.2' },
  { fault: 'string-ids', breaks: '§2 Category.id is an integer', failing: ['create.listed', 'create.name-only', 'create.ok', 'create.property', 'create.unique-ids-parallel', 'create.unique-ids-sequential', 'every.schema'], rule: '§4 createCategory.2' },
  { fault: 'list-wrapped', breaks: '§4 listCategories: a JSON array', failing: ['create.listed', 'every.schema', 'list.ok'], rule: '§4 listCategories' },
  { fault: 'orders-never-answer', breaks: 'an answer within --timeout', failing: ['auth.valid-key:listStoreOrders'], rule: '§5.2', timeoutSeconds: 0.5 },
];

describe('the kit against broken servers', () => {
  let server: FakePetstore | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('passes the conforming fake server (exit 0), 429 checks included', async () => {
    server = await startFakePetstore();
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, rateLimitKey: fakeKeys.limited });
    expect(idsWith(run, 'FAIL')).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(resultOf(run, 'rate.429').status).toBe('PASS');
    expect(resultOf(run, 'rate.429-retry-after').status).toBe('PASS');
  });

  it('fails a check whose request gets no answer within --timeout, with the timeout as evidence', async () => {
    server = await startFakePetstore({ faults: ['orders-never-answer'] });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, timeoutSeconds: 0.5 });
    const hung = resultOf(run, 'auth.valid-key:listStoreOrders');
    expect(hung.message).toBe(`Failed to get a response to GET ${server.baseUrl}/store/orders: no answer within --timeout 0.5 s`);
    expect(resultOf(run, 'other.response:listStoreOrders').status).toBe('SKIP');
  });

  it('has at least 15 broken cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  for (const { fault, breaks, failing, rule, timeoutSeconds } of cases) {
    it(`${fault}: exits 1 and fails ${rule} (${breaks})`, async () => {
      server = await startFakePetstore({ faults: [fault] });
      const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, rateLimitKey: fakeKeys.limited, ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) });
      expect(run.exitCode).toBe(1);
      expect(idsWith(run, 'FAIL').sort()).toEqual([...failing].sort());
      const failed = run.report.results.filter((result) => result.status === 'FAIL');
      expect(failed.map((result) => result.rule)).toContain(rule);
      for (const result of failed) expect(result.evidence.length, `${result.id} has evidence`).toBeGreaterThan(0);
      const text = renderHumanReport(run.report);
      const first = failed.find((result) => result.rule === rule)!;
      expect(text).toContain(`FAIL  ${rule.padEnd(21)} ${first.title}`);
    });
  }
});
