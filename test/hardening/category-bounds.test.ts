import { describe, expect, it } from 'vitest';
import type { MockConfigInput } from '../../src/core/config/mock-config.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { Logger, MockRequest } from '../../src/core/types.js';
import { specDocument } from './support/core-app.js';

/**
 * Issue 10, item 4: the category store is bounded in bytes as well as in count, so a few hundred
 * categories of ~1 MiB each can no longer make `GET /v1/categories` answer 500 ("Invalid string
 * length") forever. What a bound drops is never silent: logged once, counted in `/__mock/health`.
 */
const encoder = new TextEncoder();

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    warnings,
    info() {},
    warn: (message) => warnings.push(message),
    error: (message) => warnings.push(`error: ${message}`),
    debug() {},
  };
}

function app(config: MockConfigInput = {}) {
  const logger = recordingLogger();
  return { app: createMockApp({ spec: specDocument, config, logger }), logger };
}

const create = (body: Uint8Array): MockRequest => ({
  method: 'POST',
  url: '/v1/categories',
  headers: { authorization: 'Bearer demo-enterprise', 'content-type': 'application/json' },
  body,
  clientAddress: '127.0.0.1',
});
const list: MockRequest = {
  method: 'GET',
  url: '/v1/categories',
  headers: { authorization: 'Bearer demo-enterprise' },
  body: null,
  clientAddress: '127.0.0.1',
};
const health: MockRequest = {
  method: 'GET',
  url: '/__mock/health',
  headers: {},
  body: null,
  clientAddress: '127.0.0.1',
};

describe('the category store, bounded in bytes', () => {
  it('600 categories of ~1 MiB each: the list is still served (200, within maxCategoryBytes), drops counted and logged once', async () => {
    const { app: mock, logger } = app();
    // Just under the 1 MiB body limit: 600 of them are ~600 MB of JSON, past V8's longest string.
    const body = encoder.encode(JSON.stringify({ name: 'x'.repeat(1_000_000) }));
    for (let index = 0; index < 600; index += 1) expect((await mock.handle(create(body))).status).toBe(201);

    const listed = await mock.handle(list);
    expect(listed.status).toBe(200);
    expect(encoder.encode(listed.body!).byteLength).toBeLessThanOrEqual(mock.config.maxCategoryBytes);
    const kept = JSON.parse(listed.body!) as { id: number }[];
    expect(kept.length).toBeGreaterThan(0);
    // The newest are kept, ids never reused.
    expect(kept.at(-1)!.id).toBe(603);

    const state = JSON.parse((await mock.handle(health)).body!) as {
      dropped: { categories: number };
      categories: { count: number; bytes: number; maxBytes: number };
    };
    expect(state.dropped.categories).toBe(603 - kept.length);
    expect(state.categories.count).toBe(kept.length);
    expect(state.categories.bytes).toBe(encoder.encode(listed.body!).byteLength);
    expect(logger.warnings.filter((line) => /store is full/.test(line))).toHaveLength(1);
    expect(logger.warnings.filter((line) => line.startsWith('error'))).toEqual([]);
  });

  it('is configurable: maxCategoryBytes bounds the served list exactly, multi-byte characters counted as bytes', async () => {
    const { app: mock } = app({ maxCategoryBytes: 64 * 1024 });
    const body = encoder.encode(JSON.stringify({ name: 'é🐈'.repeat(1_000), description: '"\\\n'.repeat(500) }));
    for (let index = 0; index < 200; index += 1) expect((await mock.handle(create(body))).status).toBe(201);
    const listed = await mock.handle(list);
    expect(listed.status).toBe(200);
    const bytes = encoder.encode(listed.body!).byteLength;
    expect(bytes).toBeLessThanOrEqual(64 * 1024);
    expect(bytes).toBeGreaterThan(64 * 1024 - 8 * 1024);
  });

  it('refuses a single category larger than the whole bound with 413, storing nothing and using no id', async () => {
    const { app: mock } = app({ maxCategoryBytes: 4 * 1024 });
    const refused = await mock.handle(create(encoder.encode(JSON.stringify({ name: 'y'.repeat(8 * 1024) }))));
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body!)).toMatchObject({ code: 'payload_too_large', status: 413 });
    const next = await mock.handle(create(encoder.encode('{"name":"small"}')));
    expect(JSON.parse(next.body!)).toMatchObject({ id: 4, name: 'small' });
  });

  it('the count bound still holds and is counted in health too; a reset starts over', async () => {
    const { app: mock } = app({ maxCategories: 5 });
    for (let index = 0; index < 20; index += 1) await mock.handle(create(encoder.encode(`{"name":"n${index}"}`)));
    expect((JSON.parse((await mock.handle(list)).body!) as unknown[]).length).toBe(5);
    expect(JSON.parse((await mock.handle(health)).body!)).toMatchObject({
      dropped: { categories: 18 },
      categories: { count: 5, maxCount: 5 },
    });
    await mock.controls.reset();
    expect(JSON.parse((await mock.handle(health)).body!)).toMatchObject({ dropped: { categories: 0 } });
  });

  it('refuses a maxCategoryBytes past what a string can hold', async () => {
    expect(() => app({ maxCategoryBytes: 1024 * 1024 * 1024 })).toThrow(/maxCategoryBytes/);
  });

  it('anonymous clients forgotten past maxTrackedClients are counted in health and logged once too', async () => {
    const { app: mock, logger } = app({ maxTrackedClients: 10 });
    for (let index = 0; index < 25; index += 1)
      await mock.handle({
        method: 'GET',
        url: '/v1/categories',
        headers: {},
        body: null,
        clientAddress: `10.0.0.${index}`,
      });
    expect(JSON.parse((await mock.handle(health)).body!)).toMatchObject({ dropped: { trackedClients: 15 } });
    expect(logger.warnings.filter((line) => /maxTrackedClients/.test(line))).toHaveLength(1);
  });
});
