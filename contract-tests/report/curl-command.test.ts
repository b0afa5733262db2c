import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curlCommand, printfCommand, type SentRequest, shellWord } from './curl-command.js';

const run = promisify(execFile);
const secrets = [
  { value: 'sk-live-Abc123', variable: 'PETSTORE_API_KEY' },
  { value: 'limited-Key-9', variable: 'PETSTORE_RATE_LIMIT_KEY' },
];
const environment = { ...process.env, PETSTORE_API_KEY: secrets[0]!.value, PETSTORE_RATE_LIMIT_KEY: secrets[1]!.value };

// Each replay starts bash and curl: seconds on a busy CI machine, not the unit default of 5.
describe('curl commands that reproduce a request', { timeout: 60_000 }, () => {
  let received: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
  let origin = '';
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      response.end('ok');
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Runs the command in bash, with the secrets in the environment, and returns what the server got. */
  async function replay(request: SentRequest) {
    received = [];
    const command = curlCommand(request, secrets);
    for (const secret of secrets) expect(command).not.toContain(secret.value);
    expect(command).not.toMatch(/[^\x20-\x7e]/);
    await run('bash', ['-c', command], { env: environment });
    expect(received).toHaveLength(1);
    return received[0]!;
  }

  it('masks the keys as shell variables, in every form the auth probes derive from them', async () => {
    const key = secrets[0]!.value;
    const request: SentRequest = {
      method: 'GET',
      url: `${origin}/v1/categories?api_key=${encodeURIComponent(key)}`,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${key}0`,
        'x-api-key': key.slice(0, -1),
        cookie: `token=${key.toUpperCase() === key ? key : [...key].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')}`,
        'x-other': `Bearer ${secrets[1]!.value}`,
      },
      body: undefined,
    };
    const command = curlCommand(request, secrets);
    expect(command).toContain(`-H 'authorization: Bearer '"$PETSTORE_API_KEY"0`);
    expect(command).toContain(`-H 'x-api-key: '"\${PETSTORE_API_KEY%?}"`);
    expect(command).toContain(`-H 'cookie: token='"\${PETSTORE_API_KEY~~}"`);
    expect(command).toContain(`"$PETSTORE_RATE_LIMIT_KEY"`);
    const got = await replay(request);
    expect(got.url).toBe(`/v1/categories?api_key=${key}`);
    expect(got.headers.authorization).toBe(`Bearer ${key}0`);
    expect(got.headers['x-api-key']).toBe(key.slice(0, -1));
    expect(got.headers.cookie).toBe(request.headers.cookie);
    expect(got.headers['x-other']).toBe(request.headers['x-other']);
  });

  it('sends a body without Content-Type without one, an empty body as zero bytes, HEAD as HEAD', async () => {
    expect(
      (await replay({ method: 'POST', url: `${origin}/v1/categories`, headers: {}, body: '{"name":"x"}' })).headers[
        'content-type'
      ],
    ).toBeUndefined();
    const empty = await replay({
      method: 'POST',
      url: `${origin}/v1/categories`,
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expect(empty.body.length).toBe(0);
    expect(empty.headers['content-length']).toBe('0');
    expect(
      (await replay({ method: 'POST', url: `${origin}/v1/categories`, headers: {}, body: undefined })).method,
    ).toBe('POST');
    expect(
      (await replay({ method: 'HEAD', url: `${origin}/v1/categories`, headers: {}, body: undefined })).method,
    ).toBe('HEAD');
    expect(
      (await replay({ method: 'PATCH', url: `${origin}/v1/../v1/categories`, headers: {}, body: undefined })).url,
    ).toBe('/v1/../v1/categories');
  });

  it('delivers any body byte for byte: newlines, NUL, quotes, %, backslashes, emoji, lone surrogates, a leading @ or -, a key inside', async () => {
    const bodies = [
      '{"name":"a\nb"}',
      'a\u0000b',
      `it's "quoted" \\ %s %% $HOME \`id\``,
      '🐶 café \u202e',
      '@/etc/passwd',
      '-n',
      `{"name":"${secrets[0]!.value}"}`,
      '\ud800',
    ];
    for (const body of bodies) {
      const got = await replay({
        method: 'POST',
        url: `${origin}/v1/categories`,
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(got.body.equals(Buffer.from(body, 'utf8')), JSON.stringify(body)).toBe(true);
    }
  });

  it('delivers raw bytes as sent: invalid UTF-8, NUL, a key among them', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3]),
      Buffer.from(secrets[0]!.value, 'latin1'),
      Buffer.from([0x80, 0x0a]),
    ]);
    const command = curlCommand(
      {
        method: 'POST',
        url: `${origin}/v1/categories`,
        headers: { 'content-type': 'application/json' },
        body: new Uint8Array(bytes),
      },
      secrets,
    );
    expect(command).toContain('"$PETSTORE_API_KEY"');
    const got = await replay({
      method: 'POST',
      url: `${origin}/v1/categories`,
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(bytes),
    });
    expect(got.body.equals(bytes)).toBe(true);
  });

  it('any body and any printable header value survive the round trip (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({
          unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
          maxLength: 20,
        }),
        async (body, value) => {
          const got = await replay({
            method: 'POST',
            url: `${origin}/v1/categories`,
            headers: { 'content-type': 'application/json', 'x-probe': value },
            body,
          });
          expect(got.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
          expect(got.headers['x-probe'] ?? '').toBe(value);
        },
      ),
      { numRuns: 15, seed: 26 },
    );
  });

  it('quotes words for the shell: printable ASCII in single quotes, anything else as escaped bytes', () => {
    expect(shellWord("it's", [])).toBe(`'it'\\''s'`);
    expect(shellWord('', [])).toBe("''");
    expect(shellWord('https://h:8/v1/categories', [])).toBe('https://h:8/v1/categories');
    expect(shellWord('-v', [])).toBe("'-v'");
    expect(shellWord('a?b=1&c', [])).toBe("'a?b=1&c'");
    expect(shellWord('a\tb', [])).toBe(`$'a\\x09b'`);
    expect(printfCommand('-a\n%', [])).toBe(`printf '\\055a\\012%%'`);
  });
});
