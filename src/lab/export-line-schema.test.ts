import { describe, expect, it } from 'vitest';
import { toJSONSchema, type ZodType } from 'zod';
import { createTestApp, request } from '../../test/support/core-test-app.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import { exportLineSchema, readExportLine, readStateLine, stateLineSchema } from './export-line-schema.js';
import { toExportLine } from './export-lines.js';

// The export's writers are typed by the schema and never run it: these parse what they really write.

const config = parseMockConfig({ keys: [{ key: 'sk_live_secret_1234', limits: { perMinute: 2, perDay: 50 } }] });

async function exportedLines(): Promise<unknown[]> {
  const app = createTestApp({ config });
  const send = (init: Parameters<typeof request>[2], method = 'GET', url = '/v1/categories') =>
    app.handle(request(method, url, { clientAddress: '10.0.0.1', ...init }));
  await app.handle({ method: 'POST', url: '/__mock/reset', headers: {}, body: null, clientAddress: '127.0.0.1' });
  for (let index = 0; index < 4; index += 1) await send({ key: 'sk_live_secret_1234' });
  await send({ key: 'not-a-key' });
  await send({});
  await send({ key: 'demo-pro', json: { name: 'x' } }, 'POST');
  await send({ key: 'demo-pro', headers: { prefer: 'code=500' } });
  await send({ key: 'demo-pro', headers: { prefer: 'fault=reset, delay=5' } });
  const response = await app.handle({
    method: 'GET',
    url: '/__mock/requests?format=jsonl',
    headers: {},
    body: null,
    clientAddress: '127.0.0.1',
  });
  return String(response.body)
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('the export lines schema', () => {
  it("is what the mock's export writes: its state line and every request line parse, unchanged", async () => {
    const [state, ...requests] = await exportedLines();
    expect(stateLineSchema().parse(state)).toEqual(state);
    expect(requests.length).toBeGreaterThanOrEqual(9);
    for (const line of requests) expect(exportLineSchema().parse(line)).toEqual(line);
    const kinds = new Set(requests.map((line) => (line as { auth: string }).auth));
    expect(kinds).toEqual(new Set(['key', 'invalid', 'none']));
    expect(requests.some((line) => (line as { fault?: string }).fault === 'reset')).toBe(true);
  });

  it('reads a line without the texts an older writer left out as null', () => {
    const line = JSON.parse(
      toExportLine({
        timeMs: 0,
        method: 'GET',
        url: '/v1/categories',
        auth: 'none',
        plan: 'anonymous',
        limits: { perMinute: 10, perDay: 100 },
        status: 200,
        code: null,
        operationId: null,
      }),
    ) as Record<string, unknown>;
    for (const field of ['code', 'operationId', 'prefer', 'contentType', 'body']) delete line[field];
    expect(readExportLine(line)).toMatchObject({ line: { code: null, prefer: null, body: null } });
  });

  it('refuses another version in one line, naming the field and the version it reads', () => {
    expect(readExportLine({ v: 2 })).toEqual({ problem: 'v: expected version 1' });
    expect(readStateLine({ v: 2, type: 'state' })).toEqual({ problem: 'v: expected version 1' });
    expect(readExportLine('text')).toEqual({ problem: '(line): expected a JSON object (one request per line)' });
  });

  it('never quotes what a line holds: a megabyte in any field is refused in a short line', async () => {
    const [state, request] = (await exportedLines()) as Record<string, unknown>[];
    const huge = '\u001b'.repeat(1_000_000);
    const problems = [
      ...Object.keys(request!).map((field) => readExportLine({ ...request, [field]: huge })),
      readExportLine({ ...request, limits: { [huge]: 1 } }),
      readExportLine(huge),
      ...Object.keys(state!).map((field) => readStateLine({ ...state, [field]: huge })),
      readStateLine({ ...state, scenario: { keys: [{ key: huge, plan: huge, [huge]: huge }] } }),
      readStateLine({ ...state, scenario: { [huge]: 1 } }),
    ].map((reading) => ('problem' in reading ? reading.problem : 'read'));
    for (const problem of problems) {
      // A scenario's refusal names up to a few problems, each key quoted short (escaped, so longer).
      expect(problem.length).toBeLessThan(1000);
      expect(problem).not.toContain('\u001b');
    }
  });

  it('is published as JSON Schema, equal to what zod emits (`npx vitest run -u` rewrites the files)', async () => {
    const emit = (schema: ZodType) =>
      `${JSON.stringify(toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), null, 2)}\n`;
    await expect(emit(exportLineSchema())).toMatchFileSnapshot('../../schemas/export-line.v1.schema.json');
    await expect(emit(stateLineSchema())).toMatchFileSnapshot('../../schemas/export-state-line.v1.schema.json');
  });
});
