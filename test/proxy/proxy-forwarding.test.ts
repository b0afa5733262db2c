import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  forwardedHeaders,
  parseUpstream,
  type RunningProxyServer,
  startProxyServer,
} from '../../src/server/proxy-server.js';

/**
 * What the proxy does to the bytes: forwards them as sent (streaming, headers, bodies), rewrites
 * Host, drops the hop-by-hop headers of RFC 9110 section 7.6.1, answers 502 in the Error shape when
 * the upstream cannot answer, bounds what it keeps for judging, speaks TLS upstream, and never shows
 * a key in clear.
 */
interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
}

let upstream: Server | undefined;
let proxy: RunningProxyServer | undefined;
afterEach(async () => {
  await proxy?.close(100);
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  proxy = undefined;
  upstream = undefined;
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An upstream that records each request and answers with `answer`. */
async function startUpstream(
  answer: (request: IncomingMessage, response: ServerResponse, seen: Seen) => void,
): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method!,
        url: request.url!,
        rawHeaders: request.rawHeaders,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(entry);
      answer(request, response, entry);
    });
  });
  return { base: `http://${await listen(upstream)}/api/v1`, seen };
}

const rateHeaders = {
  'X-RateLimit-Limit': '60',
  'X-RateLimit-Remaining': '59',
  'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 60),
};

/** A raw HTTP/1.1 request through the proxy, so the test controls every header byte. */
function rawRequest(
  port: number,
  options: { method?: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        setHost: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            rawHeaders: response.rawHeaders,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

describe('forwarding', () => {
  it('forwards method, path, query, headers and body as sent; rewrites Host; drops hop-by-hop headers both ways', async () => {
    const { base, seen } = await startUpstream((_request, response) => {
      response.writeHead(201, {
        ...rateHeaders,
        'Content-Type': 'application/json',
        Connection: 'X-Upstream-Hop, keep-alive',
        'X-Upstream-Hop': 'dropped',
        'Keep-Alive': 'timeout=5',
        'Proxy-Authenticate': 'Basic',
        'X-Kept': 'yes',
      });
      response.end('{"id":1,"name":"dog"}');
    });
    proxy = await startProxyServer({ upstream: base, port: 0 });
    const answer = await rawRequest(proxy.port, {
      method: 'POST',
      path: '/v1/categories?trace=1&x=%20y',
      headers: {
        Host: 'frontend.test:3000',
        Authorization: 'Bearer secret-key-1234567',
        'Content-Type': 'application/json',
        'X-Custom-Case': 'Value',
        Connection: 'X-Hop-Named, keep-alive',
        'X-Hop-Named': 'dropped',
        'Keep-Alive': 'timeout=5',
        TE: 'trailers',
        'Proxy-Authorization': 'Basic abc',
        Upgrade: 'h2c',
        'Content-Length': '14',
      },
      body: '{"name":"dog"}',
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toBe('{"id":1,"name":"dog"}');
    const got = seen[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/api/v1/categories?trace=1&x=%20y');
    expect(got.body).toBe('{"name":"dog"}');
    const names = got.rawHeaders.filter((_, index) => index % 2 === 0);
    expect(got.rawHeaders[names.indexOf('Host') * 2 + 1]).toBe(new URL(base).host);
    expect(names).toContain('X-Custom-Case');
    expect(got.rawHeaders).toContain('Bearer secret-key-1234567');
    for (const hop of ['X-Hop-Named', 'TE', 'Proxy-Authorization', 'Upgrade']) expect(names).not.toContain(hop);
    // Node's client adds its own Connection: keep-alive for its pool; nothing of the client's reaches the upstream.
    expect(got.rawHeaders.join('\n')).not.toMatch(/X-Hop-Named|timeout=5/);
    const back = answer.rawHeaders.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase());
    expect(back).toContain('x-kept');
    for (const hop of ['x-upstream-hop', 'proxy-authenticate']) expect(back).not.toContain(hop);
    expect(answer.rawHeaders.join('\n')).not.toContain('dropped');
  });

  it('strips exactly the hop-by-hop fields from a raw header list', () => {
    expect(
      forwardedHeaders([
        'Host',
        'a',
        'Connection',
        'close, X-Trace',
        'X-Trace',
        '1',
        'Proxy-Connection',
        'x',
        'Transfer-Encoding',
        'chunked',
        'Trailer',
        'X',
        'Accept',
        '*/*',
        'accept',
        'text/html',
      ]),
    ).toEqual(['Host', 'a', 'Accept', '*/*', 'accept', 'text/html']);
  });

  it.each([
    ['example.test/v1', 'not an absolute URL'],
    ['ftp://example.test/v1', 'only http and https are supported'],
    ['http://user:pw@example.test/v1', 'it carries credentials'],
    ['http://example.test/v1?x=1', 'a base URL has no query'],
  ])('refuses the upstream %s in one line', (text, message) => {
    expect(() => parseUpstream(text)).toThrow(message);
  });

  it('streams: the client reads the first chunk before the upstream has finished its answer', async () => {
    let finish: () => void = () => {};
    const { base } = await startUpstream((_request, response) => {
      response.writeHead(200, { ...rateHeaders, 'Content-Type': 'application/json' });
      response.write('[');
      finish = () => response.end(']');
    });
    proxy = await startProxyServer({ upstream: base, port: 0 });
    const response = await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: 'Bearer k' } });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('[');
    finish();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe(']');
  });

  it('answers 502 in the Error shape when the upstream refuses, and judges nothing of it', async () => {
    const closed = createServer();
    const address = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    proxy = await startProxyServer({ upstream: `http://${address}/v1`, port: 0 });
    const response = await fetch(`${proxy.baseUrl}/categories`);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { code: string; message: string; status: number };
    expect(body).toEqual({ code: 'bad_gateway', message: expect.stringContaining('ECONNREFUSED'), status: 502 });
    const report = proxy.report();
    expect(report.requests).toMatchObject({ forwarded: 1, answered: 0, upstreamFailures: 1 });
    expect(report.server.rules.every((rule) => rule.judged === 0)).toBe(true);
    expect(report.server.outcome).toBe('pass');
  });

  it('answers 502 when the upstream sends no headers within the timeout', async () => {
    const { base } = await startUpstream(() => {});
    proxy = await startProxyServer({ upstream: base, port: 0, upstreamTimeoutMs: 200 });
    const response = await fetch(`${proxy.baseUrl}/categories`);
    expect(response.status).toBe(502);
    expect(((await response.json()) as { message: string }).message).toContain('no answer within 200 ms');
  });

  it('abandons the upstream exchange when the client goes away first, and judges nothing of it', async () => {
    let upstreamClosed: Promise<void> = Promise.resolve();
    const { base } = await startUpstream((request) => {
      upstreamClosed = new Promise((resolve) => request.socket.once('close', () => resolve()));
    });
    proxy = await startProxyServer({ upstream: base, port: 0 });
    const controller = new AbortController();
    const pending = fetch(`${proxy.baseUrl}/categories`, { signal: controller.signal });
    while (proxy.report().requests.forwarded === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(pending).rejects.toThrow();
    await upstreamClosed;
    await expect.poll(() => proxy!.report().requests.abandonedByClient).toBe(1);
    expect(proxy.report().requests.upstreamFailures).toBe(0);
  });

  it('answers bytes that are not HTTP with a 400 in the Error shape, and adds the Host an HTTP/1.0 request lacks', async () => {
    const { base, seen } = await startUpstream((_request, response) => {
      response.writeHead(200, { ...rateHeaders, 'Content-Type': 'application/json' });
      response.end('[]');
    });
    proxy = await startProxyServer({ upstream: base, port: 0 });
    const exchange = (bytes: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(proxy!.port, '127.0.0.1', () => socket.write(bytes));
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('close', () => resolve(text));
      });
    const garbage = await exchange('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'bad_request',
      status: 400,
    });
    const old = await exchange('GET /v1/categories HTTP/1.0\r\n\r\n');
    expect(old).toMatch(/^HTTP\/1\.1 200 /);
    expect(seen.map((entry) => entry.rawHeaders)).toEqual([['Host', new URL(base).host, 'Connection', 'keep-alive']]);
  });

  it('forwards a CORS preflight and judges neither side by it', async () => {
    const { base } = await startUpstream((_request, response) => {
      response.writeHead(204, { 'Access-Control-Allow-Origin': '*' });
      response.end();
    });
    proxy = await startProxyServer({ upstream: base, port: 0 });
    const response = await fetch(`${proxy.baseUrl}/categories`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    const report = proxy.report();
    expect(report.server.rules.every((rule) => rule.judged === 0)).toBe(true);
    expect(report.client.clients).toEqual([]);
    expect(report.server.information.join('\n')).toContain('CORS preflights');
  });

  it('listens on loopback by default, and serves nothing outside /v1 and /__mock', async () => {
    const { base, seen } = await startUpstream((_request, response) => response.end());
    proxy = await startProxyServer({ upstream: base, port: 0 });
    expect(proxy.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const outside = await fetch(`${proxy.origin}/other`);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ code: 'not_found', status: 404 });
    expect(seen).toHaveLength(0);
    expect(await (await fetch(`${proxy.origin}/__mock/health`)).json()).toEqual({ status: 'ok', mode: 'proxy' });
  });

  it('forwards a body over the bound whole, and reports it as too large to judge', async () => {
    const big = JSON.stringify(Array.from({ length: 20_000 }, (_, id) => ({ id, name: `category-${id}` })));
    const { base } = await startUpstream((_request, response) => {
      response.writeHead(200, { ...rateHeaders, 'Content-Type': 'application/json', Date: new Date().toUTCString() });
      response.end(big);
    });
    proxy = await startProxyServer({ upstream: base, port: 0, maxJudgedBodyBytes: 64 * 1024 });
    const response = await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: 'Bearer k' } });
    expect(await response.text()).toBe(big);
    const report = proxy.report();
    expect(report.requests.tooLargeToJudge).toBe(1);
    expect(report.server.information.join('\n')).toContain('too large to judge');
    expect(report.server.rules.find((rule) => rule.id === 'every.schema')!.judged).toBe(0);
    expect(report.server.rules.find((rule) => rule.id === 'every.rate-headers-present')!.judged).toBe(1);
  });

  it('never shows a key in clear: report (JSON, JUnit, Markdown), dashboard and export use pseudonyms', async () => {
    const key = 'live-secret-key-0123456789';
    const { base } = await startUpstream((request, response) => {
      // A careless upstream that echoes the key in its error.
      response.writeHead(400, { ...rateHeaders, 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({ code: 'bad', message: `bad request from ${request.headers.authorization}`, status: 401 }),
      );
    });
    proxy = await startProxyServer({ upstream: base, port: 0 });
    await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: `Bearer ${key}` } });
    await fetch(`${proxy.baseUrl}/categories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const outputs = await Promise.all(
      [
        '/__mock/report',
        '/__mock/report?format=junit',
        '/__mock/report?format=markdown',
        '/__mock/ui',
        '/__mock/requests?format=jsonl',
      ].map(async (path) => (await fetch(`${proxy!.origin}${path}`)).text()),
    );
    for (const output of outputs) {
      expect(output).not.toContain(key);
      expect(output).toMatch(/client-[0-9a-f]{12}/);
    }
    // The echo was judged (status 401 in a 400 body), with the pseudonym where the key was.
    const failure = proxy.report().server.rules.find((rule) => rule.id === 'every.error-status')!;
    expect(failure.outcome).toBe('fail');
    const lines = outputs[4]!
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { client: string; auth: string; method: string; body: string | null });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ method: 'POST', auth: 'key', body: '{}' });
  });

  it('speaks TLS to an https upstream (a CA given to it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const cert = readFileSync(join(dir, 'cert.pem'));
      const seen: string[] = [];
      upstream = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (request, response) => {
        seen.push(`${request.method} ${request.url} ${request.headers.host}`);
        response.writeHead(200, { ...rateHeaders, 'Content-Type': 'application/json' });
        response.end('[]');
      });
      const address = await listen(upstream);
      proxy = await startProxyServer({ upstream: `https://${address}/v1`, port: 0, ca: cert });
      const response = await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: 'Bearer k' } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('[]');
      expect(seen).toEqual([`GET /v1/categories ${address}`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
