import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningProxyServer, startProxyServer } from '../../src/server/proxy-server.js';
import { errorShapeProblems } from '../hardening/support/error-shape.js';
import { headerValue, type ParsedResponse } from '../hardening/support/http-response-parser.js';
import { converse, echoedId } from './support/pipelined-client.js';
import { type RecordingUpstream, startRecordingUpstream } from './support/recording-upstream.js';
import { valuesOf } from './support/strict-request-reader.js';

/**
 * The proxy as an HTTP intermediary (issue 40, rows 1, 2, 5 and 6, and their neighbours): it
 * parses each client request, refuses what is ambiguous with 400 and a closed connection, and
 * sends the upstream a new, correctly framed message, read here by a strict raw-socket upstream
 * that answers each request with its id. Each case names the RFC line it holds the proxy to.
 */
let upstream: RecordingUpstream;
let proxy: RunningProxyServer;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  proxy = await startProxyServer({ upstream: upstream.baseUrl, port: 0 });
});
afterAll(async () => {
  await proxy.close(100);
  await upstream.close();
});
beforeEach(() => {
  upstream.records.length = 0;
});

/** A request head as raw text: CRLF line ends added, the blank line after the fields included. */
function head(requestLine: string, ...fields: string[]): string {
  return `${[requestLine, ...fields].join('\r\n')}\r\n\r\n`;
}

function chunked(body: string, extension = ''): string {
  return `${Buffer.byteLength(body).toString(16)}${extension}\r\n${body}\r\n0\r\n\r\n`;
}

/** A complete request hidden in a body: if it reaches the upstream as a request, that is smuggling. */
const smuggled = head('GET /up/v1/categories HTTP/1.1', 'Host: upstream', 'X-Request-Id: smuggled');

/** Sends `text` on a fresh connection and expects exactly one refusal: a 400 Error, then the connection closed. */
async function expectRefused(text: string) {
  const conversation = await converse(proxy.port, [Buffer.from(text, 'latin1')], { answers: 1, untilClosed: true });
  expect(conversation.unreadable).toBeUndefined();
  expect(conversation.answers.map((answer) => answer.status)).toEqual([400]);
  expect(errorProblems(conversation.answers[0]!)).toEqual([]);
  expect(conversation.closed).toBe(true);
  await settle();
  expect(upstream.records).toEqual([]);
}

function errorProblems(answer: ParsedResponse): string[] {
  return errorShapeProblems({
    status: answer.status,
    contentType: headerValue(answer.headers, 'content-type'),
    body: answer.body.toString('utf8'),
  });
}

/** Lets anything the proxy might still send upstream arrive before the records are read. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 30));
}

function recordedIds(): (string | undefined)[] {
  return upstream.records.map((record) => (record.kind === 'request' ? record.id : `<${record.kind}>`));
}

describe('row 1: a chunked body on any method is de-chunked and re-framed, never a second request', () => {
  it.each(['GET', 'DELETE', 'OPTIONS', 'POST'])('%s with Transfer-Encoding: chunked', async (method) => {
    const body = smuggled;
    const first = await converse(
      proxy.port,
      [
        Buffer.from(
          head(`${method} /v1/categories HTTP/1.1`, 'Host: proxy', 'X-Request-Id: a1', 'Transfer-Encoding: chunked') +
            chunked(body, ';ext=1'),
        ),
      ],
      { answers: 1, untilClosed: false },
    );
    // Another client, on the pooled upstream connection: it must get its own answer.
    const second = await converse(
      proxy.port,
      [Buffer.from(head('GET /v1/categories HTTP/1.1', 'Host: proxy', 'X-Request-Id: b1'))],
      {
        answers: 1,
        untilClosed: false,
      },
    );
    await settle();
    expect(first.answers.map(echoedId)).toEqual(['a1']);
    expect(second.answers.map(echoedId)).toEqual(['b1']);
    expect(recordedIds()).toEqual(['a1', 'b1']);
    const forwarded = upstream.records[0]!;
    if (forwarded.kind !== 'request') throw new Error('unreachable');
    expect(forwarded.request.framing).toBe('content-length');
    expect(forwarded.request.body.toString()).toBe(body);
    expect(valuesOf(forwarded.request.headers, 'transfer-encoding')).toEqual([]);
  });
});

describe('row 2: Connection may not name end-to-end framing or routing fields', () => {
  it.each(['content-length', 'Content-Length, keep-alive', 'transfer-encoding', 'host', 'authorization'])(
    'Connection: %s is refused',
    async (nominated) => {
      await expectRefused(
        head(
          'GET /v1/categories HTTP/1.1',
          'Host: proxy',
          `Connection: ${nominated}`,
          `Content-Length: ${smuggled.length}`,
        ) + smuggled,
      );
    },
  );

  it('an answer that names Content-Length in Connection keeps its framing (the nomination is ignored)', async () => {
    const { forwardedHeaders } = await import('../../src/server/proxy-server.js');
    expect(forwardedHeaders(['Connection', 'content-length, x-hop', 'Content-Length', '2', 'X-Hop', '1'])).toEqual([
      'Content-Length',
      '2',
    ]);
  });
});

describe('row 5: exactly one Host (RFC 9112 section 3.2)', () => {
  it('two Host lines are refused', async () => {
    await expectRefused(head('GET /v1/categories HTTP/1.1', 'Host: proxy', 'Host: elsewhere.example'));
  });

  it('an HTTP/1.1 request without Host is refused; HTTP/1.0 may omit it', async () => {
    await expectRefused(head('GET /v1/categories HTTP/1.1', 'X-Request-Id: nohost'));
    const old = await converse(proxy.port, [Buffer.from(head('GET /v1/categories HTTP/1.0', 'X-Request-Id: h10'))], {
      answers: 1,
      untilClosed: true,
    });
    expect(old.answers.map(echoedId)).toEqual(['h10']);
  });

  it('a Host that is not a host name is refused', async () => {
    await expectRefused(head('GET /v1/categories HTTP/1.1', 'Host: a b/c'));
  });
});

describe('row 6: the target is normalised before the /v1 check, and what leaves /v1 is refused', () => {
  it.each([
    '/v1/../admin',
    '/v1/%2e%2e/admin',
    '/v1/%2E%2e/admin',
    '/v1/pets/../../admin',
    '/v1/..%2fadmin',
    '/v1/..%2Fadmin',
    '/v1/..%5cadmin',
    '/v1/..\\admin',
    '/v1/%252e%252e/admin',
    '/v1/..',
    '/v1/categories#fragment',
    '/v1/%zz',
    'http://elsewhere.example/v1/../admin',
  ])('%s is refused', async (target) => {
    await expectRefused(head(`GET ${target} HTTP/1.1`, 'Host: proxy'));
  });

  it.each([
    ['/v1/pets/../categories?x=1', '/up/v1/categories?x=1'],
    ['/v1/%2e/categories', '/up/v1/categories'],
    ['/v1/pets/%2E%2E/categories', '/up/v1/categories'],
    ['http://elsewhere.example/v1/categories?x=1', '/up/v1/categories?x=1'],
  ])('%s goes to the upstream as %s', async (target, forwardedTarget) => {
    const conversation = await converse(
      proxy.port,
      [Buffer.from(head(`GET ${target} HTTP/1.1`, 'Host: proxy', 'X-Request-Id: n1'))],
      {
        answers: 1,
        untilClosed: false,
      },
    );
    expect(conversation.answers.map(echoedId)).toEqual(['n1']);
    const [record] = upstream.records;
    if (record?.kind !== 'request') throw new Error(`expected a request, got ${JSON.stringify(record)}`);
    expect(record.request.target).toBe(forwardedTarget);
    expect(valuesOf(record.request.headers, 'host')).toEqual([new URL(upstream.baseUrl).host]);
  });
});

describe('framing the parser decides: ambiguity is refused, never forwarded', () => {
  it.each([
    [
      'Content-Length with Transfer-Encoding',
      head('POST /v1/categories HTTP/1.1', 'Host: p', 'Content-Length: 4', 'Transfer-Encoding: chunked') +
        chunked('abcd'),
    ],
    [
      'two Content-Lengths',
      `${head('POST /v1/categories HTTP/1.1', 'Host: p', 'Content-Length: 4', 'Content-Length: 4')}abcd`,
    ],
    [
      'a Content-Length that is not a number',
      `${head('POST /v1/categories HTTP/1.1', 'Host: p', 'Content-Length: +4')}abcd`,
    ],
    [
      'a coding other than chunked',
      head('POST /v1/categories HTTP/1.1', 'Host: p', 'Transfer-Encoding: gzip, chunked') + chunked('abcd'),
    ],
    ['an empty Transfer-Encoding', head('POST /v1/categories HTTP/1.1', 'Host: p', 'Transfer-Encoding:')],
    [
      'Transfer-Encoding in HTTP/1.0',
      head('POST /v1/categories HTTP/1.0', 'Host: p', 'Transfer-Encoding: chunked') + chunked('abcd'),
    ],
    ['obs-fold', head('GET /v1/categories HTTP/1.1', 'Host: p', 'X-Folded: one', ' two')],
    [
      'a bad chunk size',
      `${head('POST /v1/categories HTTP/1.1', 'Host: p', 'Transfer-Encoding: chunked')}4x\r\nabcd\r\n0\r\n\r\n`,
    ],
    [
      'two Authorization lines',
      head('GET /v1/categories HTTP/1.1', 'Host: p', 'Authorization: Bearer a', 'Authorization: Bearer b'),
    ],
    ['HTTP/2.0 on an HTTP/1 connection', head('GET /v1/categories HTTP/2.0', 'Host: p')],
  ])('%s', async (_name, text) => {
    await expectRefused(text);
  });
});

describe('the upstream reads only complete messages', () => {
  it('a body that breaks off sends nothing upstream', async () => {
    const text = `${head('POST /v1/categories HTTP/1.1', 'Host: p', 'X-Request-Id: cut', 'Content-Length: 100')}{"name":`;
    // The client waits 200 ms (time for a streaming proxy to pass the head and bytes on), then leaves.
    const conversation = await converse(proxy.port, [Buffer.from(text)], {
      answers: 1,
      untilClosed: true,
      deadlineMs: 200,
    });
    expect(conversation.answers).toEqual([]);
    await settle();
    expect(upstream.records).toEqual([]);
  });

  it('a declared Content-Length over the 1 MiB limit is 413 before a byte is read', async () => {
    const conversation = await converse(
      proxy.port,
      [Buffer.from(head('POST /v1/categories HTTP/1.1', 'Host: p', 'Content-Length: 2000000'))],
      { answers: 1, untilClosed: true },
    );
    expect(conversation.answers.map((answer) => answer.status)).toEqual([413]);
    expect(errorProblems(conversation.answers[0]!)).toEqual([]);
    expect(upstream.records).toEqual([]);
  });

  it('a chunked body that grows over the limit is 413, and nothing is sent', async () => {
    const chunk = chunked('x'.repeat(64 * 1024)).replace(/0\r\n\r\n$/, '');
    const pieces = [Buffer.from(head('PUT /v1/categories HTTP/1.1', 'Host: p', 'Transfer-Encoding: chunked'))];
    for (let index = 0; index < 17; index += 1) pieces.push(Buffer.from(chunk));
    const conversation = await converse(proxy.port, pieces, { answers: 1, untilClosed: true });
    expect(conversation.answers.map((answer) => answer.status)).toEqual([413]);
    await settle();
    expect(upstream.records).toEqual([]);
  });

  it('Expect: 100-continue: the client hears 100, sends its body, and the upstream gets it whole', async () => {
    const body = '{"name":"dog"}';
    const conversation = await converse(
      proxy.port,
      [
        Buffer.from(
          head(
            'POST /v1/categories HTTP/1.1',
            'Host: p',
            'X-Request-Id: e1',
            'Expect: 100-continue',
            `Content-Length: ${body.length}`,
          ),
        ),
        Buffer.from(body),
      ],
      { answers: 1, untilClosed: false },
    );
    expect(conversation.answers.map(echoedId)).toEqual(['e1']);
    const [record] = upstream.records;
    expect(record?.kind === 'request' && record.request.body.toString()).toBe(body);
  });
});

describe('pipelined requests: each answer to its own request, nothing after a refusal', () => {
  it('valid, refused, valid: the first answered, then the 400, the third never forwarded', async () => {
    const text =
      head('GET /v1/categories HTTP/1.1', 'Host: p', 'X-Request-Id: p1') +
      head('GET /v1/../admin HTTP/1.1', 'Host: p', 'X-Request-Id: p2') +
      head('GET /v1/categories HTTP/1.1', 'Host: p', 'X-Request-Id: p3');
    const conversation = await converse(proxy.port, [Buffer.from(text)], { answers: 2, untilClosed: true });
    expect(conversation.answers.map((answer) => [answer.status, echoedId(answer)])).toEqual([
      [200, 'p1'],
      [400, undefined],
    ]);
    await settle();
    expect(recordedIds()).toEqual(['p1']);
  });

  it('valid then bytes node cannot parse: the answer first, then the 400', async () => {
    const text =
      head('POST /v1/categories HTTP/1.1', 'Host: p', 'X-Request-Id: q1', 'Transfer-Encoding: chunked') +
      chunked('{"name":"x"}') +
      head('GET /v1/categories HTTP/1.1', 'Host: p', 'X-Folded: one', ' two');
    const conversation = await converse(proxy.port, [Buffer.from(text)], { answers: 2, untilClosed: true });
    expect(conversation.answers.map((answer) => [answer.status, echoedId(answer)])).toEqual([
      [200, 'q1'],
      [400, undefined],
    ]);
    expect(recordedIds()).toEqual(['q1']);
  });
});
