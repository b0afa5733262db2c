import fc from 'fast-check';

/**
 * fast-check generators of hostile HTTP requests: methods, targets, header sets and bodies a
 * browser or client library would never produce. Everything is bytes in the end; strings here are
 * latin1 so one character is one byte on the wire.
 */

/** A request before it is framed: the parts the server has to cope with. */
export interface FuzzRequest {
  method: string;
  target: string;
  /** Header lines as latin1 strings (they may contain CR, LF, NUL or obs-text on purpose). */
  headers: [name: string, value: string][];
  body: Buffer | null;
  framing: Framing;
  /** Chunk size for chunked framing. */
  chunkSize: number;
  /** How the bytes go out: in this many writes, with this pause (ms) between them. */
  pieces: number;
  pauseMs: number;
}

/**
 * How the body is framed. `exact` and `chunked` are honest; `short` and `long` lie about the
 * Content-Length (smaller or larger than the body); `invalid` sends an unreadable one; `none` sends
 * the body with no framing at all, so the server reads it as the next request.
 */
type Framing = 'exact' | 'chunked' | 'short' | 'long' | 'invalid' | 'none';

const latin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

/** 100,000 nested arrays: deeper than any recursive parser's stack. */
export const deepArrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
/** 30,000 nested objects inside an otherwise valid category. */
const deepObjects = `{"name":"deep","extra":${'{"a":'.repeat(30_000)}1${'}'.repeat(30_000)}}`;

/** Nesting deep enough to overflow a recursive parser or validator; 60-200 KB each, so used sparingly. */
export const deepBodies: readonly Buffer[] = [
  deepArrays,
  deepObjects,
  `{"name":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
].map((text) => Buffer.from(text, 'utf8'));

/** Small bodies chosen because they broke parsers, validators or merges somewhere before. */
const smallHostileBodies: readonly Buffer[] = [
  '{"name":"x","__proto__":{"polluted":"yes"}}',
  '{"__proto__":{"name":"from the prototype","polluted":"yes"}}',
  '{"name":"x","constructor":{"prototype":{"polluted":"yes"}}}',
  '{"name":"x","prototype":{"polluted":"yes"},"__defineGetter__":1,"hasOwnProperty":"no"}',
  '{"name":"__proto__","description":"constructor"}',
  '{"name":1e999}',
  '{"name":"x","n":-1e-999999}',
  `{"name":"x","n":${'9'.repeat(20_000)}}`,
  `${'9'.repeat(10_000)}`,
  '{"name":"x"',
  '{"name":"\\ud800"}',
  '{"name":"x","name":{"a":1}}',
  '\ufeff{"name":"bom"}',
  'null',
  '[]',
  '"string"',
  '  ',
  '{"name":"\\u0000\\r\\nX-Injected: yes"}',
].map((text) => Buffer.from(text, 'utf8'));

/** Every named hostile body. */
export const hostileBodies: readonly Buffer[] = [...deepBodies, ...smallHostileBodies];

/** Byte sequences that are not UTF-8: a lone continuation byte, an overlong slash, a surrogate, a truncated sequence. */
export const invalidUtf8Bodies: readonly Buffer[] = [
  Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xe2, 0x82]),
  Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
];

// CONNECT is left out: node:http hands it to a 'connect' listener, a case tested on its own.
export const methodArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') },
  { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'PURGE', 'SEARCH', 'QUERY', 'get', 'G ET', '') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,12}$/).filter((method) => method !== 'CONNECT') },
);

const segmentArbitrary = fc.oneof(
  fc.constantFrom(
    'v1',
    'categories',
    'pets',
    'store',
    'orders',
    '__mock',
    'reset',
    'keys',
    'clock',
    'requests',
    'health',
    '..',
    '.',
    '%2e%2e',
    '%00',
    '%ff',
    '%',
    '%zz',
    '',
    '__proto__',
    'constructor',
    '1',
    '-1',
    '9007199254740993',
    '1e400',
  ),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{0,24}$/),
  fc.string({ unit: 'grapheme', maxLength: 8 }).map((text) => latin1(encodeURIComponent(text))),
  fc.string({ unit: 'grapheme', maxLength: 8 }).map(latin1),
);

const queryArbitrary = fc.oneof(
  fc.constant(''),
  fc.stringMatching(/^[A-Za-z0-9=&%+._-]{0,40}$/).map((query) => `?${query}`),
  fc.constantFrom(
    '?__proto__[polluted]=1',
    '?constructor[prototype][polluted]=1',
    '?api_key=sk_live_ABCDEFGHIJKLMNOP',
    `?${'a=1&'.repeat(2_000)}`,
  ),
);

export const targetArbitrary = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          '/v1/categories',
          '/v1/categories/',
          '/v1/pets/1',
          '/v1/pets/abc',
          '/v1/store/orders',
          '/__mock/health',
          '/__mock/requests',
          '/__mock/keys',
          '/__mock/clock',
          '/__mock',
          '/',
          '/v1',
          '//v1//categories//',
          '/V1/CATEGORIES',
        ),
        queryArbitrary,
      )
      .map(([path, query]) => path + query),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.array(segmentArbitrary, { maxLength: 8 }), queryArbitrary)
      .map(([segments, query]) => `/${segments.join('/')}${query}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      'http://127.0.0.1/v1/categories',
      'v1/categories',
      '/v1/categories#frag',
      '/v1/categories HTTP/1.1',
      `/${'a/'.repeat(3_000)}`,
      `/${'/'.repeat(2_000)}x`,
    ),
  },
);

// `expect` is left out: node:http answers unknown expectations itself, a case tested on its own.
export const headerNameArbitrary = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'authorization',
      'Authorization',
      'AUTHORIZATION',
      'content-type',
      'prefer',
      'accept',
      'x-mock-control-token',
      'access-control-request-method',
      'access-control-request-headers',
      'origin',
      'cookie',
      'x-forwarded-for',
      'host',
      'connection',
      'upgrade',
      'accept-encoding',
      'x-http-method-override',
      'te',
      'trailer',
      '__proto__',
      'constructor',
      'prototype',
      'hasOwnProperty',
      'toString',
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,30}$/)
      .filter((name) => name.toLowerCase() !== 'expect'),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: 'binary-ascii', minLength: 1, maxLength: 12 })
      .filter((name) => name.toLowerCase() !== 'expect'),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).map(latin1) },
);

export const headerValueArbitrary = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'Bearer demo-enterprise',
      'Bearer demo-free',
      'bearer demo-enterprise',
      'Bearer  demo-enterprise  ',
      'Bearer',
      'Bearer ',
      'Basic YWxhZGRpbjpvcGVu',
      'Bearer sk_live_ABCDEFGHIJKLMNOP',
      'Bearer demo-enterprise, Bearer demo-free',
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/problem+json',
      'text/plain',
      'multipart/form-data; boundary=x',
      'code=429',
      'code=401',
      'code=500',
      'code=999',
      'code=200, example=nope',
      'dynamic=true',
      'dynamic=maybe',
      'example=',
      'GET',
      'close',
      'keep-alive',
      'websocket',
      'chunked',
      '',
      ' ',
      '0',
      '-1',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).map(latin1) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.from(bytes).toString('latin1')) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((length) => 'x'.repeat(length)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      // The smuggled request carries a Host: a Host-less HTTP/1.1 request is a case tested on its own.
      'x\r\nX-Injected: yes',
      'x\nX-Injected: yes',
      'x\rX-Injected: yes',
      'x\r\n\r\nGET /__mock/reset HTTP/1.1\r\nHost: x',
      'a\u0000b',
      '\r\n',
      'x\r\n Transfer-Encoding: chunked',
    ),
  },
);

/** A header set: random lines, sometimes one line repeated many times. */
const headerSetArbitrary = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.tuple(headerNameArbitrary, headerValueArbitrary), { maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.tuple(headerNameArbitrary, headerValueArbitrary), fc.integer({ min: 2, max: 600 }))
      .map(([line, times]) => Array.from({ length: times }, () => line)),
  },
);

/** Bodies small enough to generate thousands of per second: for fuzzing the core in-process. */
export const smallBodyArbitrary: fc.Arbitrary<Buffer | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          name: fc.string({ unit: 'grapheme', maxLength: 30 }),
          description: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        },
        { requiredKeys: ['name'] },
      )
      .map((category) => Buffer.from(JSON.stringify(category), 'utf8')),
  },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null', 'utf8')),
  },
  {
    weight: 1,
    arbitrary: fc
      .json({ maxDepth: 3 })
      .filter((text) => text.length > 1)
      .chain((text) => fc.nat(text.length - 1).map((cut) => Buffer.from(text.slice(0, cut), 'utf8'))),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 2, arbitrary: fc.constantFrom(...smallHostileBodies, ...invalidUtf8Bodies) },
);

/** Any body, including deep nesting and bodies past the server's limit: for fuzzing over sockets. */
const bodyArbitrary: fc.Arbitrary<Buffer | null> = fc.oneof(
  { weight: 12, arbitrary: smallBodyArbitrary },
  { weight: 1, arbitrary: fc.constantFrom(...deepBodies) },
  { weight: 1, arbitrary: fc.integer({ min: 64 * 1024, max: 400 * 1024 }).map((length) => Buffer.alloc(length, 0x61)) },
);

const framingArbitrary: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Framing>('exact') },
  { weight: 2, arbitrary: fc.constant<Framing>('chunked') },
  { weight: 1, arbitrary: fc.constantFrom<Framing>('short', 'long', 'invalid', 'none') },
);

/** Requests against the API and the controls, mostly with a key that gets past auth so validation is reached. */
export const fuzzRequestArbitrary: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: methodArbitrary,
    target: targetArbitrary,
    authorization: fc.option(headerValueArbitrary, { nil: undefined, freq: 3 }),
    contentType: fc.option(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/json; charset=utf-16',
        'application/x-www-form-urlencoded',
      ),
      { nil: undefined, freq: 4 },
    ),
    headers: headerSetArbitrary,
    body: bodyArbitrary,
    framing: framingArbitrary,
    chunkSize: fc.integer({ min: 1, max: 8_192 }),
    pieces: fc.oneof(
      { weight: 4, arbitrary: fc.constant(1) },
      { weight: 1, arbitrary: fc.integer({ min: 2, max: 8 }) },
    ),
    pauseMs: fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
    ),
  })
  .map(({ authorization, contentType, headers, ...rest }) => {
    const request: FuzzRequest = {
      ...rest,
      headers: [
        ['Host', '127.0.0.1'],
        ['Authorization', authorization ?? 'Bearer demo-enterprise'],
        ...(contentType === undefined ? [] : ([['Content-Type', contentType]] as [string, string][])),
        ...headers,
      ],
    };
    // A counterexample can hold 600 header lines and 400 KiB of body: print a summary instead.
    return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
  });

/** One readable line per request, for failure reports. */
function describeRequest(request: FuzzRequest): string {
  const clip = (text: string, length: number) =>
    JSON.stringify(text.length > length ? `${text.slice(0, length)}...(${text.length})` : text);
  const distinct = [...new Set(request.headers.map(([name, value]) => `${clip(name, 30)}: ${clip(value, 60)}`))];
  const body =
    request.body === null
      ? 'no body'
      : `body ${clip(request.body.subarray(0, 80).toString('latin1'), 80)} (${request.body.length} bytes)`;
  return `${clip(request.method, 20)} ${clip(request.target, 120)}, ${request.headers.length} header lines [${distinct.slice(0, 12).join(', ')}${distinct.length > 12 ? ', ...' : ''}], ${body}, framing ${request.framing}, chunk ${request.chunkSize}, ${request.pieces} piece(s) ${request.pauseMs} ms apart`;
}

/**
 * The request as bytes on the wire, split into `pieces` writes.
 *
 * @example const { pieces, isHead } = frameRequest(request);
 */
export function frameRequest(request: FuzzRequest): { pieces: Buffer[]; isHead: boolean } {
  const body = request.body ?? Buffer.alloc(0);
  const lines = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
  ];
  let payload: Buffer = body;
  if (request.body !== null) {
    switch (request.framing) {
      case 'exact':
        lines.push(`Content-Length: ${body.length}`);
        break;
      case 'short':
        lines.push(`Content-Length: ${Math.floor(body.length / 2)}`);
        break;
      case 'long':
        lines.push(`Content-Length: ${body.length + 1 + Math.floor(body.length / 2)}`);
        break;
      case 'invalid':
        lines.push(
          body.length % 2 === 0
            ? 'Content-Length: 12abc'
            : `Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}`,
        );
        break;
      case 'chunked': {
        lines.push('Transfer-Encoding: chunked');
        const chunks: Buffer[] = [];
        for (let offset = 0; offset < body.length; offset += request.chunkSize) {
          const chunk = body.subarray(offset, offset + request.chunkSize);
          chunks.push(Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, Buffer.from('\r\n', 'latin1'));
        }
        chunks.push(Buffer.from('0\r\n\r\n', 'latin1'));
        payload = Buffer.concat(chunks);
        break;
      }
      case 'none':
        break;
    }
  }
  const wire = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
  return { pieces: splitInto(wire, request.pieces), isHead: request.method === 'HEAD' };
}

function splitInto(bytes: Buffer, count: number): Buffer[] {
  if (count <= 1 || bytes.length < count) return [bytes];
  const size = Math.ceil(bytes.length / count);
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) pieces.push(bytes.subarray(offset, offset + size));
  return pieces;
}

/**
 * Streams that only look like HTTP: fragments of request syntax mixed with random bytes.
 */
export const rawStreamArbitrary: fc.Arbitrary<Buffer> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'GET ',
        'POST ',
        'HEAD ',
        'OPTIONS ',
        '/v1/categories',
        '/__mock/reset',
        ' HTTP/1.1',
        ' HTTP/1.0',
        ' HTTP/2.0',
        ' HTTP/9.9',
        '\r\n',
        '\n',
        '\r',
        '\r\n\r\n',
        ': ',
        ':',
        'Host: x',
        'Content-Length: ',
        'Content-Length: 5',
        'Content-Length: -1',
        'Transfer-Encoding: chunked',
        'Transfer-Encoding: gzip, chunked',
        '0\r\n\r\n',
        'ffffffffffffffff\r\n',
        'Authorization: Bearer demo-enterprise',
        'Content-Type: application/json',
        '{"name":"x"}',
        'Expect: 100-continue',
        'Connection: close',
        ' ',
        '\t',
        '\u0000',
        'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      ),
      fc.nat(99_999).map(String),
      fc.uint8Array({ maxLength: 48 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((parts) => Buffer.from(parts.join(''), 'latin1'));
