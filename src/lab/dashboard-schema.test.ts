import { describe, expect, it } from 'vitest';
import { toJSONSchema } from 'zod';
import { createTestApp, request } from '../../test/support/core-test-app.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import { snapshotProblem } from '../ui/dashboard-format.js';
import { dashboardSnapshotSchema } from './dashboard-schema.js';

// The core's snapshot is typed by the schema and never runs it: here the mock's real answer is parsed.

async function dashboardAnswer(): Promise<unknown> {
  const app = createTestApp({
    config: parseMockConfig({ keys: [{ key: 'sk_live_secret_1234', limits: { perMinute: 2, perDay: 50 } }] }),
  });
  for (let index = 0; index < 5; index += 1)
    await app.handle(request('GET', '/v1/categories', { key: 'sk_live_secret_1234', clientAddress: '10.0.0.1' }));
  await app.handle(request('GET', '/v1/categories', { clientAddress: '10.0.0.2' }));
  await app.handle(request('GET', '/v1/categories', { key: 'demo-pro', headers: { prefer: 'fault=reset' } }));
  const response = await app.handle({
    method: 'GET',
    url: '/__mock/dashboard',
    headers: {},
    body: null,
    clientAddress: '127.0.0.1',
  });
  return JSON.parse(String(response.body));
}

describe("the dashboard's data schema", () => {
  it('is what the mock answers, field for field, and what the page accepts', async () => {
    const answer = await dashboardAnswer();
    expect(dashboardSnapshotSchema().parse(answer)).toEqual(answer);
    expect((answer as { clients: unknown[] }).clients.length).toBeGreaterThanOrEqual(2);
    expect(snapshotProblem(answer)).toBeUndefined();
  });

  it('carries its version: the schema and the page refuse another in one line', async () => {
    const answer = { ...((await dashboardAnswer()) as object), version: 2 };
    expect(dashboardSnapshotSchema().safeParse(answer).error?.issues[0]?.path).toEqual(['version']);
    expect(snapshotProblem(answer)).toBe('version 2: this page reads version 1; reload the page');
  });

  it('is published as JSON Schema, equal to what zod emits (`npx vitest run -u` rewrites the file)', async () => {
    const emitted = toJSONSchema(dashboardSnapshotSchema(), { io: 'input', unrepresentable: 'any' });
    await expect(`${JSON.stringify(emitted, null, 2)}\n`).toMatchFileSnapshot('../../schemas/dashboard.v1.schema.json');
  });
});
