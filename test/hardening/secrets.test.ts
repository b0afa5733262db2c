import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskSecret } from '../../spec/credential-masking.js';
import { type CliProcess, startCli } from './support/cli-process.js';
import { errorShapeProblems } from './support/error-shape.js';

/**
 * Secrets (issue 6): API keys never appear unmasked in the logs or the request log, and the
 * control token guards /__mock/*. Against the real CLI with --verbose, because what reaches
 * stdout and stderr is the point.
 *
 * The demo keys (demo-free ... demo-enterprise) are public, documented values, and the startup
 * banner lists them on purpose so a newcomer can copy one; every other key is a secret.
 */
const invalidSecret = 'sk_live_ABCDEFGHIJKLMNOP';
const configuredSecret = 'sk_test_CONFIGURED_SECRET_0042';
const addedSecret = 'sk_added_SECRET_KEY_777';
const controlToken = 'ctl_TOKEN_SECRET_987654';

let cli: CliProcess | undefined;
let directory: string | undefined;
let requestLog = '';
let keyList = '';
const controlAnswers: Record<string, { status: number; problems: string[]; code: string | undefined }> = {};

async function send(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string; contentType: string | null }> {
  const response = await fetch(`${cli!.origin}${path}`, {
    method: init.method ?? 'GET',
    headers: init.headers,
    body: init.body,
  });
  return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') };
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'petstore-hardening-'));
  const configPath = join(directory, 'petstore.yaml');
  await writeFile(configPath, `keys:\n  - key: ${configuredSecret}\n    plan: pro\n`);
  cli = await startCli(['--verbose', '--control-token', controlToken, '--config', configPath]);
  const control = { 'x-mock-control-token': controlToken };

  expect((await send('/v1/categories', { headers: { authorization: 'Bearer demo-pro' } })).status).toBe(200);
  expect((await send('/v1/categories', { headers: { authorization: `Bearer ${invalidSecret}` } })).status).toBe(401);
  expect((await send('/v1/categories', { headers: { authorization: `Bearer ${configuredSecret}` } })).status).toBe(200);
  expect(
    (
      await send('/v1/categories', {
        method: 'POST',
        headers: { authorization: `Bearer ${invalidSecret}`, 'content-type': 'application/json' },
        body: '{"name":"x"}',
      })
    ).status,
  ).toBe(401);
  // The same secret where it does not belong: a query string, a wrong scheme, no scheme.
  expect((await send(`/v1/categories?api_key=${invalidSecret}`)).status).toBe(401);
  expect((await send('/v1/categories', { headers: { authorization: `Token ${invalidSecret}` } })).status).toBe(401);
  expect((await send('/v1/categories', { headers: { authorization: invalidSecret } })).status).toBe(401);
  // A key added at run time through the controls, then used.
  expect(
    (
      await send('/__mock/keys', {
        method: 'POST',
        headers: { ...control, 'content-type': 'application/json' },
        body: JSON.stringify({ key: addedSecret, plan: 'free' }),
      })
    ).status,
  ).toBe(201);
  expect((await send('/v1/categories', { headers: { authorization: `Bearer ${addedSecret}` } })).status).toBe(200);

  const attempts: Record<string, Record<string, string>> = {
    'no token': {},
    'wrong token': { 'x-mock-control-token': 'not-the-token' },
    'the token': control,
  };
  for (const [label, headers] of Object.entries(attempts)) {
    const answer = await send('/__mock/requests', { headers });
    const problems =
      answer.status >= 400
        ? errorShapeProblems({ status: answer.status, contentType: answer.contentType ?? undefined, body: answer.text })
        : [];
    controlAnswers[label] = {
      status: answer.status,
      problems,
      code: answer.status >= 400 ? (JSON.parse(answer.text) as { code: string }).code : undefined,
    };
  }
  // A marker request last: once its log line is out, every earlier line is too.
  await send('/v1/the-last-request', { headers: { authorization: `Bearer ${invalidSecret}` } });
  await cli.waitForOutput('/v1/the-last-request');
  requestLog = (await send('/__mock/requests', { headers: control })).text;
  keyList = (await send('/__mock/keys', { headers: control })).text;
});

afterAll(async () => {
  await cli?.kill();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

/** The verbose per-request lines, without the startup banner. */
const requestLines = () =>
  cli!
    .stdout()
    .split('\n')
    .filter((line) => /^\[petstore-mock\] [A-Z]+ \//.test(line));

describe('secrets in logs', () => {
  it('logs every request with --verbose, keys masked', () => {
    expect(requestLines().length).toBeGreaterThanOrEqual(10);
    expect(requestLines().join('\n')).toContain(maskSecret(invalidSecret));
  });

  it('never prints a key sent with a request, valid or invalid, to stdout or stderr', () => {
    const output = `${cli!.stdout()}\n${cli!.stderr()}`;
    for (const secret of [invalidSecret, addedSecret]) expect(output).not.toContain(secret);
    // demo-pro is public (the banner lists it), but the request lines still mask it.
    expect(requestLines().join('\n')).not.toContain('demo-pro');
    expect(requestLines().join('\n')).not.toContain(configuredSecret);
  });

  it('never prints the control token', () => {
    expect(`${cli!.stdout()}\n${cli!.stderr()}`).not.toContain(controlToken);
  });

  it('does not print a key from the config file in the startup banner (only the public demo keys in full)', () => {
    expect(`${cli!.stdout()}\n${cli!.stderr()}`).not.toContain(configuredSecret);
  });

  it('keeps GET /__mock/requests and GET /__mock/keys masked', () => {
    for (const secret of [invalidSecret, configuredSecret, addedSecret, 'demo-pro']) {
      expect(requestLog).not.toContain(secret);
      expect(keyList).not.toContain(secret);
    }
    expect(requestLog).toContain(JSON.stringify(maskSecret(invalidSecret)));
    expect(keyList).toContain(JSON.stringify(maskSecret(addedSecret)));
  });
});

describe('--control-token', () => {
  it('refuses /__mock/* without the token, or with a wrong one: 403 control_forbidden, an Error body', () => {
    expect(controlAnswers['no token']).toEqual({ status: 403, problems: [], code: 'control_forbidden' });
    expect(controlAnswers['wrong token']).toEqual({ status: 403, problems: [], code: 'control_forbidden' });
  });

  it('serves /__mock/* with the token', () => {
    expect(controlAnswers['the token']).toEqual({ status: 200, problems: [], code: undefined });
  });
});
