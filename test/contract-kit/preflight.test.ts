import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../contract-tests/cli/parse-cli-args.js';
import { ContractRunError } from '../../contract-tests/runner/contract-run-error.js';
import { preflight } from '../../contract-tests/runner/preflight.js';
import { runContract } from '../../contract-tests/runner/run-contract.js';
import { type FakePetstore, startFakePetstore } from './support/fake-petstore.js';
import { runCli } from './support/run-cli.js';

/**
 * The preflight: a run that cannot mean anything stops with one line on stderr and exit 2 within
 * seconds (the CLI in a child process against a tiny loopback server per case), and a server that
 * is merely broken is never stopped by it (the suite must judge it, rule by rule).
 */

interface LoopbackServer {
  url: string;
  /** Arrival time and path of every request. */
  requests: { atMs: number; path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<LoopbackServer> {
  const requests: LoopbackServer['requests'] = [];
  const server = createServer((request, response) => {
    requests.push({ atMs: Date.now(), path: request.url ?? '', authorization: request.headers.authorization });
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const page = '<!DOCTYPE html><html><head><title>Acme Portal</title></head><body><div id="root"></div></body></html>';

/** A server with the API's operations only under `prefix`, 404 elsewhere (JSON or HTML). */
function apiUnder(prefix: string, elsewhere: 'json' | 'html' = 'json') {
  return (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').split('?')[0]!;
    if (path.startsWith(prefix) && /^\/(categories|store\/orders|pets\/[^/]+)$/.test(path.slice(prefix.length)))
      return json(response, 200, [], {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '59',
        'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60),
      });
    if (elsewhere === 'html')
      return response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
    return json(response, 404, { code: 'not_found', message: 'Not found', status: 404 });
  };
}

/**
 * Runs the command line, then judges the "one line, exit 2, quickly" contract: exactly one line
 * on stderr, nothing on stdout, no stack trace, no key in clear, few requests (the run never
 * reached the suite or a rate-limit wait), and the line out within 3 s of the first request.
 *
 * `via: 'cli'` runs the real command in a child process (node and tsx take their own second or
 * two to start, before the first request; a busy CI machine stretches that, not the measure).
 * `via: 'in-process'` parses the same arguments and calls runContract, whose ContractRunError the
 * CLI prints as `petstore-contract: <message>` with exit 2 (the CLI cases prove that path): the
 * same contract at a fraction of the cost, for the cases whose difference is the server.
 */
async function expectStop(
  server: LoopbackServer | undefined,
  args: string[],
  options: { via: 'cli' | 'in-process'; maxRequests?: number },
): Promise<string> {
  const maxRequests = options.maxRequests ?? 8;
  let line: string;
  let lineAtMs: number;
  if (options.via === 'cli') {
    // Start-up is not what is measured (a machine running other suites stretches it to tens of seconds).
    const { code, stdout, stderr, firstStderrAtMs } = await runCli(args, {}, 170_000);
    expect(code, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.endsWith('\n')).toBe(true);
    expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
    expect(stderr).not.toMatch(/^\s+at /m);
    line = stderr.trimEnd();
    lineAtMs = firstStderrAtMs!;
  } else {
    const command = parseCliArgs(args, {});
    if (command.kind !== 'run') throw new Error(`Failed to read ${args.join(' ')} as a run`);
    const logged: string[] = [];
    const error = await runContract({ ...command.options, log: (text) => logged.push(text) }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    lineAtMs = Date.now();
    expect(error).toBeInstanceOf(ContractRunError);
    expect((error as ContractRunError).exitCode).toBe(2);
    expect(['unreachable', 'refused', 'not-the-api']).toContain((error as ContractRunError).kind);
    expect(logged).toEqual([]);
    line = `petstore-contract: ${(error as Error).message}`;
    expect(line).not.toContain('\n');
  }
  expect(line).toMatch(/^petstore-contract: /);
  const key = args[args.indexOf('--api-key') + 1]!;
  expect(line).not.toContain(key);
  if (server !== undefined) {
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.length).toBeLessThanOrEqual(maxRequests);
    expect(lineAtMs - server.requests[0]!.atMs).toBeLessThan(3_000);
  }
  return line;
}

describe('the preflight stops a run that cannot mean anything (one line, exit 2, within 3 s)', () => {
  let fake: FakePetstore;
  const servers: LoopbackServer[] = [];
  const start = async (handler: Parameters<typeof serve>[0]) => {
    const server = await serve(handler);
    servers.push(server);
    return server;
  };
  beforeAll(async () => {
    fake = await startFakePetstore();
  });
  afterAll(async () => {
    await Promise.all([fake?.close(), ...servers.map((server) => server.close())]);
  });

  it.concurrent('--api-key refused (401 + Error): names the masked key, the answer and what to check; one request', async () => {
    const before = fake.requests.length;
    const line = await expectStop(undefined, ['--base-url', fake.baseUrl, '--api-key', 'not-the-right-key'], {
      via: 'cli',
    });
    expect(line).toBe(
      `petstore-contract: Failed to use --api-key not-…(17): the server refused it (GET ${fake.baseUrl}/categories answered 401: unauthorized: Missing or invalid API key); check the key and that it belongs to this server`,
    );
    // Only the preflight's own request: nothing of the suite ran.
    expect(
      fake.requests.slice(before).filter((request) => request.authorization === 'Bearer not-the-right-key'),
    ).toHaveLength(1);
  });

  it.concurrent('--api-key refused with 403 (a banned or unprivileged key)', async () => {
    const server = await start((_request, response) =>
      json(response, 403, { code: 'key_banned', message: 'This key is banned until 12:00 UTC', status: 403 }),
    );
    const line = await expectStop(server, ['--base-url', `${server.url}/v1`, '--api-key', 'banned-key-123'], {
      via: 'in-process',
      maxRequests: 1,
    });
    expect(line).toContain('Failed to use --api-key bann…(14): the server refused it');
    expect(line).toContain('answered 403: key_banned: This key is banned until 12:00 UTC');
  });

  it.concurrent('--rate-limit-key refused while --api-key is accepted', async () => {
    const server = await start((request, response) =>
      request.headers.authorization === 'Bearer good-key-1234'
        ? apiUnder('/v1')(request, response)
        : json(response, 401, { code: 'unauthorized', message: 'Missing or invalid API key', status: 401 }),
    );
    const line = await expectStop(
      server,
      ['--base-url', `${server.url}/v1`, '--api-key', 'good-key-1234', '--rate-limit-key', 'not-a-limited-key'],
      { via: 'cli', maxRequests: 2 },
    );
    expect(line).toMatch(
      /^petstore-contract: Failed to use --rate-limit-key not-…\(17\): the server refused it \(GET \S+\/categories answered 401: .*\); check the key .*, or leave --rate-limit-key out \(the 429 checks are then skipped\)$/,
    );
  });

  it.concurrent('404 to everything because the base URL lacks /v1: suggests the URL that answers', async () => {
    const server = await start(apiUnder('/v1'));
    const line = await expectStop(server, ['--base-url', server.url, '--api-key', 'some-key-1234'], { via: 'cli' });
    expect(line).toBe(
      `petstore-contract: Failed to use --base-url ${server.url}: it answers 404 to every operation (GET /categories, /store/orders, /pets/1); did you mean --base-url ${server.url}/v1? (GET ${server.url}/v1/categories answered 200)`,
    );
  });

  it.concurrent('404 to everything under a path prefix: suggests the prefix plus /v1', async () => {
    const server = await start(apiUnder('/petstore/v1', 'html'));
    const line = await expectStop(server, ['--base-url', `${server.url}/petstore`, '--api-key', 'some-key-1234'], {
      via: 'in-process',
    });
    expect(line).toContain(`did you mean --base-url ${server.url}/petstore/v1?`);
  });

  it.concurrent('another version (/v2) or an operation path in the base URL: suggests the base URL', async () => {
    const [v2, operation] = await Promise.all([start(apiUnder('/v1')), start(apiUnder('/v1'))]);
    expect(
      await expectStop(v2, ['--base-url', `${v2.url}/v2`, '--api-key', 'some-key-1234'], { via: 'in-process' }),
    ).toContain(`did you mean --base-url ${v2.url}/v1?`);
    expect(
      await expectStop(operation, ['--base-url', `${operation.url}/v1/categories`, '--api-key', 'some-key-1234'], {
        via: 'in-process',
      }),
    ).toContain(`did you mean --base-url ${operation.url}/v1?`);
  });

  it.concurrent('404 to everything and no API anywhere: says the base URL needs its version prefix', async () => {
    const server = await start((_request, response) => json(response, 404, { message: 'no route' }));
    const line = await expectStop(server, ['--base-url', `${server.url}/v1`, '--api-key', 'some-key-1234'], {
      via: 'in-process',
    });
    expect(line).toBe(
      `petstore-contract: Failed to use --base-url ${server.url}/v1: it answers 404 to every operation (GET /categories, /store/orders, /pets/1); the base URL includes the version prefix, e.g. https://api.example.com/v1`,
    );
  });

  it.concurrent('a web app (200 text/html to every path): names the page', async () => {
    const server = await start((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page),
    );
    const line = await expectStop(server, ['--base-url', `${server.url}/v1`, '--api-key', 'some-key-1234'], {
      via: 'cli',
    });
    expect(line).toContain(
      `Failed to use --base-url ${server.url}/v1: it serves an HTML page, not the API (GET /categories, /store/orders, /pets/1 answered 200 text/html; charset=utf-8 "Acme Portal"): a web app's or a proxy's address?`,
    );
  });

  it.concurrent("a proxy's sign-in redirect (302 to a login page for every path)", async () => {
    const server = await start((_request, response) =>
      response.writeHead(302, { location: 'https://sso.example.com/login?next=%2Fv1' }).end(),
    );
    const line = await expectStop(server, ['--base-url', `${server.url}/v1`, '--api-key', 'some-key-1234'], {
      via: 'in-process',
    });
    expect(line).toContain(
      'it answers every operation with a redirect (302 to https://sso.example.com/login?next=%2Fv1): a sign-in page or a proxy in front of the API? The kit does not follow redirects',
    );
  });

  it.concurrent('5xx to everything (a gateway whose upstream is down): no suggestion probes', async () => {
    const server = await start((_request, response) =>
      response
        .writeHead(503, { 'content-type': 'text/plain' })
        .end('upstream connect error or disconnect/reset before headers'),
    );
    const line = await expectStop(server, ['--base-url', `${server.url}/v1`, '--api-key', 'some-key-1234'], {
      via: 'in-process',
      maxRequests: 3,
    });
    expect(line).toBe(
      `petstore-contract: Failed to use --base-url ${server.url}/v1: it answers 503 to every operation (GET /categories, /store/orders, /pets/1): upstream connect error or disconnect/reset before headers: the server cannot serve requests now`,
    );
  });

  it.concurrent('the host refuses connections', async () => {
    const closed = await serve(() => undefined);
    await closed.close();
    const line = await expectStop(undefined, ['--base-url', `${closed.url}/v1`, '--api-key', 'some-key-1234'], {
      via: 'in-process',
    });
    expect(line).toBe(
      `petstore-contract: Failed to reach ${closed.url}/v1: connection refused (is the server running, and is the port right?)`,
    );
  });

  it.concurrent('https to an http server: TLS fails, with the likely cause', async () => {
    const server = await start((_request, response) => response.end('plain http'));
    const line = await expectStop(
      undefined,
      ['--base-url', `${server.url.replace('http:', 'https:')}/v1`, '--api-key', 'some-key-1234'],
      { via: 'cli' },
    );
    expect(line).toMatch(
      /^petstore-contract: Failed to reach https:\/\/127\.0\.0\.1:\d+\/v1: TLS failed \(ERR_SSL_WRONG_VERSION_NUMBER: wrong version number\): is it an http server\? \(the URL says https\)$/,
    );
  });

  it.concurrent('http to a server that does not speak HTTP (a TLS port): says so', async () => {
    const tcp = createTcpServer((socket) =>
      socket.once('data', () => socket.end(Buffer.from([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46]))),
    );
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    try {
      const line = await expectStop(
        undefined,
        ['--base-url', `http://127.0.0.1:${(tcp.address() as AddressInfo).port}/v1`, '--api-key', 'some-key-1234'],
        { via: 'in-process' },
      );
      expect(line).toMatch(
        /Failed to reach http:\/\/127\.0\.0\.1:\d+\/v1: the answer is not HTTP \(.*\): an http URL on an https port\?$/,
      );
    } finally {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  });

  it.concurrent('no answer within --timeout', async () => {
    const server = await start(() => undefined);
    const line = await expectStop(
      server,
      ['--base-url', `${server.url}/v1`, '--api-key', 'some-key-1234', '--timeout', '0.5'],
      { via: 'in-process', maxRequests: 1 },
    );
    expect(line).toBe(`petstore-contract: Failed to reach ${server.url}/v1: no answer within 0.5 s`);
  });
});

describe('the preflight never stops a server the suite can judge', () => {
  const servers: LoopbackServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  const passes = async (handler: Parameters<typeof serve>[0]) => {
    const server = await serve(handler);
    servers.push(server);
    const result = await preflight({
      baseUrl: `${server.url}/v1`,
      apiKey: 'the-key-1234',
      timeoutMs: 5_000,
      extraHeaders: {},
    });
    return { result, requests: server.requests.length };
  };

  it('a conforming answer costs one request and hands its rate-limit headers on', async () => {
    const { result, requests } = await passes(apiUnder('/v1'));
    expect(requests).toBe(1);
    expect(result).toMatchObject({ status: 200, remaining: '59' });
  });

  it('JSON labelled text/html (Express res.send of a string) is the API with a wrong label: every.json-content-type judges it', async () => {
    const { result, requests } = await passes((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-ratelimit-remaining': '59' }).end('[]'),
    );
    expect(requests).toBe(1);
    expect(result).toMatchObject({ status: 200, remaining: '59' });
  });

  it('429 to everything (the rate-limit checks judge it), even with a Retry-After far beyond --max-wait', async () => {
    const { result } = await passes((_request, response) =>
      json(response, 429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '999999' }),
    );
    expect(result.status).toBe(429);
  });

  it('a key answered 429 (banned for an hour): the run goes on, and its first line says what that means for it', async () => {
    const server = await serve((request, response) =>
      request.headers.authorization === 'Bearer banned-key-1234'
        ? json(
            response,
            429,
            { code: 'key_banned', message: 'banned', status: 429 },
            {
              'retry-after': '3600',
              'x-ratelimit-limit': '60',
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600),
            },
          )
        : json(response, 401, { code: 'unauthorized', message: 'Missing or invalid API key', status: 401 }),
    );
    servers.push(server);
    const log: string[] = [];
    const run = await runContract({
      baseUrl: `${server.url}/v1`,
      apiKey: 'banned-key-1234',
      readOnly: true,
      maxWaitSeconds: 5,
      propertyRuns: 2,
      log: (line) => log.push(line),
    });
    expect(log[0]).toBe(
      `petstore-contract: GET ${server.url}/v1/categories answered 429 to --api-key (Retry-After 3600 s): the key is rate-limited or banned; the checks that need it will be INCONCLUSIVE unless it recovers within --max-wait 5 s; run again later, or with another key`,
    );
    expect(run.exitCode).not.toBe(0);
    // The checks that need no key still judged the server.
    expect(run.report.results.find((result) => result.id === 'auth.missing-key:listCategories')?.status).toBe('PASS');
  });

  it('listCategories missing (404) or crashing (500) while another operation answers', async () => {
    for (const status of [404, 500]) {
      const { result, requests } = await passes((request, response) =>
        (request.url ?? '').startsWith('/v1/categories')
          ? json(response, status, { code: 'x', message: 'x', status })
          : json(response, 200, []),
      );
      expect(result.status).toBe(status);
      expect(requests).toBe(3);
    }
  });

  it('a list answered with HTML while the other operations answer JSON, or ask for a key', async () => {
    const { result } = await passes((request, response) =>
      (request.url ?? '').startsWith('/v1/categories')
        ? response.writeHead(200, { 'content-type': 'text/html' }).end(page)
        : json(response, 401, { code: 'unauthorized', message: 'no', status: 401 }),
    );
    expect(result.status).toBe(200);
  });

  it('a 400 to the key (a gateway wanting a header), a 200 that is not JSON: the suite reports them', async () => {
    expect(
      (
        await passes((_request, response) =>
          json(response, 400, { code: 'tenant_required', message: 'X-Tenant missing', status: 400 }),
        )
      ).result.status,
    ).toBe(400);
    expect(
      (await passes((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'))).result
        .status,
    ).toBe(200);
  });
});
