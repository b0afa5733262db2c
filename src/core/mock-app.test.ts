import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../spec/openapi-types.js';
import { createTestApp, exchange, request, specDocument } from '../../test/support/core-test-app.js';
import { expectError, expectRateLimitHeaders, fromMockResponse } from '../../test/support/interface-client.js';

// What is specific to the core and its factory: the options it is built with (spec, seed, config,
// initialCategories), the client address a transport reports, the transport's bodyTooLarge flag,
// replaceSpec. The interface's rules, the same on every transport and store, are one table of
// cases: test/integration/interface-rules.case.ts.

function cloneSpec(): OpenApiDocument {
  return structuredClone(specDocument);
}

describe('the client address a transport reports', () => {
  it('gives every anonymous client its own budget', async () => {
    const app = createTestApp({ config: { anonymous: { perMinute: 2, perDay: 100 } } });
    expect(
      (await exchange(app, 'GET', '/v1/categories', { clientAddress: '127.0.0.2' })).headers['x-ratelimit-remaining'],
    ).toBe('1');
    await exchange(app, 'GET', '/v1/categories', { key: 'wrong', clientAddress: '127.0.0.2' });
    expectError(await exchange(app, 'GET', '/v1/categories', { clientAddress: '127.0.0.2' }), 429, 'rate_limited');
    expectError(await exchange(app, 'GET', '/v1/categories', { clientAddress: '127.0.0.3' }), 401, 'unauthorized');
  });

  it('keeps a ban however many anonymous clients come and go past maxTrackedClients', async () => {
    const app = createTestApp({
      config: {
        keys: [{ key: 'tiny', limits: { perMinute: 1, perDay: 100 } }],
        ban: { threshold: 1 },
        maxTrackedClients: 10,
      },
    });
    await exchange(app, 'GET', '/v1/categories', { key: 'tiny' });
    await exchange(app, 'GET', '/v1/categories', { key: 'tiny' });
    expect((await exchange(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code).toBe('key_banned');
    for (let index = 0; index < 100; index += 1)
      await exchange(app, 'GET', '/v1/categories', { clientAddress: `192.0.2.${index}` });
    expect((await exchange(app, 'GET', '/v1/categories', { key: 'tiny' })).json.code).toBe('key_banned');
  });

  it('decides who may drive the controls: loopback only unless allowed; no address is a same-process caller', async () => {
    expectError(
      await exchange(createTestApp(), 'POST', '/__mock/reset', { clientAddress: '10.1.2.3' }),
      403,
      'control_forbidden',
    );
    expect(
      (
        await exchange(createTestApp({ config: { allowRemoteControl: true } }), 'POST', '/__mock/reset', {
          clientAddress: '10.1.2.3',
        })
      ).status,
    ).toBe(200);
    expect(
      (await exchange(createTestApp(), 'POST', '/__mock/reset', { clientAddress: '::ffff:127.0.0.1' })).status,
    ).toBe(200);
    expect(
      (await exchange(createTestApp(), 'POST', '/__mock/reset', { headers: { origin: 'https://evil.example' } }))
        .status,
    ).toBe(200);
    // The token is asked of every caller, same-process ones included.
    expectError(
      await exchange(createTestApp({ config: { controlToken: 's3cret' } }), 'POST', '/__mock/reset'),
      403,
      'control_forbidden',
    );
  });
});

describe('the transport flag bodyTooLarge', () => {
  it('is answered 413 on the API, counted, and on the controls', async () => {
    const app = createTestApp();
    const response = fromMockResponse(
      await app.handle({ ...request('POST', '/v1/categories', { key: 'demo-free' }), bodyTooLarge: true }),
    );
    expectError(response, 413, 'payload_too_large');
    expectRateLimitHeaders(response);
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    expect((await app.handle({ ...request('POST', '/__mock/keys'), bodyTooLarge: true })).status).toBe(413);
    expect(await app.controls.categories()).toHaveLength(3);
  });
});

describe('factory options: seed and initialCategories', () => {
  it('seeds categories with faker, the same for the same seed', async () => {
    const list = async (seed: number) =>
      (await exchange(createTestApp({ seed }), 'GET', '/v1/categories', { key: 'demo-free' })).json;
    const first = await list(7);
    expect(first).toEqual(await list(7));
    expect(first).not.toEqual(await list(8));
    expect(first).toHaveLength(3);
  });

  it('gives seeded categories distinct names where faker offers enough of them', async () => {
    for (const seed of [1, 2, 3, 42]) {
      const names = (await createTestApp({ seed, config: { seedCategories: 10 } }).controls.categories()).map(
        (category) => category.name,
      );
      expect(new Set(names).size, `seed ${seed}: ${names.join(', ')}`).toBe(10);
    }
  });

  it('starts from initialCategories, numbered from 1, and a reset restores them', async () => {
    const app = createTestApp({ initialCategories: [{ name: 'only' }] });
    expect(
      (await exchange(app, 'GET', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=200' } })).json,
    ).toEqual([{ id: 1, name: 'only' }]);
    expect((await exchange(app, 'POST', '/v1/categories', { key: 'demo-pro', json: { name: 'dog' } })).json).toEqual({
      id: 2,
      name: 'dog',
    });
    await app.controls.reset();
    expect(await app.controls.categories()).toEqual([{ id: 1, name: 'only' }]);
  });
});

describe('factory options: the spec drives the mock', () => {
  it('serves an operation added to the spec, with data generated from its schema, repeatable under a seed', async () => {
    const spec = cloneSpec();
    spec.paths!['/toys'] = {
      get: {
        operationId: 'listToys',
        responses: {
          '200': {
            description: 'toys',
            content: {
              'application/json': {
                schema: {
                  type: 'array',
                  minItems: 2,
                  maxItems: 2,
                  items: {
                    type: 'object',
                    required: ['id', 'label'],
                    properties: {
                      id: { type: 'integer' },
                      label: { type: 'string', 'x-faker': 'commerce.productName' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    const first = await exchange(createTestApp({ spec, seed: 5 }), 'GET', '/v1/toys', { key: 'demo-pro' });
    const again = await exchange(createTestApp({ spec, seed: 5 }), 'GET', '/v1/toys', { key: 'demo-pro' });
    expect(first.status).toBe(200);
    expect(first.json).toHaveLength(2);
    for (const toy of first.json) expect(toy).toEqual({ id: expect.any(Number), label: expect.any(String) });
    expect(first.json).toEqual(again.json);
    expectError(await exchange(createTestApp({ spec }), 'GET', '/v1/toys'), 401, 'unauthorized');
  });

  it('follows a change of the request schema in the spec', async () => {
    const spec = cloneSpec();
    (spec.components!.schemas!.NewCategory as { required: string[] }).required = ['name', 'description'];
    expectError(
      await exchange(createTestApp({ spec }), 'POST', '/v1/categories', { key: 'demo-pro', json: { name: 'dog' } }),
      400,
      'validation_failed',
      /description is required/,
    );
  });

  it('serves public operations (security: []) without a key', async () => {
    const spec = cloneSpec();
    spec.paths!['/store/orders']!.get!.security = [];
    expect((await exchange(createTestApp({ spec }), 'GET', '/v1/store/orders')).status).toBe(200);
  });

  it('marks operations with x-stability', async () => {
    const spec = cloneSpec();
    spec.paths!['/store/orders']!.get!['x-stability'] = 'beta';
    expect(
      (await exchange(createTestApp({ spec }), 'GET', '/v1/store/orders', { key: 'demo-pro' })).headers['x-stability'],
    ).toBe('beta');
  });

  it('refuses to start on an x-stability value the interface does not define', async () => {
    const spec = cloneSpec();
    spec.paths!['/store/orders']!.get!['x-stability'] = 'alpha';
    expect(() => createTestApp({ spec })).toThrow(/x-stability "alpha"; expected experimental or beta/);
  });
});

describe('factory options: a config it cannot serve is refused at start, naming the field', () => {
  it('refuses deprecation dates it could not put in a header, and overrides for operations that are not deprecated', async () => {
    expect(() => createTestApp({ config: { deprecation: { getPetById: { sunset: 'March 7' } } } })).toThrow(
      /deprecation\.getPetById\.sunset: must be an ISO 8601 date/,
    );
    expect(() => createTestApp({ config: { deprecation: { getPetByIdTypo: { sunset: '2027-01-01' } } } })).toThrow(
      /deprecation\.getPetByIdTypo: no operation has that operationId/,
    );
    expect(() => createTestApp({ config: { deprecation: { listCategories: { sunset: '2027-01-01' } } } })).toThrow(
      /not deprecated in the spec/,
    );
    const spec = cloneSpec();
    spec.paths!['/pets/{petId}']!.get!['x-deprecation'] = { sunset: 'TBD' };
    expect(() => createTestApp({ spec })).toThrow(/x-deprecation\.sunset "TBD"; expected an ISO 8601 date/);
  });

  it('refuses a key whose plan is not a plan, even a name every object has', () => {
    expect(() => createTestApp({ config: { keys: [{ key: 'k', plan: 'valueOf' }] } })).toThrow(
      /keys\.0\.plan: unknown plan "valueOf"/,
    );
  });

  it('refuses rateLimitHeaders with an unknown style', () => {
    expect(() => createTestApp({ config: { rateLimitHeaders: ['x-ratelimit', 'draft-7'] as never } })).toThrow(
      /rateLimitHeaders\.1/,
    );
  });
});

describe('controls as functions', () => {
  it('move the clock, add keys, list the log and reset, as the HTTP controls do', async () => {
    const app = createTestApp();
    expect(await app.controls.advanceClock(90)).toMatchObject({ offsetSeconds: 90 });
    expect((await app.controls.addKey({ key: 'team-key-123456', plan: 'business' })).created).toBe(true);
    expect(
      (await exchange(app, 'GET', '/v1/categories', { key: 'team-key-123456' })).headers['x-ratelimit-limit'],
    ).toBe('1000');
    expect(await app.controls.requests()).toEqual([
      expect.objectContaining({ plan: 'business', key: 'team…(15)', status: 200 }),
    ]);
    await app.controls.reset();
    expect(await app.controls.requests()).toEqual([]);
    expectError(await exchange(app, 'GET', '/v1/categories', { key: 'team-key-123456' }), 401, 'unauthorized');
  });

  it('give the dashboard without an argument, as their type allows (found by the input fuzz suite)', async () => {
    const app = createTestApp();
    await exchange(app, 'GET', '/v1/categories', { key: 'demo-free' });
    expect((await app.controls.dashboard()).recent).toHaveLength(1);
    expect((await app.controls.dashboard({ limit: 1 })).recent).toHaveLength(1);
  });
});

describe('replaceSpec (petstore-mock --watch)', () => {
  it('serves the new spec and keeps keys, counters, data and the log', async () => {
    const app = createTestApp();
    await app.controls.addKey({ key: 'added-key', plan: 'pro' });
    expect((await exchange(app, 'POST', '/v1/categories', { key: 'demo-free', json: { name: 'kept' } })).status).toBe(
      201,
    );
    const renamed = cloneSpec();
    renamed.info.title = 'Renamed';
    renamed.servers = [{ url: 'http://127.0.0.1:4010/v2' }];
    app.replaceSpec(renamed);
    expect(app.spec.title).toBe('Renamed');
    expect(app.basePath).toBe('/v2');
    const listed = await exchange(app, 'GET', '/v2/categories', { key: 'demo-free' });
    expect(listed.status).toBe(200);
    expect(listed.json.map((category: { name: string }) => category.name)).toContain('kept');
    expect(listed.headers['x-ratelimit-remaining']).toBe('58');
    expect((await exchange(app, 'GET', '/v2/categories', { key: 'added-key' })).status).toBe(200);
    expect((await exchange(app, 'GET', '/v1/categories', { key: 'demo-free' })).status).toBe(404);
    expect((await app.controls.requests()).length).toBe(4);
  });

  it('changes nothing when the new spec cannot be served', async () => {
    const app = createTestApp({ config: { deprecation: { getPetById: { sunset: '2027-12-31T23:59:59Z' } } } });
    const withoutPets = cloneSpec();
    delete (withoutPets.paths as Record<string, unknown>)['/pets/{petId}'];
    expect(() => app.replaceSpec(withoutPets)).toThrow(/deprecation\.getPetById: no operation has that operationId/);
    expect(app.spec.operations.some((operation) => operation.operationId === 'getPetById')).toBe(true);
    expect((await exchange(app, 'GET', '/v1/pets/1', { key: 'demo-free' })).headers.sunset).toBe(
      'Fri, 31 Dec 2027 23:59:59 GMT',
    );
  });
});

describe('a created category', () => {
  // Whatever the body's order, spacing or extra keys, the category is the declared fields, in the
  // spec's order, as JSON.stringify writes them.
  it('is the declared fields of any body, in the spec order, whatever the body order, spacing, escapes or extra keys', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ maxLength: 12, unit: 'binary' }),
      fc.constantFrom('dog', '"', '\\', 'caf\u00e9', 'tab\there'),
    );
    const body = fc.record(
      { name: text, description: text, extra: fc.oneof(text, fc.integer()) },
      { requiredKeys: ['name'] },
    );
    const layout = fc.constantFrom('compact', 'spaced', 'reversed');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(body, layout), { minLength: 1, maxLength: 5 }), async (bodies) => {
        const app = createTestApp();
        const created: unknown[] = [];
        for (const [fields, how] of bodies) {
          const entries = Object.entries(fields);
          const sent =
            how === 'spaced'
              ? JSON.stringify(fields, null, 1)
              : JSON.stringify(Object.fromEntries(how === 'reversed' ? entries.reverse() : entries));
          const answer = await app.handle(
            request('POST', '/v1/categories', {
              key: 'demo-pro',
              body: sent,
              headers: { 'content-type': 'application/json' },
            }),
          );
          expect(answer.status).toBe(201);
          const declared =
            fields.description === undefined
              ? { name: fields.name }
              : { name: fields.name, description: fields.description };
          const id = (JSON.parse(answer.body!) as { id: number }).id;
          expect(answer.body).toBe(JSON.stringify({ id, ...declared }));
          created.push(JSON.parse(answer.body!));
        }
        const list = await app.handle(request('GET', '/v1/categories', { key: 'demo-pro' }));
        expect((JSON.parse(list.body!) as unknown[]).slice(-bodies.length)).toEqual(created);
      }),
      { numRuns: 60 },
    );
    // 60 apps, each compiled from the spec: seconds on a busy machine, past vitest's default 5 s.
  }, 30_000);
});
