import { describe, expect, it } from 'vitest';
import { readRequestHead } from './proxy-request-head.js';

/** What the head check decides on its own, including what strict llhttp refuses before it (a lenient parser would not). */
function decide(rawHeaders: string[], url = '/v1/categories', httpVersion = '1.1') {
  return readRequestHead({ httpVersion, url, rawHeaders }, '/v1');
}

describe('readRequestHead', () => {
  it.each([
    ['Content-Length with Transfer-Encoding', ['Host', 'a', 'Content-Length', '3', 'Transfer-Encoding', 'chunked']],
    ['two Content-Lengths, even equal', ['Host', 'a', 'Content-Length', '3', 'content-length', '3']],
    ['a Content-Length list', ['Host', 'a', 'Content-Length', '3, 3']],
    ['two Transfer-Encodings', ['Host', 'a', 'Transfer-Encoding', 'chunked', 'Transfer-Encoding', 'chunked']],
    ['chunked not alone', ['Host', 'a', 'Transfer-Encoding', 'chunked, gzip']],
    ['two Hosts', ['Host', 'a', 'host', 'a']],
    ['Connection naming Host among others', ['Host', 'a', 'Connection', 'close, HOST']],
    ['two Content-Types', ['Host', 'a', 'Content-Type', 'application/json', 'Content-Type', 'text/plain']],
  ])('refuses %s', (_name, rawHeaders) => {
    expect(decide(rawHeaders).kind).toBe('refused');
  });

  it('reads the framing: none, a length, or chunked (any case, surrounding spaces)', () => {
    expect(decide(['Host', 'a'])).toMatchObject({ kind: 'api', framing: { kind: 'none' } });
    expect(decide(['Host', 'a', 'Content-Length', ' 12 '])).toMatchObject({ framing: { kind: 'length', bytes: 12 } });
    expect(decide(['Host', 'a', 'Transfer-Encoding', ' Chunked'])).toMatchObject({ framing: { kind: 'chunked' } });
  });

  it('sends the API below the base path, the controls and other paths to the proxy itself', () => {
    expect(decide(['Host', 'a'], '/v1/pets/./7?x=1')).toEqual({
      kind: 'api',
      apiPath: '/pets/7',
      query: '?x=1',
      framing: { kind: 'none' },
    });
    expect(decide(['Host', 'a'], '/__mock/report?format=junit')).toEqual({
      kind: 'local',
      path: '/__mock/report',
      query: '?format=junit',
    });
    expect(decide(['Host', 'a'], '/v1/../__mock/report').kind).toBe('refused');
    expect(decide([], '/v1', '1.0')).toMatchObject({ kind: 'api', apiPath: '' });
  });
});
