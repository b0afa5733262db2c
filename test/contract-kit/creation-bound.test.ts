import { afterEach, describe, expect, it } from 'vitest';
import { type FakePetstore, type Fault, fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { runKit } from './support/run-kit.js';

/**
 * The line printed before the first request that could create data is a promise: the run never
 * sends more such requests than it announced, on a conforming server or on one that creates from
 * anything (invalid keys, invalid bodies), and never one under --read-only.
 */
describe('the creation bound', () => {
  let server: FakePetstore | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** Faults that make a server create a category from requests a conforming one refuses. */
  const createsFromAnything: Fault[] = [
    'invalid-key-accepted',
    'basic-scheme-accepted',
    'key-extra-token-accepted',
    'key-from-query',
    'key-from-cookie',
    'key-from-x-api-key',
    'missing-name-accepted',
    'wrong-types-accepted',
    'null-description-accepted',
    'text-plain-accepted',
  ];

  for (const [name, faults, createBudget] of [
    ['a conforming server', [], 260],
    ['a server that creates from anything', createsFromAnything, 260],
    ['a conforming server with --create-budget 5', [], 5],
  ] as const) {
    it(`holds on ${name}: announced before the first POST, never exceeded, no check past its share`, async () => {
      server = await startFakePetstore({ faults: [...faults], anonymousLimit: 10_000 });
      const fake = server;
      const posts = () => fake.requests.filter((request) => request.method === 'POST').length;
      const run = await runKit({
        baseUrl: fake.baseUrl,
        apiKey: fakeKeys.main,
        rateLimitKey: fakeKeys.limited,
        createBudget,
      });
      const line = run.log.find((text) => text.includes('may create up to'));
      expect(line).toBeDefined();
      const announced = Number(/may create up to (\d+) categories/.exec(line!)![1]);
      expect(run.report.mayCreateCategories).toBe(announced);
      expect(announced).toBeLessThanOrEqual(createBudget);
      expect(line).toContain(`--create-budget ${createBudget}`);
      // The line comes before anything the checks send: it is the run's first line after the preflight.
      expect(run.log[0]).toBe(line);
      expect(posts()).toBeGreaterThan(0);
      expect(posts()).toBeLessThanOrEqual(announced);
      expect(run.report.createdCategories).toBeLessThanOrEqual(announced);
      const overShare = run.report.results.filter((result) =>
        result.message?.includes('could create data, and this check declared'),
      );
      expect(overShare.map((result) => result.id)).toEqual([]);
    });
  }

  it('under --read-only: says so, and no request that could create anything leaves', async () => {
    server = await startFakePetstore({ faults: createsFromAnything, anonymousLimit: 10_000 });
    const run = await runKit({ baseUrl: server.baseUrl, apiKey: fakeKeys.main, readOnly: true });
    expect(run.log[0]).toBe('petstore-contract: read-only run: no request that could create data is sent');
    expect(run.report.mayCreateCategories).toBe(0);
    expect(server.requests.filter((request) => request.method === 'POST')).toEqual([]);
    expect(
      run.report.results.filter((result) => result.message?.includes('could create data')).map((result) => result.id),
    ).toEqual([]);
  });
});
