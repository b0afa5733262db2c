import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultLingerLimits } from '../../src/server/lingering-close.js';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { errorShapeProblems } from './support/error-shape.js';
import { MiB } from './support/heap.js';
import { headerValue, parseResponses } from './support/http-response-parser.js';
import { oversizedUpload } from './support/oversized-upload.js';
import { slowClient } from './support/slow-client.js';

/**
 * Slowloris and oversized input (issue 6): header and body timeouts are enforced, a client that
 * never finishes is dropped, and a 50 MiB body is refused with 413 after at most the limit is read.
 *
 * The timeout server runs with 500 ms / 1,000 ms timeouts so these tests take about a second. The
 * bounds are on the wall clock (the timeouts are timers) and allow 4 s more for node:http's periodic
 * check (every 250 ms here) and a loaded CI's late timers: a request is dropped after ~1.25 s on a
 * quiet machine, so 4 x that; Node's default check every 30 s would drop it ~16 s late on average.
 * A client gives up after 6 s: past every bound, so a server that never drops it fails the test.
 */
const headersTimeoutMs = 500;
const requestTimeoutMs = 1_000;
const checkSlackMs = 4_000;
const giveUpMs = 6_000;
const neverDropped = `the server never dropped the client (the test gave up after ${giveUpMs / 1000} s)`;

let timeouts: RunningMockServer;
let defaults: RunningMockServer;
const acceptedByDefaults: Socket[] = [];

beforeAll(async () => {
  timeouts = await startMockServer({ port: 0, headersTimeoutMs, requestTimeoutMs });
  defaults = await startMockServer({ port: 0 });
  defaults.server.on('connection', (socket: Socket) => acceptedByDefaults.push(socket));
});

afterAll(async () => {
  await Promise.all([timeouts?.close(500), defaults?.close(500)]);
});

/** The server's answer to a slow client, if it sent one, must be a readable 408 Error. */
function answerProblems(bytes: Buffer): string[] {
  if (bytes.length === 0) return [];
  try {
    const [answer] = parseResponses(bytes, { connectionClosed: true });
    if (answer!.status !== 408) return [`answered ${answer!.statusLine}, expected 408`];
    return errorShapeProblems({
      status: answer!.status,
      contentType: headerValue(answer!.headers, 'content-type'),
      body: answer!.body.toString('utf8'),
    });
  } catch (error) {
    return [(error as Error).message];
  }
}

const postHead = (framing: string) =>
  `POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-enterprise\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

describe.concurrent('slow clients are dropped', () => {
  it(`drops a client that sends its headers byte by byte within the header timeout (${headersTimeoutMs} ms)`, async () => {
    const outcome = await slowClient(timeouts.port, {
      opening: 'GET /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      trickle: 'X-Slow: yes\r\n',
      intervalMs: 20,
      deadlineMs: giveUpMs,
    });
    expect(outcome.closedAfterMs, neverDropped).toBeDefined();
    expect(outcome.closedAfterMs!).toBeLessThan(headersTimeoutMs + checkSlackMs);
    expect(answerProblems(outcome.bytes)).toEqual([]);
  });

  it('drops a connection that never sends a byte within the header timeout', async () => {
    const outcome = await slowClient(timeouts.port, {
      opening: '',
      trickle: '',
      intervalMs: 1_000,
      deadlineMs: giveUpMs,
    });
    expect(outcome.closedAfterMs, neverDropped).toBeDefined();
    expect(outcome.closedAfterMs!).toBeLessThan(headersTimeoutMs + checkSlackMs);
  });

  it(`drops a client that never finishes its Content-Length body within the request timeout (${requestTimeoutMs} ms)`, async () => {
    const outcome = await slowClient(timeouts.port, {
      opening: `${postHead('Content-Length: 1000')}{"name":`,
      trickle: '',
      intervalMs: 1_000,
      deadlineMs: giveUpMs,
    });
    expect(outcome.closedAfterMs, neverDropped).toBeDefined();
    expect(outcome.closedAfterMs!).toBeLessThan(requestTimeoutMs + checkSlackMs);
    expect(answerProblems(outcome.bytes)).toEqual([]);
  });

  it('drops a client that never sends the last chunk of a chunked body within the request timeout', async () => {
    const outcome = await slowClient(timeouts.port, {
      opening: `${postHead('Transfer-Encoding: chunked')}9\r\n{"name":"\r\n`,
      trickle: '',
      intervalMs: 1_000,
      deadlineMs: giveUpMs,
    });
    expect(outcome.closedAfterMs, neverDropped).toBeDefined();
    expect(outcome.closedAfterMs!).toBeLessThan(requestTimeoutMs + checkSlackMs);
    expect(answerProblems(outcome.bytes)).toEqual([]);
  });

  it('drops a client that trickles its body one byte at a time within the request timeout', async () => {
    const outcome = await slowClient(timeouts.port, {
      opening: postHead('Content-Length: 100000'),
      trickle: 'a',
      intervalMs: 20,
      deadlineMs: giveUpMs,
    });
    expect(outcome.closedAfterMs, neverDropped).toBeDefined();
    expect(outcome.closedAfterMs!).toBeLessThan(requestTimeoutMs + checkSlackMs);
    expect(answerProblems(outcome.bytes)).toEqual([]);
  });

  it('keeps serving others promptly while 50 slow clients hold connections open', async () => {
    // On the server with the default timeouts, so nothing drops the slow clients before they leave at 6 s:
    // a server that served them first would answer then. The wall clock is bounded (waiting is the bug) at
    // a third of that: ~50 ms on a quiet machine, 1.5 s at a load of 11 on two cores (this process runs
    // the 50 clients too).
    const slow = Array.from({ length: 50 }, () =>
      slowClient(defaults.port, {
        opening: 'GET /v1/categories HTTP/1.1\r\n',
        trickle: 'X-Slow: yes\r\n',
        intervalMs: 200,
        deadlineMs: 6_000,
      }),
    );
    const started = performance.now();
    const response = await fetch(`${defaults.baseUrl}/categories`, {
      headers: { authorization: 'Bearer demo-enterprise' },
    });
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000);
    await Promise.all(slow);
  });
});

describe('oversized bodies are refused after at most the limit is read into memory', () => {
  const total = 50 * MiB;
  // node:http reads in blocks of up to 64 KiB, and chunk framing adds a little: the last read may overshoot.
  const overshoot = 256 * 1024;

  for (const framing of ['content-length', 'chunked'] as const) {
    it(`refuses a 50 MiB ${framing} body with 413 before it is all sent, holding at most the limit and throwing the rest away`, async () => {
      const limit = defaults.app.config.maxBodyBytes;
      const before = acceptedByDefaults.length;
      const outcome = await oversizedUpload(defaults.port, {
        head: postHead(framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${total}`),
        totalBytes: total,
        chunked: framing === 'chunked',
        deadlineMs: 15_000,
      });
      expect(outcome.timedOut).toBe(false);
      const [answer] = parseResponses(outcome.bytes, { connectionClosed: true });
      expect(answer?.status).toBe(413);
      expect(
        errorShapeProblems({
          status: 413,
          contentType: headerValue(answer!.headers, 'content-type'),
          body: answer!.body.toString('utf8'),
        }),
      ).toEqual([]);
      // The answer came before the upload was done: the server did not wait for 50 MiB.
      expect(outcome.sent).toBeLessThan(total);
      // After the 413 the server reads on and throws away what comes (a lingering close, so the client
      // reads its answer instead of a reset), up to a bound.
      const serverSocket = acceptedByDefaults[before]!;
      expect(serverSocket.bytesRead).toBeLessThan(limit + defaultLingerLimits.maxBytes + overshoot);
      expect(outcome.peakMemoryGrowth).toBeLessThan(16 * MiB);
      console.log(
        `[hardening] 50 MiB ${framing} upload: client sent ${(outcome.sent / MiB).toFixed(1)} MiB, server read ${(serverSocket.bytesRead / MiB).toFixed(2)} MiB (limit ${(limit / MiB).toFixed(0)} MiB), peak memory +${(outcome.peakMemoryGrowth / MiB).toFixed(1)} MiB`,
      );
    });
  }
});
