import { describe, expect, it } from 'vitest';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { parseRecording } from '../../src/lab/replay-input.js';

// Red team of issue 43's wire-format schemas (export lines, HAR entries read through zod): a recording
// whose names are Object.prototype's, or whose fields break a bound, is read as written or refused
// in one line that says what is wrong.

const options = { plans: parseMockConfig({}).plans };
const harOf = (headers: { name: string; value: string }[]) =>
  JSON.stringify({
    log: {
      version: '1.2',
      entries: [
        {
          startedDateTime: '2026-01-01T00:00:00Z',
          request: { method: 'GET', url: 'http://petstore.test/v1/pets', headers },
          response: { status: 200 },
        },
      ],
    },
  });

describe('a HAR whose header names are Object.prototype members', () => {
  it('replays each as the plain header it is, and never a function text', () => {
    const [request] = parseRecording(
      harOf([
        { name: 'constructor', value: 'c' },
        { name: 'toString', value: 't' },
        { name: '__proto__', value: 'p' },
      ]),
      options,
    ).requests;
    expect(Object.entries(request!.headers)).toEqual([
      ['constructor', 'c'],
      ['tostring', 't'],
      ['__proto__', 'p'],
    ]);
  });
});

describe('an export line over a bound', () => {
  const line = {
    v: 1,
    time: '2026-01-01T00:00:00.000Z',
    method: 'GET',
    client: 'client-5e3f0c2a9b1d',
    kind: 'key',
    auth: 'key',
    plan: 'free',
    limits: { perMinute: 60, perDay: 1000 },
    status: 200,
    code: null,
    operationId: null,
    prefer: null,
    contentType: null,
    body: null,
  };

  it('says the bound a long url breaks, not that it must start with /', () => {
    const text = JSON.stringify({ ...line, url: `/${'a'.repeat(9000)}` });
    expect(() => parseRecording(text, options)).toThrow(
      'line 1: url: expected a path starting with /, at most 8192 characters',
    );
  });
});
