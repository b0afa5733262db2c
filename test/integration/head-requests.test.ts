import { connect } from 'node:net';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayAgainstMockApp } from '../../src/cli/replay-command.js';
import { createFixedClock } from '../../src/core/clock.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import type { LabReport } from '../../src/lab/lab-types.js';
import { parseRecording } from '../../src/lab/replay-input.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { specDocument } from '../support/core-test-app.js';
import { headDocument } from '../support/head-document.js';

// HEAD over node:http (RFC 9110 §9.3.2): the GET answer's head, with the Content-Length of the body
// it would have had (§8.6), and not one byte of content on the wire; 405 with Allow on a path without
// GET; a document's own `head` operation; HEAD in the request log, the export and its replay. The
// rules every transport shares (401, 429, the budget) are cases of interface-rules.case.ts.

const startMs = Date.parse('2026-03-01T12:00:00Z');
const dispatcher = new Agent({ pipelining: 0 });
let petstore: RunningMockServer;
let documented: RunningMockServer;

beforeAll(async () => {
  petstore = await startMockServer({ port: 0, clock: createFixedClock(startMs), seed: 3 });
  documented = await startMockServer({ port: 0, spec: headDocument, clock: createFixedClock(startMs), seed: 3 });
});
afterAll(async () => {
  await dispatcher.close();
  await petstore.close(1_000);
  await documented.close(1_000);
});

const send = (url: string, method: string, key: string | null = 'demo-pro') =>
  fetch(url, { method, dispatcher, headers: key === null ? {} : { authorization: `Bearer ${key}` } });

/** The bytes a server writes for one request on its own connection, read to its close. */
function rawExchange(origin: string, head: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('HEAD over node:http', () => {
  it('sends the GET head with its Content-Length and no content on the wire', async () => {
    const get = await send(`${petstore.baseUrl}/categories`, 'GET');
    const getBytes = Buffer.from(await get.arrayBuffer()).byteLength;
    const wire = await rawExchange(
      petstore.origin,
      'HEAD /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-pro',
    );
    const [head, content] = wire.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toContain(`Content-Length: ${getBytes}\r\n`);
    expect(head).toContain(`Content-Type: ${get.headers.get('content-type')}\r\n`);
    expect(head).toMatch(/\r\nX-RateLimit-Remaining: \d+/);
    expect(content).toBe('');
  });

  it('counts the UTF-8 bytes of the content it leaves out, not its characters', async () => {
    const get = await send(`${documented.baseUrl}/things`, 'GET');
    const text = await get.text();
    expect(text).toContain('näpf');
    const head = await send(`${documented.baseUrl}/things`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(head.headers.get('content-length')).not.toBe(String(text.length));
    expect(await head.text()).toBe('');
  });

  it('validates HEAD as GET: the same 400, without content', async () => {
    const get = await send(`${documented.baseUrl}/things?limit=many`, 'GET');
    const head = await send(`${documented.baseUrl}/things?limit=many`, 'HEAD');
    const text = await get.text();
    expect([get.status, head.status]).toEqual([400, 400]);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(await head.text()).toBe('');
  });

  it('answers HEAD on a path without GET 405, Allow naming what the path has (and HEAD only beside GET)', async () => {
    const head = await send(`${documented.baseUrl}/uploads`, 'HEAD');
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    expect(head.headers.get('content-length')).toMatch(/^[1-9]\d*$/);
    expect(await head.text()).toBe('');
    const put = await send(`${documented.baseUrl}/things`, 'PUT');
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
    await put.arrayBuffer();
  });

  it("answers with the document's own head operation where it declares one", async () => {
    const head = await send(`${documented.baseUrl}/files/7`, 'HEAD');
    expect(head.status).toBe(204);
    expect(head.headers.get('x-file-size')).toBe('42');
    expect(head.headers.get('content-length')).toBeNull();
    const get = await send(`${documented.baseUrl}/files/7`, 'GET');
    expect(get.status).toBe(200);
    await get.arrayBuffer();
    const wire = await rawExchange(
      documented.origin,
      'HEAD /v1/files/7 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-pro',
    );
    expect(wire.split('\r\n\r\n')[1]).toBe('');
  });
});

describe('HEAD in the request log, the export and the replay', () => {
  it('is logged as HEAD of the GET operation, exported as HEAD, and replayed as HEAD status for status', async () => {
    const mock = await startMockServer({ port: 0, clock: createFixedClock(startMs), seed: 3 });
    try {
      const statuses: number[] = [];
      for (const key of ['demo-free', null, 'demo-free']) {
        const answer = await send(`${mock.baseUrl}/categories`, 'HEAD', key);
        statuses.push(answer.status);
        await answer.arrayBuffer();
      }
      expect(statuses).toEqual([200, 401, 200]);
      const log = (await (await fetch(`${mock.origin}/__mock/requests`, { dispatcher })).json()) as {
        method: string;
        operationId: string | null;
        status: number;
      }[];
      expect(log.map((entry) => [entry.method, entry.operationId, entry.status])).toEqual([
        ['HEAD', 'listCategories', 200],
        ['HEAD', 'listCategories', 401],
        ['HEAD', 'listCategories', 200],
      ]);
      // The lab's coverage counts a HEAD for the GET operation that answered it, under GET.
      const report = (await (await fetch(`${mock.origin}/__mock/report`, { dispatcher })).json()) as LabReport;
      expect(report.coverage.operations).toEqual([
        {
          operationId: 'listCategories',
          method: 'GET',
          path: '/categories',
          statuses: [
            { status: 200, organic: 2, forced: 0 },
            { status: 401, organic: 1, forced: 0 },
          ],
        },
      ]);
      const exported = await (await fetch(`${mock.origin}/__mock/requests?format=jsonl`, { dispatcher })).text();
      const config = parseMockConfig({});
      const recording = parseRecording(exported, { plans: config.plans });
      expect(recording.requests.map((request) => request.method)).toEqual(['HEAD', 'HEAD', 'HEAD']);
      const replayed = await replayAgainstMockApp(recording.requests, config, specDocument, { recording });
      expect(replayed.recorded.differences).toEqual([]);
      expect(replayed.recorded.same).toBe(3);
      expect(replayed.report.coverage.operations.map((operation) => operation.method)).toEqual(['GET']);
    } finally {
      await mock.close(1_000);
    }
  });
});
