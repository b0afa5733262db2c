import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/start-server.js';
import { headerValue, type ParsedResponse, parseResponses } from './support/http-response-parser.js';
import { rawExchange } from './support/raw-exchange.js';

/**
 * Issue 10, items 9, 10 and 12: on one connection, pipelined requests are executed in the order they
 * were sent (HTTP/1.1 answers in order; the mock must also process in order); requests pipelined
 * before malformed bytes are answered, or not executed, never executed unanswered; absolute-form
 * targets are served like origin-form ones; `100 Continue` is not sent when the answer is known.
 */
let mock: RunningMockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterAll(() => mock.close(1_000));
afterEach(() => mock.app.controls.reset());

const post = (name: string, key = 'demo-pro') => {
  const body = JSON.stringify({ name });
  return `POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};
const get = (path = '/v1/categories', key = 'demo-pro') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`;
const names = (response: ParsedResponse) =>
  (JSON.parse(response.body.toString('utf8')) as { name: string }[]).map((category) => category.name);

async function pipelined(pieces: string[], options: { halfClose?: boolean } = {}): Promise<ParsedResponse[]> {
  const { bytes } = await rawExchange(mock.port, [Buffer.from(pieces.join(''), 'latin1')], {
    halfClose: options.halfClose ?? true,
  });
  return parseResponses(bytes, { connectionClosed: true });
}

describe('pipelined requests run in order (item 9)', () => {
  it('a POST then a GET: the list holds the new category, and Remaining goes down in order', async () => {
    const [created, listed] = await pipelined([post('pipelined'), `${get()}`]);
    expect(created?.status).toBe(201);
    expect(listed?.status).toBe(200);
    expect(names(listed!)).toContain('pipelined');
    expect(Number(headerValue(created!.headers, 'x-ratelimit-remaining'))).toBe(
      Number(headerValue(listed!.headers, 'x-ratelimit-remaining')) + 1,
    );
  });

  it('POST, GET, POST, GET, ... each list holds exactly the categories created before it', async () => {
    const pieces: string[] = [];
    for (let index = 0; index < 8; index += 1) pieces.push(post(`c${index}`), get());
    const responses = await pipelined(pieces);
    expect(responses.map((response) => response.status)).toEqual(
      pieces.map((_, index) => (index % 2 === 0 ? 201 : 200)),
    );
    for (let index = 0; index < 8; index += 1) {
      const created = names(responses[index * 2 + 1]!).filter((name) => /^c\d$/.test(name));
      expect(created).toEqual(Array.from({ length: index + 1 }, (_, n) => `c${n}`));
    }
    const remaining = responses.map((response) => Number(headerValue(response.headers, 'x-ratelimit-remaining')));
    expect(remaining).toEqual([...remaining].sort((a, b) => b - a));
    expect(new Set(remaining).size).toBe(remaining.length);
  });

  it('the request log lists them in the order they were sent', async () => {
    await pipelined([post('first'), get(), post('second'), get('/v1/categories/')]);
    expect((await mock.app.controls.requests()).map((entry) => `${entry.method} ${entry.status}`)).toEqual([
      'POST 201',
      'GET 200',
      'POST 201',
      'GET 200',
    ]);
  });
});

describe('requests before malformed bytes are answered, or never run (item 10)', () => {
  it('5 GETs then garbage: 5 answers then a 400, and exactly 5 counted', async () => {
    const responses = await pipelined([...Array.from({ length: 5 }, () => get()), 'GARBAGE\x01\x02 not http\r\n\r\n']);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 400]);
    expect(await mock.app.controls.requests()).toHaveLength(5);
  });

  it('a POST then garbage: the client hears of every category that was created', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await mock.app.controls.reset();
      const responses = await pipelined([
        post(`before-garbage-${attempt}`),
        get(),
        post(`second-${attempt}`),
        '\x16\x03\x01 TLS hello?\r\n\r\n',
      ]);
      const answered = responses.filter((response) => response.status === 201).length;
      const created = (await mock.app.controls.categories()).filter((category) =>
        category.name.endsWith(`-${attempt}`),
      ).length;
      expect(created).toBe(answered);
      expect(responses.at(-1)?.status).toBe(400);
      expect(await mock.app.controls.requests()).toHaveLength(responses.length - 1);
    }
  });

  it('a request whose body is cut by garbage is not run; those before it are answered', async () => {
    const cut = `POST /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo-pro\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\nZZZ-not-a-chunk-size\r\n`;
    const responses = await pipelined([post('answered'), cut]);
    expect(responses.map((response) => response.status)).toEqual([201, 400]);
    expect((await mock.app.controls.categories()).map((category) => category.name)).toContain('answered');
    expect((await mock.app.controls.requests()).map((entry) => entry.method)).toEqual(['POST']);
  });

  it('a client that reads slowly still gets every answer before the 400, those node queued behind a large one too', async () => {
    // A list of about 4 MB: its answer is still being written (the client is not reading) when the
    // 404 behind it is executed, so node queues the 404 until the list has gone out. The 400 for the
    // garbage must wait for both.
    await mock.app.controls.addKey({ key: 'bulk-writer-key-1', limits: { perMinute: 10_000, perDay: 10_000 } });
    const name = 'n'.repeat(2_000);
    for (let index = 0; index < 2_000; index += 1) {
      const answer = await mock.app.handle({
        method: 'POST',
        url: '/v1/categories',
        headers: { authorization: 'Bearer bulk-writer-key-1', 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ name })),
        clientAddress: '127.0.0.1',
      });
      expect(answer.status).toBe(201);
    }
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(mock.port, '127.0.0.1', () => {
        socket.pause();
        socket.write([get(), get('/v1/no-such-thing'), 'GARBAGE\x01 not http\r\n\r\n'].join(''), 'latin1');
        setTimeout(() => socket.resume(), 300);
      });
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
      socket.setTimeout(10_000, () => socket.destroy(new Error('the server neither answered nor closed')));
    });
    const responses = parseResponses(bytes, { connectionClosed: true });
    expect(responses.map((response) => response.status)).toEqual([200, 404, 400]);
    expect(JSON.parse(responses[0]!.body.toString('utf8'))).toHaveLength(2_003);
  });
});

describe('nothing runs after the answer that closes the connection (items 10, 11)', () => {
  it("the client's own Connection: close ends what runs: a POST pipelined after it is not executed", async () => {
    const closing = get().replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n');
    const responses = await pipelined([closing, post('after-close')]);
    expect(responses.map((response) => response.status)).toEqual([200]);
    expect((await mock.app.controls.categories()).map((category) => category.name)).not.toContain('after-close');
    expect(await mock.app.controls.requests()).toHaveLength(1);
  });

  it('an HTTP/1.0 request without keep-alive, then a POST: only the first runs', async () => {
    const responses = await pipelined([
      'GET /v1/categories HTTP/1.0\r\nAuthorization: Bearer demo-pro\r\n\r\n',
      post('after-http10'),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200]);
    expect((await mock.app.controls.categories()).map((category) => category.name)).not.toContain('after-http10');
  });

  it('a 413 ends the connection: a POST pipelined after it is not executed', async () => {
    const tooLarge = `POST /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo-pro\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`;
    const responses = await pipelined([post('before-413'), tooLarge, post('after-413')]);
    expect(responses.map((response) => response.status)).toEqual([201, 413]);
    const created = (await mock.app.controls.categories()).map((category) => category.name);
    expect(created).toContain('before-413');
    expect(created).not.toContain('after-413');
  });
});

describe('bodies read to their declared length', () => {
  it('a body in pieces, an empty body and a body with a request right behind it: each answered in order, on one connection', async () => {
    const piecewise = post('in-pieces');
    const headEnd = piecewise.indexOf('\r\n\r\n') + 4;
    const empty =
      'POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-pro\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n';
    const pieces = [
      piecewise.slice(0, headEnd + 3),
      piecewise.slice(headEnd + 3, headEnd + 9),
      `${piecewise.slice(headEnd + 9)}${empty}${post('then-a-get')}${get()}`,
    ];
    const { bytes } = await rawExchange(
      mock.port,
      pieces.map((piece) => Buffer.from(piece, 'latin1')),
      { pauseMs: 30 },
    );
    const responses = parseResponses(bytes, { connectionClosed: true });
    expect(responses.map((response) => response.status)).toEqual([201, 400, 201, 200]);
    expect(JSON.parse(responses[1]!.body.toString('utf8'))).toMatchObject({ code: 'body_required' });
    expect(names(responses[3]!)).toEqual(expect.arrayContaining(['in-pieces', 'then-a-get']));
  });
});

describe('absolute-form request targets (item 12)', () => {
  it('are answered like origin-form ones, counted once', async () => {
    const [response] = await pipelined([
      `GET http://127.0.0.1:${mock.port}/v1/categories HTTP/1.1\r\nHost: 127.0.0.1:${mock.port}\r\nAuthorization: Bearer demo-pro\r\nConnection: close\r\n\r\n`,
    ]);
    expect(response?.status).toBe(200);
    expect(names(response!)).toHaveLength(3);
    const [created] = await pipelined([
      `POST HTTP://localhost:${mock.port}/v1/categories?x=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer demo-pro\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{"name":"abso"}`,
    ]);
    expect(created?.status).toBe(201);
    expect(headerValue(created!.headers, 'location')).toMatch(/^\/v1\/categories\/\d+$/);
    expect(
      (await mock.app.controls.requests()).map((entry) => `${entry.method} ${entry.path} ${entry.status}`),
    ).toEqual(['GET /v1/categories 200', 'POST /v1/categories 201']);
  });

  it('take their authority as Host (RFC 9112 section 3.2.2): a foreign one reaches no control', async () => {
    const [foreign] = await pipelined([
      `GET http://evil.example/__mock/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    ]);
    expect(foreign?.status).toBe(403);
    const [own] = await pipelined([
      `GET http://localhost:${mock.port}/__mock/requests HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
    ]);
    expect(own?.status).toBe(200);
  });
});

describe('100 Continue only when the body matters (item 12)', () => {
  /** Sends a head with Expect: 100-continue and returns the status line of the first thing the server says. */
  function firstAnswer(head: string): Promise<{ first: string; all: () => Promise<string> }> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port: mock.port, host: '127.0.0.1' });
      let received = '';
      let resolved = false;
      const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
      socket.on('error', () => {});
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (!resolved && received.includes('\r\n')) {
          resolved = true;
          resolve({
            first: received.slice(0, received.indexOf('\r\n')),
            all: () => {
              setTimeout(() => socket.destroy(), 2_000).unref();
              return closed;
            },
          });
        }
      });
      socket.once('connect', () => socket.write(head));
      setTimeout(() => {
        if (!resolved) {
          socket.destroy();
          reject(new Error(`no answer to ${JSON.stringify(head.slice(0, 60))}`));
        }
      }, 5_000).unref();
    });
  }
  const head = (headers: string, length = 20) =>
    `POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n${headers}\r\n`;

  it.each([
    ['no key (401)', 'Content-Type: application/json\r\n', 20, 401],
    ['an unknown key (401)', 'Authorization: Bearer nope\r\nContent-Type: application/json\r\n', 20, 401],
    [
      'a body over maxBodyBytes (413)',
      'Authorization: Bearer demo-pro\r\nContent-Type: application/json\r\n',
      50 * 1024 * 1024,
      413,
    ],
    ['a media type that is not JSON (415)', 'Authorization: Bearer demo-pro\r\nContent-Type: text/plain\r\n', 20, 415],
    ['no Content-Type (415)', 'Authorization: Bearer demo-pro\r\n', 20, 415],
  ])('answers %s at once, without 100 Continue, and runs nothing else', async (_name, headers, length, status) => {
    const { first, all } = await firstAnswer(head(headers, length));
    expect(first).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(await all()).not.toContain('100 Continue');
    expect((await mock.app.controls.requests()).map((entry) => entry.status)).toEqual([status]);
  });

  it('sends 100 Continue when the body decides the answer, then serves it', async () => {
    const body = '{"name":"continued"}';
    const { first } = await firstAnswer(
      head('Authorization: Bearer demo-pro\r\nContent-Type: application/json\r\n', body.length),
    );
    expect(first).toBe('HTTP/1.1 100 Continue');
  });
});
