import { describe, expect, it } from 'vitest';
import { toJSONSchema } from 'zod';
import { createTestApp, request } from '../../test/support/core-test-app.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import { labReportSchema, parseLabReport } from './lab-report-schema.js';

// buildLabReport is typed by the schema and never runs it: here the mock's real answer is parsed.

async function reportAnswer(): Promise<string> {
  const app = createTestApp({
    config: parseMockConfig({ keys: [{ key: 'sk_live_secret_1234', limits: { perMinute: 2, perDay: 50 } }] }),
  });
  const send = (url: string, options: Parameters<typeof request>[2]) => app.handle(request('GET', url, options));
  // Over the budget and back early (429s, a failed retry-after verdict with samples), a 401, a forced
  // 429, a deprecated call, a fault retried without an idempotency key.
  for (let index = 0; index < 5; index += 1)
    await send('/v1/categories', { key: 'sk_live_secret_1234', clientAddress: '10.0.0.1' });
  await send('/v1/categories', { clientAddress: '10.0.0.2' });
  await send('/v1/categories', { key: 'demo-pro', headers: { prefer: 'code=429' } });
  await send('/v1/pets/1', { key: 'demo-pro' });
  await send('/v1/categories', { key: 'demo-free', headers: { prefer: 'fault=reset' } });
  await send('/v1/categories', { key: 'demo-free' });
  const response = await app.handle({
    method: 'GET',
    url: '/__mock/report',
    headers: {},
    body: null,
    clientAddress: '127.0.0.1',
  });
  return String(response.body);
}

const refusal = (text: string): string => {
  try {
    parseLabReport(text);
  } catch (error) {
    return (error as Error).message;
  }
  return 'read';
};

describe("the lab report's schema", () => {
  it('is what the mock answers, field for field, with its version', async () => {
    const text = await reportAnswer();
    const answer = JSON.parse(text);
    expect(parseLabReport(text)).toEqual(answer);
    expect(answer.version).toBe(1);
    expect(answer.clients.map((client: { client: string }) => client.client)).toHaveLength(4);
    const outcomes = answer.clients.flatMap((client: { verdicts: { outcome: string }[] }) =>
      client.verdicts.map((verdict) => verdict.outcome),
    );
    expect(new Set(outcomes)).toEqual(new Set(['pass', 'fail', 'not-exercised', 'info']));
  });

  it('refuses another version, or a wrong field, in one line', async () => {
    const report = JSON.parse(await reportAnswer());
    expect(refusal(JSON.stringify({ ...report, version: 2 }))).toBe(
      'Failed to read the lab report: version: expected 1, got 2 (a report of another petstore-mock)',
    );
    expect(refusal(JSON.stringify({ ...report, version: undefined }))).toMatch(/got none/);
    expect(refusal('[]')).toMatch(/got none/);
    expect(refusal('{"version":1')).toMatch(/^Failed to read the lab report: not JSON \(/);
    report.clients[0].kind = 'robot';
    expect(refusal(JSON.stringify(report))).toMatch(/^Failed to read the lab report: clients\.0\.kind: /);
  });

  it('keeps every refusal one short line, whatever the size of what it quotes', async () => {
    const huge = 'x'.repeat(1_000_000);
    const report = JSON.parse(await reportAnswer());
    const cases = {
      version: { ...report, version: huge },
      // A record's key is in the path; an unknown situation is quoted in zod's message.
      path: {
        ...report,
        clients: [{ ...report.clients[0], requests: { ...report.clients[0].requests, byStatus: { [huge]: -1 } } }],
      },
      message: {
        ...report,
        coverage: { ...report.coverage, situations: { ...report.coverage.situations, [huge]: {} } },
      },
      escaped: {
        ...report,
        clients: [{ ...report.clients[0], requests: { ...report.clients[0].requests, byStatus: { '\u001b[2J': -1 } } }],
      },
    };
    const messages = Object.values(cases).map((value) => refusal(JSON.stringify(value)));
    for (const message of messages) {
      expect(message).toMatch(/^Failed to read the lab report: /);
      expect(message.length).toBeLessThan(300);
    }
    expect(messages[0]).toMatch(/got "x+… \(1000002 chars\)/);
    expect(messages[1]).toMatch(/^Failed to read the lab report: clients\.0\.requests\.byStatus\."x{30}…": /);
    expect(messages[2]).toMatch(/^Failed to read the lab report: coverage\.situations: .*… \(\d+ chars\)$/);
    expect(messages[3]).toContain('byStatus."\\u001b[2J"');
    expect(messages[3]).not.toContain('\u001b');
  });

  it('is published as JSON Schema, equal to what zod emits (`npx vitest run -u` rewrites the file)', async () => {
    const emitted = toJSONSchema(labReportSchema(), { io: 'input', unrepresentable: 'any' });
    await expect(`${JSON.stringify(emitted, null, 2)}\n`).toMatchFileSnapshot(
      '../../schemas/lab-report.v1.schema.json',
    );
  });
});
