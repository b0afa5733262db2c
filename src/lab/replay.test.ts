import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { createTestApp, request, specDocument } from '../../test/support/core-test-app.js';
import {
  formatReplaySummary,
  type ReplayCommandIo,
  replayAgainstMockApp,
  runReplayCommand,
} from '../cli/replay-command.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import { keyPseudonym, parseKeyMapping, parseReplayInput, toExportLine } from './replay-input.js';

const config = parseMockConfig({ keys: [{ key: 'sk_live_secret_1234', limits: { perMinute: 5, perDay: 50 } }] });
const plans = config.plans;

/**
 * Real traffic against a real mock, exported line by line as the core will export its log: a key
 * driven into a ban, a custom key, anonymous clients with and without a bad key, invalid bodies,
 * forced responses and the deprecated operation.
 */
async function recordTraffic(): Promise<string> {
  const app = createTestApp({ config });
  const lines: string[] = [];
  const send = async (options: {
    key?: string;
    address?: string;
    method?: string;
    url?: string;
    json?: unknown;
    body?: string;
    prefer?: string;
    keyValid?: boolean;
    plan?: string;
    limits?: { perMinute: number; perDay: number };
    operationId?: string | null;
  }) => {
    const headers: Record<string, string> = {};
    if (options.prefer) headers.prefer = options.prefer;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const mockRequest = request(options.method ?? 'GET', options.url ?? '/v1/categories', {
      key: options.key,
      headers,
      json: options.json,
      body: options.body,
      clientAddress: options.address ?? '10.0.0.1',
    });
    const response = await app.handle(mockRequest);
    const code = response.status >= 400 && response.body ? (JSON.parse(response.body) as { code: string }).code : null;
    const valid = options.key !== undefined && options.keyValid !== false;
    lines.push(
      toExportLine({
        timeMs: app.clock.now(),
        method: mockRequest.method,
        url: mockRequest.url,
        keyDigest: valid ? bytesToHex(sha256(new TextEncoder().encode(options.key!))) : null,
        clientAddress: mockRequest.clientAddress ?? null,
        auth: valid ? 'key' : options.key !== undefined ? 'invalid' : 'none',
        plan: valid ? (options.plan ?? 'free') : 'anonymous',
        limits: valid ? (options.limits ?? { perMinute: 60, perDay: 1000 }) : config.anonymous,
        status: response.status,
        code,
        operationId: options.operationId === undefined ? 'listCategories' : options.operationId,
        prefer: options.prefer ?? null,
        contentType: mockRequest.headers['content-type'] ?? null,
        body: mockRequest.body === null ? null : new TextDecoder().decode(mockRequest.body),
      }),
    );
    return response;
  };
  for (let second = 0; second < 200; second += 1) {
    await send({ key: 'demo-free' });
    if (second % 3 === 0)
      await send({ key: 'sk_live_secret_1234', plan: 'custom', limits: { perMinute: 5, perDay: 50 } });
    if (second % 7 === 0) await send({ key: 'demo-free', url: '/v1/pets/4', operationId: 'getPetById' });
    if (second % 11 === 0)
      await send({
        method: 'POST',
        key: 'demo-pro',
        plan: 'pro',
        limits: { perMinute: 300, perDay: 10_000 },
        json: { name: second % 2 === 0 ? '' : `cat ${second}` },
        operationId: 'createCategory',
      });
    if (second % 13 === 0) await send({ key: 'demo-free', prefer: 'code=429' });
    if (second % 5 === 0) await send({ address: '10.0.0.2', url: '/v1/store/orders', operationId: 'listStoreOrders' });
    if (second % 17 === 0) await send({ key: 'not-a-real-key', keyValid: false, address: '10.0.0.3' });
    if (second % 19 === 0)
      await send({
        method: 'POST',
        key: 'demo-pro',
        plan: 'pro',
        limits: { perMinute: 300, perDay: 10_000 },
        body: '{not json',
        operationId: 'createCategory',
      });
    app.clock.advance(second < 60 ? 250 : 1000);
  }
  return `${lines.join('\n')}\n`;
}

describe("replay of the mock's own export", () => {
  it('reproduces every recorded status, with no key in the export', async () => {
    const text = await recordTraffic();
    expect(text).not.toContain('sk_live');
    expect(text).not.toContain('demo-free');
    expect(text).toContain(keyPseudonym('demo-free'));
    const requests = parseReplayInput(text, { plans });
    const result = await replayAgainstMockApp(requests, config, specDocument);
    expect(result.recorded.differences).toEqual([]);
    expect(result.recorded.same).toBe(requests.length);
    expect(result.byStatus['429']).toBeGreaterThan(0);
    const free = result.clients.find((client) => client.client === keyPseudonym('demo-free'))!;
    expect(free.plan).toBe('free');
    expect(result.report.coverage.situations['400'].met).toBe(true);
    expect(result.report.coverage.situations['401'].met).toBe(true);
    expect(result.report.coverage.situations['deprecated-call'].met).toBe(true);
    expect(
      result.report.coverage.operations
        .find((operation) => operation.operationId === 'listCategories')!
        .statuses.find((status) => status.status === 429)!.forced,
    ).toBeGreaterThan(0);
  });

  it('is deterministic: same input, same result, byte for byte', async () => {
    const text = await recordTraffic();
    const first = await replayAgainstMockApp(parseReplayInput(text, { plans }), config, specDocument);
    const second = await replayAgainstMockApp(parseReplayInput(text, { plans }), config, specDocument);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(formatReplaySummary(second)).toBe(formatReplaySummary(first));
  });

  it('changes a recorded plan with --key PSEUDONYM=plan', async () => {
    const text = await recordTraffic();
    const requests = parseReplayInput(text, { plans, keyPlans: new Map([[keyPseudonym('demo-free'), 'enterprise']]) });
    const result = await replayAgainstMockApp(requests, config, specDocument);
    const free = result.clients.find((client) => client.client === keyPseudonym('demo-free'))!;
    expect(free.plan).toBe('enterprise');
    expect(free.byStatus['429'] ?? 0).toBe(
      result.report.coverage.operations
        .find((operation) => operation.operationId === 'listCategories')!
        .statuses.find((status) => status.status === 429)!.forced,
    );
  });

  it('names the line of a malformed export', async () => {
    const good = (await recordTraffic()).split('\n');
    expect(() => parseReplayInput(`${good[0]}\n{"v":1}\n`, { plans })).toThrow(
      'Failed to read the recording: line 2: time: expected an ISO date-time',
    );
    expect(() => parseReplayInput(`${good[0]}\nnot json\n`, { plans })).toThrow(
      /^Failed to read the recording: line 2: not JSON/,
    );
    expect(() => parseReplayInput(good[0]!.replace('"client":"client-', '"client":"sk_live-'), { plans })).toThrow(
      /line 1: client: expected a pseudonym/,
    );
    expect(() => parseReplayInput('   \n', { plans })).toThrow('Failed to read the recording: it is empty');
  });
});

function har(
  entries: { time: string; method?: string; url?: string; key?: string; status?: number; body?: string }[],
): string {
  return JSON.stringify(
    {
      log: {
        version: '1.2',
        creator: { name: 'test', version: '1' },
        entries: entries.map((entry) => ({
          startedDateTime: entry.time,
          request: {
            method: entry.method ?? 'GET',
            url: `https://api.example.com${entry.url ?? '/v1/categories'}`,
            httpVersion: 'HTTP/2',
            headers: [
              { name: ':authority', value: 'api.example.com' },
              ...(entry.key ? [{ name: 'Authorization', value: `Bearer ${entry.key}` }] : []),
            ],
            ...(entry.body ? { postData: { mimeType: 'application/json', text: entry.body } } : {}),
          },
          response: { status: entry.status ?? 200 },
        })),
      },
    },
    null,
    2,
  );
}

describe('HAR', () => {
  const burst = Array.from({ length: 8 }, (_, index) => ({
    time: new Date(Date.UTC(2026, 3, 1, 12, 0, index)).toISOString(),
    key: 'sk_live_abcdefgh1234',
  }));

  it('maps real keys to plans with --key or --default-plan and replays them', async () => {
    expect(() => parseReplayInput(har(burst), { plans })).toThrow(
      'The recording uses 1 key this mock does not know (sk_l…(20)): map it to a plan with --key KEY=plan or --default-plan PLAN',
    );
    const requests = parseReplayInput(har(burst), { plans, keyPlans: new Map([['sk_live_abcdefgh1234', '5/100']]) });
    expect(requests[0]).toMatchObject({
      client: 'sk_l…(20)',
      kind: 'key',
      plan: 'custom',
      limits: { perMinute: 5, perDay: 100 },
      url: '/v1/categories',
    });
    expect(requests[0]!.headers[':authority']).toBeUndefined();
    const result = await replayAgainstMockApp(requests, config, specDocument);
    expect(result.byStatus).toEqual({ '200': 5, '429': 3 });
    expect(parseReplayInput(har(burst), { plans, defaultPlan: 'pro' })[0]!.plan).toBe('pro');
    expect(() => parseReplayInput(har(burst), { plans, defaultPlan: 'gold' })).toThrow(
      '--default-plan: unknown plan "gold" (known: free, pro, business, enterprise, or perMinute/perDay)',
    );
  });

  it('sorts entries by time and keeps demo keys as they are', async () => {
    const requests = parseReplayInput(
      har([{ time: '2026-04-01T12:00:05Z', key: 'demo-pro' }, { time: '2026-04-01T12:00:01Z' }]),
      { plans, demoKeys: { 'demo-pro': 'pro' } },
    );
    expect(requests.map((entry) => entry.client)).toEqual(['anonymous recorded-client', 'demo-pro']);
  });

  it('names the entry of a malformed HAR', async () => {
    expect(() => parseReplayInput('{"log": {"entries": [{"startedDateTime": "yesterday"}]}}', { plans })).toThrow(
      'Failed to read the recording: log.entries[0].startedDateTime: expected an ISO date-time',
    );
    expect(() => parseReplayInput('{\n "log": 3\n}', { plans })).toThrow(
      'log.entries: expected the array of a HAR 1.2 file',
    );
    expect(() => parseReplayInput('{\n "log": {', { plans })).toThrow(/^Failed to read the recording: not valid JSON/);
  });

  it('parses --key values', async () => {
    expect(parseKeyMapping('a=b=pro')).toEqual(['a=b', 'pro']);
    expect(() => parseKeyMapping('nokey')).toThrow('Invalid --key "nokey": expected KEY=plan or KEY=perMinute/perDay');
  });
});

describe('runReplayCommand', () => {
  function fakeIo(
    files: Record<string, string>,
  ): ReplayCommandIo & { out: string; err: string; written: Record<string, string> } {
    const io = {
      out: '',
      err: '',
      written: {} as Record<string, string>,
      stdout: (text: string) => {
        io.out += text;
      },
      stderr: (text: string) => {
        io.err += text;
      },
      readFile: async (path: string) => {
        if (!(path in files)) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        return files[path]!;
      },
      writeFile: async (path: string, text: string) => {
        io.written[path] = text;
      },
    };
    return io;
  }

  it('prints a summary and writes the report (JSON or JUnit) and the timeline', async () => {
    const io = fakeIo({
      'incident.har': har(
        Array.from({ length: 80 }, (_, index) => ({
          time: new Date(Date.UTC(2026, 3, 1, 12, 0, 0, index * 100)).toISOString(),
          key: 'demo-free',
        })),
      ),
    });
    expect(await runReplayCommand(['incident.har', '--report', 'r.json', '--timeline', 't.svg'], io)).toBe(0);
    expect(io.out).toContain('Replayed 80 requests recorded from 2026-04-01T12:00:00.000Z to 2026-04-01T12:00:07.900Z');
    expect(io.out).toMatch(
      /demo-free\s+free\s+80\s+60\s+0\s+20\s+0\s+1\s+FAIL retry-after-honoured, backoff-growing, no-hammering/,
    );
    const report = JSON.parse(io.written['r.json']!);
    expect(report.clients[0].client).toBe('demo-free');
    expect(io.written['t.svg']).toMatch(/^<svg /);
    expect(await runReplayCommand(['incident.har', '--report', 'r.xml'], io)).toBe(0);
    expect(io.written['r.xml']).toContain('<failure message="banned 1 time');
  });

  it('answers bad input with one line and status 2', async () => {
    const io = fakeIo({ 'bad.jsonl': '{"v":2}\n' });
    expect(await runReplayCommand([], io)).toBe(2);
    expect(await runReplayCommand(['missing.har'], io)).toBe(2);
    expect(await runReplayCommand(['bad.jsonl'], io)).toBe(2);
    expect(await runReplayCommand(['bad.jsonl', '--timeline', 'x.png'], io)).toBe(2);
    expect(await runReplayCommand(['bad.jsonl', '--nope'], io)).toBe(2);
    const lines = io.err.trim().split('\n');
    expect(lines).toContain('petstore-mock replay: Failed to read missing.har: no such file');
    expect(lines).toContain('petstore-mock replay: Failed to read the recording: line 1: v: expected version 1');
    expect(await runReplayCommand(['--help'], io)).toBe(0);
    expect(io.out).toContain('--default-plan PLAN');
  });
});

describe('the replay walk-through of docs/lab-and-replay.md', () => {
  it('records, exports, replays and draws: test-output/lab-walkthrough.{jsonl,json,svg}', async () => {
    const { mkdirSync, writeFileSync, readFileSync } = await import('node:fs');
    mkdirSync('test-output', { recursive: true });
    writeFileSync('test-output/lab-walkthrough.jsonl', await recordTraffic());
    const out: string[] = [];
    const io = {
      stdout: (text: string) => void out.push(text),
      stderr: (text: string) => void out.push(text),
      readFile: async (path: string) => readFileSync(path, 'utf8'),
      writeFile: async (path: string, text: string) => writeFileSync(path, text),
    };
    const status = await runReplayCommand(
      [
        'test-output/lab-walkthrough.jsonl',
        '--report',
        'test-output/lab-walkthrough.json',
        '--timeline',
        'test-output/lab-walkthrough.svg',
      ],
      io,
    );
    expect(out.join('')).toContain('Recorded statuses: ');
    expect(status).toBe(0);
    writeFileSync('test-output/lab-walkthrough.txt', out.join(''));
    const report = JSON.parse(readFileSync('test-output/lab-walkthrough.json', 'utf8'));
    expect(report.clients.length).toBe(5);
    expect(readFileSync('test-output/lab-walkthrough.svg', 'utf8')).toContain(
      'Replay of test-output/lab-walkthrough.jsonl',
    );
  });
});

describe('replay against an asynchronous mock (the core after issue 11)', () => {
  it('gives the same result as against the synchronous one', async () => {
    const { createMockApp } = await import('../core/mock-app.js');
    const { replay } = await import('./replay.js');
    const requests = parseReplayInput(await recordTraffic(), { plans });
    const run = (asynchronous: boolean) =>
      replay(requests, {
        createApp: async (clock) => {
          const app = createMockApp({ spec: specDocument, config, clock, seed: 1 });
          return {
            handle: (mockRequest) => (asynchronous ? app.handle(mockRequest) : app.handle(mockRequest)),
            addKey: async (input) => app.controls.addKey(input),
          };
        },
        banPolicy: { enabled: true, threshold: 10, durationMs: 900_000 },
      });
    const [sync, async] = [await run(false), await run(true)];
    expect(JSON.stringify(async)).toBe(JSON.stringify(sync));
    expect(sync.recorded.same).toBe(requests.length);
  });
});
