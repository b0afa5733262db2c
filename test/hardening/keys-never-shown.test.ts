import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { renderHtmlReport } from '../../contract-tests/report/html-report.js';
import { renderHumanReport } from '../../contract-tests/report/human-report.js';
import { renderJsonReport } from '../../contract-tests/report/json-report.js';
import { renderJunitReport } from '../../contract-tests/report/junit-report.js';
import { renderMarkdownReport } from '../../contract-tests/report/markdown-report.js';
import { parseHeaders } from '../../contract-tests/runner/contract-options.js';
import { createConsoleLogger } from '../../src/server/console-logger.js';
import { proxyReportJunit, proxyReportMarkdown } from '../../src/server/proxy-report.js';
import { startProxyServer } from '../../src/server/proxy-server.js';
import { startMockServer } from '../../src/server/start-server.js';
import { runKit } from '../contract-kit/support/run-kit.js';

/**
 * Issue 40, rows 7 and 8 (item 3): a key is never shown. Keys go by every route a document allows
 * (Authorization Bearer, an `apiKey in: query`, `in: header` and `in: cookie` of names only the
 * document declares, common query names, a request body) through the mock, the judging proxy and
 * the kit; an upstream echoes them in bodies cut at every offset of an 80-character excerpt. Every
 * output (the kit's reports in each format and its log, the proxy's report in each format as the
 * controls and `--report` write it, its export and page, the mock's log, export, dashboard data,
 * lab report and page, and every log line) is searched for any 8-character run of any key.
 */
const specPath = fileURLToPath(new URL('./support/keys-everywhere.yaml', import.meta.url));

const keys = {
  bearer: 'Qm7xT2vLp9Rk4Wn8Zc1Hs6Jd3Fg5Yb0A',
  query: 'Vt3Nq8Lx1Pz6Mk9Rw2Cj5Hb7Gd4Sf0E1',
  header: 'Xu5Ka2Wp8Ln3Qr7Zm1Tv6Hc9Bj4Ds0G2',
  cookie: 'Yo9Fe4Ri1Uw6Sa3Dg8Kh2Lj5Zx7Cv0N3',
  /** Not a key of the mock: sent all the same, by a common name and the document's. */
  stranger: 'Pw6Gk1Ns4Lq9Vr2Tz7Mx5Hb3Jc8Df0Y4',
  kit: 'Rn2Bv7Cx4Zl9Mk1Jh6Gf3Ds8Aq5Wp0E5',
  kitHeader: 'Ts8Hy3Ju6Ik1Ol4Pq9Wa2Se7Dr5Ft0G6',
};

/** Every 8-character run of every key that an output shows (any case). */
function shownRuns(label: string, output: string): string[] {
  const lower = output.toLowerCase();
  const found: string[] = [];
  for (const [name, key] of Object.entries(keys))
    for (let at = 0; at + 8 <= key.length; at += 1)
      if (lower.includes(key.slice(at, at + 8).toLowerCase()))
        found.push(`${label} shows ${JSON.stringify(key.slice(at, at + 8))} of the ${name} key`);
  return found;
}

/** Log lines: the console logger writes to the process's streams, read here while a test runs. */
const logLines: string[] = [];
beforeAll(() => {
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logLines.push(String(chunk));
      return true;
    });
});
afterAll(() => vi.restoreAllMocks());
afterEach(() => {
  expect(shownRuns('a log line', logLines.join(''))).toEqual([]);
});

function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The request's key, by whichever route it came. */
function keyOf(request: IncomingMessage): string {
  const url = new URL(request.url ?? '/', 'http://x');
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  const cookie = /tenant_ident=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
  const header = request.headers['x-tenant-ident'];
  return (
    bearer ?? url.searchParams.get('tenantPass') ?? (typeof header === 'string' ? header : undefined) ?? cookie ?? ''
  );
}

/** An upstream that echoes the request's key inside a 401 that is not JSON, `offset` characters in. */
function startEchoUpstream(offsetOf: () => number) {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(401, { 'content-type': 'text/plain' });
      response.end(`${'.'.repeat(offsetOf())}${keyOf(request)} was refused, said the upstream`);
    });
  });
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    }),
  );
}

/** The same request by each route the document allows. */
const routes: { name: string; path: string; headers: (key: string) => Record<string, string> }[] = [
  { name: 'bearer', path: '/things', headers: (key) => ({ authorization: `Bearer ${key}` }) },
  { name: 'query', path: '/things?tenantPass=', headers: () => ({}) },
  { name: 'header', path: '/things', headers: (key) => ({ 'x-tenant-ident': key }) },
  { name: 'cookie', path: '/things', headers: (key) => ({ cookie: `theme=dark; tenant_ident=${key}` }) },
];
const targetOf = (route: (typeof routes)[number], key: string) =>
  route.name === 'query' ? `${route.path}${key}` : route.path;

describe('the mock: its log, export, dashboard data, lab report and page (row 8)', () => {
  it('shows no run of a key sent by any route, a body included', async () => {
    const mock = await startMockServer({
      port: 0,
      specPath,
      config: { keys: [keys.bearer, keys.query, keys.header, keys.cookie].map((key) => ({ key, plan: 'pro' })) },
      logger: createConsoleLogger({ verbose: true }),
    });
    try {
      const routeKeys = [keys.bearer, keys.query, keys.header, keys.cookie];
      for (const [index, route] of routes.entries()) {
        const answer = await send(`${mock.baseUrl}${targetOf(route, routeKeys[index]!)}`, {
          headers: route.headers(routeKeys[index]!),
        });
        expect(answer.status, route.name).toBe(200);
      }
      await send(`${mock.baseUrl}/things?api_key=${keys.stranger}&tenantPass=${keys.query}`);
      expect((await send(`${mock.baseUrl}/things?tenantPass=${keys.stranger}`)).status).toBe(401);
      expect(
        (await send(`${mock.baseUrl}/things`, { headers: { authorization: `Bearer ${keys.stranger}` } })).status,
      ).toBe(401);
      const created = await send(`${mock.baseUrl}/things`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ note: `my key is ${keys.bearer}` }),
      });
      expect(created.status).toBe(201);
      const outputs: Record<string, string> = {};
      for (const control of [
        '/__mock/requests',
        '/__mock/requests?format=jsonl',
        '/__mock/dashboard',
        '/__mock/report',
        '/__mock/report?format=junit',
        '/__mock/keys',
        '/__mock/ui',
      ]) {
        const answer = await send(`${mock.origin}${control}`);
        expect(answer.status, control).toBe(200);
        outputs[control] = answer.text;
      }
      expect(Object.entries(outputs).flatMap(([control, text]) => shownRuns(control, text))).toEqual([]);
      // Not vacuous: the export holds the query routes and the body, masked.
      expect(outputs['/__mock/requests?format=jsonl']).toContain('tenantPass=Vt3N…(32)');
      expect(outputs['/__mock/requests?format=jsonl']).toContain('api_key=Pw6G…(32)');
      expect(outputs['/__mock/requests?format=jsonl']).toContain('my key is Qm7x…(32)');
      expect(logLines.some((line) => line.includes('GET /v1/things -> 200'))).toBe(true);
    } finally {
      await mock.close(1_000);
    }
  });
});

describe('the judging proxy: an echo cut at every offset of an 80-character excerpt (row 7)', () => {
  it('shows no run of a key in its report (JSON, JUnit, Markdown, as the controls and --report write it), export or page', async () => {
    let offset = 0;
    const upstream = await startEchoUpstream(() => offset);
    try {
      // The report keeps 10 examples per rule: a fresh proxy for each 10 offsets, each offset by another route.
      for (let first = 0; first <= 80; first += 10) {
        const proxy = await startProxyServer({
          upstream: `${upstream.url}/v1`,
          port: 0,
          specPath,
          logger: createConsoleLogger({ verbose: true }),
        });
        try {
          for (offset = first; offset < Math.min(first + 10, 81); offset += 1) {
            const route = routes[offset % routes.length]!;
            const key = Object.values(keys)[offset % 4]!;
            await send(`${proxy.baseUrl}${targetOf(route, key)}`, { headers: route.headers(key) });
          }
          // A refused target quotes its query in the proxy's log line.
          const refused = await new Promise<number>((resolve, reject) => {
            const path = `/v1/../admin?tenantPass=${keys.query}`;
            const request = httpRequest({ host: '127.0.0.1', port: proxy.port, path }, (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            });
            request.on('error', reject);
            request.end();
          });
          expect(refused).toBe(400);
          const outputs: Record<string, string> = {};
          for (const control of [
            '/__mock/report',
            '/__mock/report?format=junit',
            '/__mock/report?format=markdown',
            '/__mock/requests?format=jsonl',
            '/__mock/ui',
          ])
            outputs[control] = (await send(`${proxy.origin}${control}`)).text;
          // What --report FILE writes, by its extension.
          const report = proxy.report();
          outputs['--report report.json'] = JSON.stringify(report, null, 2);
          outputs['--report report.xml'] = proxyReportJunit(report);
          outputs['--report report.md'] = proxyReportMarkdown(report);
          expect(
            Object.entries(outputs).flatMap(([output, text]) => shownRuns(`${output} (offsets ${first}..)`, text)),
          ).toEqual([]);
          // Not vacuous: the echoes are in the evidence, masked.
          const evidence = report.server.rules.find((rule) => rule.id === 'every.error-shape')?.evidence ?? [];
          expect(evidence.length).toBeGreaterThan(0);
          expect(evidence.every((entry) => entry.detail.includes('body is not JSON'))).toBe(true);
          if (first < 80) expect(outputs['/__mock/requests?format=jsonl']).toMatch(/tenantPass=\w{4}…\(32\)/);
        } finally {
          await proxy.close(1_000);
        }
      }
    } finally {
      await upstream.close();
    }
  });
});

describe('the kit: its reports in every format and its log (rows 7 and 8)', () => {
  it('shows no run of its keys, sent by every route at once and echoed cut by the server', async () => {
    // The kit cuts bodies to 80, 120 or 160 characters in its evidence: echoes that each cut leaves 16 of 32 characters of.
    const offsets = [64, 104, 144, 56, 96, 136, 0];
    let count = 0;
    const upstream = await startEchoUpstream(() => offsets[count++ % offsets.length]!);
    try {
      const run = await runKit({
        baseUrl: `${upstream.url}/v1`,
        apiKey: keys.kit,
        specPath,
        // -H of a header only the document names as a key, and of a common one.
        headers: { 'X-Tenant-Ident': keys.kitHeader, 'X-Api-Key': keys.stranger },
        runId: 'keys',
      });
      const outputs = {
        human: renderHumanReport(run.report),
        json: renderJsonReport(run.report),
        junit: renderJunitReport(run.report),
        markdown: renderMarkdownReport(run.report),
        html: renderHtmlReport(run.report),
        log: run.log.join('\n'),
      };
      expect(Object.entries(outputs).flatMap(([output, text]) => shownRuns(`the kit's ${output}`, text))).toEqual([]);
      // Not vacuous: the server's echo is in the report, masked.
      expect(outputs.json).toContain('Rn2B…(32)');
      expect(outputs.json).toContain('refused with 401');
      expect(outputs.json).toContain('"x-tenant-ident": "Ts8H…(32)"');
    } finally {
      await upstream.close();
    }
  });

  it('a -H line it refuses (a key pasted without its name) is quoted masked', () => {
    let message = '';
    try {
      parseHeaders([keys.kitHeader]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("write it as 'Name: value'");
    expect(shownRuns('the -H usage error', message)).toEqual([]);
  });
});
