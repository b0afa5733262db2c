import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSpecFile } from '../../spec/load-spec.js';
import { type FakePetstore, fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { idsWith, resultOf, runKit } from './support/run-kit.js';

/**
 * How the kit behaves on a rate-limited, shared server: it paces itself by the headers instead of
 * provoking 429s, reports what it could not check as inconclusive, sends nothing that creates data
 * under --read-only, and treats experimental operations as warnings unless --strict.
 */
describe('the kit as a good citizen', () => {
  let server: FakePetstore | undefined;
  let specDir: string;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  beforeAll(async () => {
    specDir = await mkdtemp(join(tmpdir(), 'contract-kit-spec-'));
  });
  afterAll(async () => {
    await rm(specDir, { recursive: true, force: true });
  });

  const main429s = (fake: FakePetstore) =>
    fake.requests.filter((request) => request.authorization?.includes(fakeKeys.main) && request.status === 429);

  it('waits for X-RateLimit-Reset when the main key runs low, and never provokes a 429', async () => {
    // 15 requests per one-second window: the suite needs many times more, so it waits again and again (about
    // 3 s a window: Reset is rounded up to a whole second, and the kit waits one more), well within --max-wait.
    server = await startFakePetstore({ mainLimit: 15, windowMs: 1_000 });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, propertyRuns: 3, maxWaitSeconds: 150 });
    expect(idsWith(run, 'FAIL')).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(
      run.log.some((line) =>
        /^petstore-contract: waiting \d+ s for X-RateLimit-Reset of the main key \(Remaining \d+, reserve 2\), until \d\d:\d\d:\d\d UTC$/.test(
          line,
        ),
      ),
    ).toBe(true);
    expect(main429s(server)).toEqual([]);
    // The waits let everything run: nothing is inconclusive, and the only checks skipped need a second key or
    // Prism, judge what this server never shows (a 429; a plan's per-minute limit of 60 or 300), or are the
    // requests without a key past the address's budget, which a default run never waits for (--thorough does).
    expect(run.report.results.filter((result) => result.inconclusive).map((result) => result.id)).toEqual([]);
    const skipped = run.report.results.filter((result) => result.status === 'SKIP');
    expect(skipped.map((result) => result.id)).toContain('rate.429');
    for (const result of skipped)
      expect(result.message, result.id).toMatch(
        /^(needs --rate-limit-key|only with --via-prism|no response of the run was a 429$|no answer to a key reported a plan's per-minute limit \(60 or 300\): nothing to judge$|no key's budget came back between two of its answers sent one after the other|INCONCLUSIVE for this cell \(over budget\): spending the main key to its 429 needs --thorough --exhaust|INCONCLUSIVE for this cell \(over budget\): a burst of 20 requests without a key|INCONCLUSIVE for this cell \(over budget\): \d+ requests? without a valid key did not fit the address's rate budget)/,
        // (the flag's name ends in a fragment of this fake's key, so the report masks it)
      );
  });

  it('reports the checks it cannot afford as inconclusive when the wait would exceed --max-wait: verdict INCONCLUSIVE, exit 3', async () => {
    server = await startFakePetstore({ mainLimit: 10, windowMs: 60_000 });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, maxWaitSeconds: 0 });
    expect(run.exitCode).toBe(3);
    expect(run.report.verdict).toBe('INCONCLUSIVE');
    expect(run.report.stoppedBy).toContain('rate budget exhausted');
    expect(idsWith(run, 'FAIL')).toEqual([]);
    const inconclusive = run.report.results.filter(
      (result) => result.status === 'SKIP' && result.message?.includes('rate budget exhausted'),
    );
    expect(inconclusive.length).toBeGreaterThan(5);
    expect(inconclusive[0]!.message).toMatch(/would exceed --max-wait 0 s/);
    expect(main429s(server)).toEqual([]);
  });

  it('reports an unprovoked 429 as "rate-limited, inconclusive" for the check it hit, waits Retry-After, and goes on', async () => {
    server = await startFakePetstore({ faults: ['unprovoked-429-on-orders'] });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, maxWaitSeconds: 10 });
    // The 429 said X-RateLimit-Remaining 889: the rule catalogue, which judges every answer whichever check sent
    // it, fails that (a 429 only when the budget says none is left); the check it hit could not run.
    expect(run.exitCode).toBe(1);
    expect(idsWith(run, 'FAIL')).toEqual(['rate.429-only-when-exhausted']);
    expect(resultOf(run, 'rate.429-only-when-exhausted').evidence[0]).toMatchObject({
      status: 429,
      request: expect.stringContaining('GET http'),
      header: 'X-RateLimit-Remaining',
    });
    // The server answered one 429, to the first GET /store/orders of the main key, whichever check sent it.
    expect(main429s(server)).toHaveLength(1);
    const hits = run.report.results.filter((result) => result.inconclusive);
    expect(hits).toHaveLength(1);
    const hit = hits[0]!;
    // The generated credentials (issue 39) send the main key's first GET /store/orders, before the operation's own checks.
    expect(hit.id).toMatch(/:listStoreOrders$|^credentials\.scheme$/);
    expect(hit.status).toBe('SKIP');
    expect(hit.message).toMatch(/^rate-limited, inconclusive: GET \/store\/orders was answered 429/);
    // Only that check: every other check of the operation ran after the wait and passed.
    const others = run.report.results.filter((result) => result.id.endsWith(':listStoreOrders') && result !== hit);
    expect(others.map((result) => result.id)).toContain('auth.valid-key:listStoreOrders');
    for (const result of others) expect(['PASS', 'INFO'], `${result.id}: ${result.status}`).toContain(result.status);
    expect(resultOf(run, 'rate.remaining-decreases').status).toBe('PASS');
    expect(
      run.log.some((line) =>
        /^petstore-contract: waiting \d+ s for Retry-After of the main key \(answered 429\), until /.test(line),
      ),
    ).toBe(true);
  });

  it('refuses to exceed a limit that needs more than --max-requests, and says so', async () => {
    server = await startFakePetstore({ limitedLimit: 50 });
    const run = await runKit({
      baseUrl: server.baseUrl,
      apiKey: fakeKeys.main,
      rateLimitKey: fakeKeys.limited,
      maxRequests: 10,
    });
    expect(run.exitCode).toBe(0);
    const refused = resultOf(run, 'rate.429');
    expect(refused.status).toBe('SKIP');
    expect(refused.message).toBe(
      'refused: exceeding the limit needs 45 more requests (X-RateLimit-Remaining 44), more than --max-requests 10',
    );
    // One request at the start (its budget before the main key spends anything), one to read it again (independent
    // budgets), one on each operation (the key is valid for all of them), then nothing more.
    expect(server.requests.filter((request) => request.authorization?.includes(fakeKeys.limited))).toHaveLength(6);
  });

  it('--read-only sends no POST at all', async () => {
    server = await startFakePetstore();
    const run = await runKit({
      baseUrl: server.baseUrl,
      apiKey: fakeKeys.main,
      rateLimitKey: fakeKeys.limited,
      readOnly: true,
    });
    expect(run.exitCode).toBe(0);
    expect(server.requests.filter((request) => request.method === 'POST')).toEqual([]);
    expect(idsWith(run, 'PASS').filter((id) => id.startsWith('create.') || id.startsWith('validation.'))).toEqual([]);
    expect(resultOf(run, 'rate.429').status).toBe('PASS');
  });

  it('names created data contract-test-<runId>', async () => {
    server = await startFakePetstore();
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, runId: 'fixed01' });
    expect(run.report.settings.namePrefix).toBe('contract-test-fixed01');
    const response = await fetch(`${server.baseUrl}/categories`, {
      headers: { authorization: `Bearer ${fakeKeys.main}` },
    });
    const created = ((await response.json()) as { name: string; description?: string }[]).filter(
      (category) => category.name !== 'dog' && category.name !== 'cat',
    );
    expect(created.length).toBeGreaterThan(5);
    // The name carries the prefix, or, when the name itself is the case under test (an empty string), the description does.
    for (const category of created)
      expect(
        category.name.startsWith('contract-test-fixed01-') ||
          category.description?.startsWith('contract-test-fixed01-'),
        JSON.stringify(category),
      ).toBe(true);
    expect(run.report.createdCategories).toBe(created.length);
  });

  it('makes failures of an x-stability experimental operation warnings, and failures again with --strict', async () => {
    const spec = await readSpecFile();
    spec.paths!['/categories']!.get!['x-stability'] = 'experimental';
    const specPath = join(specDir, 'experimental.json');
    await writeFile(specPath, JSON.stringify(spec));
    server = await startFakePetstore({ faults: ['list-wrapped'] });

    const lenient = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, specPath, readOnly: true });
    expect(lenient.exitCode).toBe(0);
    expect(resultOf(lenient, 'list.ok').status).toBe('WARN');
    expect(resultOf(lenient, 'list.ok').message).toContain('listCategories is experimental (x-stability)');
    expect(resultOf(lenient, 'every.schema').status).toBe('WARN');
    expect(idsWith(lenient, 'FAIL')).toEqual([]);
    // Every check the wrapped list breaks (list.ok, every.schema and any other that reads the list) is a warning.
    const warned = idsWith(lenient, 'WARN').sort();
    for (const id of warned)
      expect(resultOf(lenient, id).message, id).toMatch(
        /listCategories is experimental \(x-stability\)|^only experimental\/beta operations \(x-stability\): .*listCategories/,
      );

    const strict = await runKit({
      baseUrl: server.baseUrl,
      apiKey: fakeKeys.main,
      specPath,
      readOnly: true,
      strict: true,
    });
    expect(strict.exitCode).toBe(1);
    expect(idsWith(strict, 'WARN')).toEqual([]);
    expect(idsWith(strict, 'FAIL').sort()).toEqual(warned);
  });
});
