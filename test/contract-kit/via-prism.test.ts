import { afterEach, describe, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { type FakePetstore, fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { idsWith, resultOf, runKit } from './support/run-kit.js';

/**
 * --via-prism: the same checks, routed through Prism's validating proxy as a second,
 * independent judge of every response against the spec.
 */
describe('--via-prism', () => {
  let mock: RunningMockServer | undefined;
  let fake: FakePetstore | undefined;
  afterEach(async () => {
    await Promise.all([mock?.close(1_000), fake?.close()]);
    mock = undefined;
    fake = undefined;
  });

  it('passes our mock, and Prism finds no violation in its responses (exit 0)', async () => {
    mock = await startMockServer({ port: 0, seed: 1 });
    const run = await runKit({ baseUrl: mock.baseUrl, apiKey: 'demo-pro', rateLimitKey: 'demo-free', viaPrism: true });
    expect(idsWith(run, 'FAIL')).toEqual([]);
    expect(run.exitCode).toBe(0);
    const prism = resultOf(run, 'every.prism');
    expect(prism.status).toBe('PASS');
    expect(prism.message).toContain('request-side violations');
    // The 429 went through Prism too, Retry-After included, with no complaint.
    expect(prism.message).not.toContain('Retry-After');
    expect(run.report.target.prismUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(run.log).toContain(`petstore-contract: Prism listens on ${run.report.target.prismUrl}`);
  });

  it("reports Prism's violations of a broken server as a failure of their own", async () => {
    fake = await startFakePetstore({ faults: ['string-ids'] });
    const run = await runKit({ baseUrl: fake.baseUrl, apiKey: fakeKeys.main, viaPrism: true });
    expect(run.exitCode).toBe(1);
    const prism = resultOf(run, 'every.prism');
    expect(prism.status).toBe('FAIL');
    expect(prism.message).toContain('Prism: body.id: Response body property id must be integer');
  });
});
