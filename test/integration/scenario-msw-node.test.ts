import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupPetstoreServer, unhandledRequests } from '../../mocks/node.js';
import { createFixedClock } from '../../src/core/clock.js';

// The Node MSW setup with a scenario, intercepting the global fetch: the first request waits for
// the scenario, without the test awaiting anything.
const { server, ready } = setupPetstoreServer({
  seed: 1,
  clock: createFixedClock(Date.UTC(2026, 0, 1)),
  baseUrl: 'https://api.scenario-node.example/v1',
  scenario: 'presets: [minute-almost-spent, after-sunset-gone]',
});

beforeAll(() => server.listen(unhandledRequests('error')));
afterAll(() => server.close());

it('answers the first request from the state the scenario set up', async () => {
  const get = (path: string) =>
    fetch(`https://api.scenario-node.example/v1${path}`, { headers: { authorization: 'Bearer demo-free' } });
  const last = await get('/categories');
  expect([last.status, last.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
  const refused = await get('/categories');
  expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '60']);
  await ready;
  const pets = await fetch('https://api.scenario-node.example/v1/pets/1', {
    headers: { authorization: 'Bearer demo-pro' },
  });
  expect(pets.status).toBe(410);
  expect(((await pets.json()) as { code: string }).code).toBe('operation_sunset');
});
