import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HealthState, MockApp } from '../../src/core/mock-app.js';
import { startMockProcess } from '../support/mock-process.js';
import { createCoreApp } from './support/core-app.js';

/**
 * One memory budget for the process (memoryBudgetBytes, --memory-budget): categories, their cached
 * lists, request logs, rate-limit records and the lab of every session count against one total,
 * reported in GET /__mock/health. Past it the least recently used named session is forgotten (never
 * the default one); a write that cannot fit even so is a 507 store_full with Retry-After. Many sessions
 * writing their maximum never take the mock to an out-of-memory crash.
 */
const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** A create in `session` (the default one when undefined), as a transport hands it to the core. */
function createRequest(session: string | undefined, description: string) {
  const headers: Record<string, string> = {
    authorization: 'Bearer demo-enterprise',
    'content-type': 'application/json',
    ...(session === undefined ? {} : { 'x-mock-session': session }),
  };
  return {
    method: 'POST',
    url: '/v1/categories',
    headers,
    body: encoder.encode(JSON.stringify({ name: session ?? 'default', description })),
    clientAddress: '127.0.0.1',
  };
}

const listRequest = (session?: string) => ({
  method: 'GET',
  url: '/v1/categories',
  headers: { authorization: 'Bearer demo-enterprise', ...(session === undefined ? {} : { 'x-mock-session': session }) },
  body: null,
  clientAddress: '127.0.0.1',
});
const health = async (app: MockApp, session = 'default') =>
  (
    JSON.parse(
      (
        await app.handle({
          method: 'GET',
          url: '/__mock/health',
          headers: { 'x-mock-session': session },
          body: null,
          clientAddress: '127.0.0.1',
        })
      ).body!,
    ) as HealthState
  ).memory;

/** The process's peak resident memory (Linux /proc), for the log line; '?' elsewhere. */
async function peakRssMiB(pid: number | undefined): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
  return kib === undefined ? '?' : String(Math.round(Number(kib) / 1024));
}

describe('one memory budget for the process', () => {
  it('in the core: sessions past the budget forget the least recently used one, never the default one', async () => {
    const budget = 24 * MiB;
    const app = createCoreApp({
      memoryBudgetBytes: budget,
      maxCategoryBytes: 2 * MiB,
      maxBodyBytes: 3 * MiB,
      sessions: { maxSessions: 1_000 },
    });
    const description = 'x'.repeat(MiB - 100);
    // The default session holds its share first: 2 MiB of categories and their cached list.
    for (let write = 0; write < 2; write += 1)
      expect((await app.handle(createRequest(undefined, description))).status).toBe(201);
    const defaultList = (await app.handle(listRequest())).body;
    for (let session = 0; session < 40; session += 1) {
      for (let write = 0; write < 2; write += 1) {
        const answer = await app.handle(createRequest(`job-${session}`, description));
        expect(answer.status, answer.body ?? '').toBe(201);
      }
      expect((await app.handle(listRequest(`job-${session}`))).status).toBe(200);
      expect((await health(app)).usedBytes).toBeLessThanOrEqual(budget);
    }
    const memory = await health(app);
    expect(memory).toMatchObject({ budgetBytes: budget, refusedWrites: 0 });
    expect(memory.evictedSessions).toBeGreaterThan(20);
    // The newest session is whole, an old one was forgotten (it starts again from its seeds), the default one untouched.
    const namesOf = async (session: string) =>
      (await app.controlsFor(session).categories()).map((category) => category.name);
    expect((await namesOf('job-39')).filter((name) => name === 'job-39')).toHaveLength(2);
    expect(await namesOf('job-0')).not.toContain('job-0');
    expect((await app.handle(listRequest())).body).toBe(defaultList);
  });

  it('in the core: a write that does not fit with only the default session and the writer left is 507, changing nothing', async () => {
    const app = createCoreApp({
      memoryBudgetBytes: 17 * MiB,
      maxCategoryBytes: 64 * 1024,
      maxBodyBytes: MiB,
      maxCategories: 10_000_000,
      requestLogSize: 1,
    });
    // Run-time keys are the one thing a session can add without bound but the budget: 400 bytes each.
    let refusal;
    let index = 0;
    for (; index < 60_000 && refusal === undefined; index += 1) {
      const answer = await app.handle({
        method: 'POST',
        url: '/__mock/keys',
        headers: { 'content-type': 'application/json', 'x-mock-session': 'keys-job' },
        body: encoder.encode(JSON.stringify({ key: `key-${index}`, plan: 'free' })),
        clientAddress: '127.0.0.1',
      });
      if (answer.status !== 201) refusal = answer;
    }
    const keys = await app.controlsFor('keys-job').keys();
    expect(keys.length - app.startupKeys.length).toBe(index - 1);
    expect(refusal?.status).toBe(507);
    const body = JSON.parse(refusal!.body!) as { code: string; message: string; status: number };
    expect(body).toMatchObject({ code: 'store_full', status: 507 });
    expect(body.message).toMatch(
      /memory budget \(17 MiB, memoryBudgetBytes or --memory-budget\).*the key was not stored/,
    );
    expect(Number(refusal!.headers['Retry-After'])).toBeGreaterThan(0);
    const memory = await health(app, 'keys-job');
    expect(memory.refusedWrites).toBe(1);
    expect(memory.usedBytes).toBeLessThanOrEqual(17 * MiB);
    // A scenario that needs room is refused whole: the clock, the keys and the categories are as they were.
    const controls = app.controlsFor('keys-job');
    const before = [(await controls.clock()).offsetSeconds, await controls.keys(), await controls.categories()];
    const scenario = await app.handle({
      method: 'POST',
      url: '/__mock/scenario',
      headers: { 'content-type': 'application/json', 'x-mock-session': 'keys-job' },
      body: encoder.encode(
        JSON.stringify({
          clock: { offsetSeconds: 3_600 },
          keys: [{ key: 'one-key-more', plan: 'pro' }],
          categories: [{ name: 'one-more' }],
        }),
      ),
      clientAddress: '127.0.0.1',
    });
    expect(scenario.status, scenario.body ?? '').toBe(507);
    expect(JSON.parse(scenario.body!)).toMatchObject({ code: 'store_full', status: 507 });
    expect(scenario.headers['Retry-After']).toBeDefined();
    expect([(await controls.clock()).offsetSeconds, await controls.keys(), await controls.categories()]).toEqual(
      before,
    );
    // The default session answers as ever.
    expect(
      (
        await app.handle({
          method: 'GET',
          url: '/v1/categories',
          headers: { authorization: 'Bearer demo-free' },
          body: null,
          clientAddress: '127.0.0.1',
        })
      ).status,
    ).toBe(200);
  });

  const sessionBytes = 2 * MiB;
  const loadDeadlineMs = 480_000;
  it('a mock with a 512 MB heap stays up and answers correctly while 200 sessions each write their maximum', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-memory-'));
    const configPath = join(folder, 'mock.yaml');
    // The default budget (256 MiB) and body limit (1 MiB), room for 200 sessions, and 2 MiB of categories a
    // session: 200 sessions hold 800 MB at their maximum (categories and cached lists), over half again the heap,
    // in an eighth of the time of the default 16 MiB (6.4 GB, minutes on two cores; the same code path).
    await writeFile(configPath, `sessions: { maxSessions: 200 }\nmaxCategoryBytes: ${sessionBytes}\n`);
    const mock = await startMockProcess(['--config', configPath], 60_000, { nodeArgs: ['--max-old-space-size=512'] });
    let exited = false;
    mock.child.once('exit', () => (exited = true));
    // A connection a request: a kept-alive socket idle past the mock's keepAliveTimeout (5 s, while the
    // batch waits for its slowest session) can be closed just as a 4 MB body starts on it (EPIPE).
    const agent = new Agent({ keepAlive: false, maxSockets: 4 });
    const send = (method: string, path: string, session: string, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(
          `${mock.origin}${path}`,
          {
            method,
            agent,
            headers: {
              authorization: 'Bearer demo-enterprise',
              'x-mock-session': session,
              ...(body === undefined
                ? {}
                : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }));
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    const started = Date.now();
    const statuses = new Map<number, number>();
    try {
      // Each session fills its 2 MiB (four categories of 512 KB, under the 1 MiB body limit), then lists them (2 MiB more, cached); four at a time.
      const description = 'z'.repeat(sessionBytes / 4 - 8_000);
      const writeSession = async (session: string) => {
        for (let write = 0; write < 4; write += 1) {
          const answer = await send('POST', '/v1/categories', session, JSON.stringify({ name: session, description }));
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
        const list = await send('GET', '/v1/categories', session);
        statuses.set(list.status, (statuses.get(list.status) ?? 0) + 1);
        // The session's own categories are in its list (counted, not parsed: 2 MB a list, 200 times).
        if (list.status === 200)
          expect(list.body.startsWith('[') && list.body.split(`"name":"${session}"`).length - 1).toBeGreaterThanOrEqual(
            3,
          );
      };
      const names = Array.from({ length: 200 }, (_, index) => `heavy-${index}`);
      for (let index = 0; index < names.length; index += 4) {
        // Its own deadline, under vitest's: a run that slow fails here, and `finally` still stops the mock.
        if (Date.now() - started > loadDeadlineMs)
          throw new Error(`Only ${index} of 200 sessions written in ${loadDeadlineMs / 1000} s`);
        await Promise.all(names.slice(index, index + 4).map(writeSession));
      }
      expect(exited).toBe(false);
      // Up and answering correctly: every write was stored or refused in the Error shape, nothing else.
      expect([...statuses.keys()].every((status) => status === 200 || status === 201 || status === 507)).toBe(true);
      const memory = (JSON.parse((await send('GET', '/__mock/health', 'default')).body) as HealthState).memory;
      expect(memory.usedBytes).toBeLessThanOrEqual(memory.budgetBytes);
      // A session holds twice its categories (they and their cached list): the budget keeps about budget / (2 x 2 MiB) of them.
      expect(memory.evictedSessions).toBeGreaterThanOrEqual(
        200 - Math.ceil(memory.budgetBytes / (2 * sessionBytes)) - 8,
      );
      expect((await send('GET', '/v1/categories', 'default')).status).toBe(200);
      console.log(
        `[hardening] 200 sessions x ${sessionBytes / MiB} MiB on a 512 MB heap: ${Math.round((Date.now() - started) / 1000)} s, peak RSS ${await peakRssMiB(mock.child.pid)} MiB, statuses ${JSON.stringify(Object.fromEntries(statuses))}, budget used ${Math.round(memory.usedBytes / MiB)} of ${Math.round(memory.budgetBytes / MiB)} MiB, ${memory.evictedSessions} sessions forgotten`,
      );
    } finally {
      agent.destroy();
      await mock.stop();
      await rm(folder, { recursive: true, force: true });
    }
  }, 600_000);
});
