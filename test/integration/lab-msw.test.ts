import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupPetstoreServer, unhandledRequests } from '../../mocks/node.js';
import { createFixedClock } from '../../src/core/clock.js';

// The lab through MSW's setupServer: the same report as GET /__mock/report, as a function, and the
// vitest-friendly assertion a frontend's test suite ends with.
const { server, report, expectWellBehaved, controls } = setupPetstoreServer({
  seed: 1,
  clock: createFixedClock(Date.UTC(2026, 0, 1)),
  baseUrl: 'https://api.lab.example/v1',
});

beforeAll(() => server.listen(unhandledRequests('error')));
afterAll(() => server.close());

const get = (path: string, key = 'demo-free') =>
  fetch(`https://api.lab.example/v1${path}`, { headers: { authorization: `Bearer ${key}` } });

describe('report() and expectWellBehaved() of the MSW setup', () => {
  it("judges the frontend's client and gates on coverage", async () => {
    expect((await get('/categories')).status).toBe(200);
    await expectWellBehaved();
    await expect(expectWellBehaved({ minCoverage: ['429'] })).rejects.toThrow(/situation 429 was never served/);
    await expect(expectWellBehaved({ minCoverage: ['teapot'] })).rejects.toThrow(/teapot/);
    // A client that retries at once after its 429s, until banned.
    let status = 200;
    for (let index = 0; index < 100 && status !== 429; index += 1) status = (await get('/categories')).status;
    expect(status).toBe(429);
    for (let index = 0; index < 15; index += 1) await get('/categories');
    const judged = await report();
    expect(judged.clients[0]).toMatchObject({ client: 'demo-free', plan: 'free' });
    expect(judged.coverage.situations.ban.met).toBe(true);
    await expect(expectWellBehaved()).rejects.toThrow(/demo-free: retry-after-honoured failed/);
    // The same report over the control route the handlers serve.
    const served = await fetch('https://api.lab.example/__mock/report');
    expect(await served.json()).toEqual(JSON.parse(JSON.stringify(judged)));
    await controls.reset();
    await expectWellBehaved();
    expect((await report()).clients).toEqual([]);
  });
});
