import fc from 'fast-check';

/**
 * Generated client requests for the proxy's differential fuzz test, each built from parts whose
 * meaning under RFC 9110/9112 and RFC 3986 is known when it is generated, so the test knows what
 * the upstream must receive (or that nothing may reach it) without asking the proxy's own code.
 */
export interface GeneratedRequest {
  method: string;
  version: '1.0' | '1.1';
  target: GeneratedTarget;
  host: 'one' | 'none' | 'two' | 'not-a-host';
  connection: 'absent' | 'keep-alive' | 'close' | 'x-hop' | 'names-framing';
  extra: 'none' | 'repeated-list' | 'two-authorizations' | 'obs-fold';
  framing:
    | 'none'
    | 'length'
    | 'chunked'
    | 'chunked-extension'
    | 'both'
    | 'bad-chunk-size'
    | 'bad-length'
    | 'gzip-chunked';
  body: string;
}

interface GeneratedTarget {
  text: string;
  /** The normalised path and query the upstream must see below its base path, or null when the proxy must refuse. */
  forwarded: string | null;
}

/** What the proxy must do with a request, by the RFCs: forward it, or refuse it (400, then close). */
export interface Expectation {
  outcome: 'forward' | 'refuse';
  /** A forwarded request after which the connection ends (HTTP/1.0 without keep-alive, or `Connection: close`). */
  closesAfter: boolean;
}

/** Mostly what the RFCs let through, sometimes what they call ambiguous, so that forwarded and refused requests both come often. */
function mostly<T>(valid: readonly T[], ambiguous: readonly T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...ambiguous) },
  );
}

const segment = mostly(
  [
    { text: 'categories', kind: 'name' },
    { text: 'pets', kind: 'name' },
    { text: '7', kind: 'name' },
    { text: 'orders', kind: 'name' },
    { text: 'store', kind: 'name' },
    { text: '%41bc', kind: 'name' },
    { text: '.', kind: 'dot' },
    { text: '%2e', kind: 'dot' },
    { text: '..', kind: 'dots' },
    { text: '%2E%2e', kind: 'dots' },
    { text: '.%2E', kind: 'dots' },
  ],
  [
    { text: '..%2f', kind: 'refused' },
    { text: '%5C..', kind: 'refused' },
    { text: '..\\', kind: 'refused' },
    { text: '%252e%252e', kind: 'refused' },
    { text: '%zz', kind: 'refused' },
    { text: '..;x', kind: 'refused' },
  ],
);

/** A target below `/v1` with dot segments, encoded or not, in origin-form or absolute-form. */
const targetArbitrary: fc.Arbitrary<GeneratedTarget> = fc
  .record({
    absolute: fc.constantFrom('', '', 'http://elsewhere.example', 'HTTPS://Elsewhere.Example:8443'),
    segments: fc.array(segment, { maxLength: 4 }),
    query: fc.constantFrom('', '?limit=5', '?next=/v1/../admin', '?a=%2e%2e'),
    fragment: fc.constantFrom('', '', '', '', '', '', '', '', '', '#top'),
  })
  .map(({ absolute, segments, query, fragment }) => {
    const text = `${absolute}/v1${segments.map((part) => `/${part.text}`).join('')}${query}${fragment}`;
    if (fragment !== '' || segments.some((part) => part.kind === 'refused')) return { text, forwarded: null };
    // RFC 3986 section 5.2.4 on the segments, as a stack: what the upstream must see.
    const stack = ['v1'];
    let trailingSlash = false;
    for (const part of segments) {
      trailingSlash = part.kind !== 'name';
      if (part.kind === 'dots') stack.pop();
      else if (part.kind === 'name') stack.push(part.text);
    }
    const path = `/${stack.join('/')}${trailingSlash && stack.length > 0 ? '/' : ''}`;
    const inside = path === '/v1' || path.startsWith('/v1/');
    return { text, forwarded: inside ? `${path.slice(3)}${query}` : null };
  });

const smuggledRequest = 'GET /up/v1/categories HTTP/1.1\r\nHost: upstream\r\nX-Request-Id: smuggled\r\n\r\n';

export const requestArbitrary: fc.Arbitrary<GeneratedRequest> = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
  version: fc.constantFrom<'1.0' | '1.1'>('1.1', '1.1', '1.1', '1.1', '1.1', '1.1', '1.1', '1.0'),
  target: targetArbitrary,
  host: mostly<GeneratedRequest['host']>(['one'], ['none', 'two', 'not-a-host']),
  connection: mostly<GeneratedRequest['connection']>(
    ['absent', 'absent', 'absent', 'keep-alive', 'x-hop', 'close'],
    ['names-framing'],
  ),
  extra: mostly<GeneratedRequest['extra']>(['none', 'repeated-list'], ['two-authorizations', 'obs-fold']),
  framing: mostly<GeneratedRequest['framing']>(
    ['none', 'length', 'chunked', 'chunked-extension'],
    ['both', 'bad-chunk-size', 'bad-length', 'gzip-chunked'],
  ),
  body: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(smuggledRequest), fc.constant('')),
});

/** What the RFCs say the proxy must do with `request`. */
export function expectationOf(request: GeneratedRequest): Expectation {
  const refused =
    request.target.forwarded === null ||
    request.host === 'two' ||
    request.host === 'not-a-host' ||
    (request.host === 'none' && request.version === '1.1') ||
    request.connection === 'names-framing' ||
    request.extra === 'two-authorizations' ||
    request.extra === 'obs-fold' ||
    ['both', 'bad-chunk-size', 'bad-length', 'gzip-chunked'].includes(request.framing) ||
    (request.version === '1.0' && request.framing.startsWith('chunked'));
  const closesAfter =
    request.connection === 'close' || (request.version === '1.0' && request.connection !== 'keep-alive');
  return { outcome: refused ? 'refuse' : 'forward', closesAfter };
}

/** The body the upstream must receive: the client's, de-chunked; none when the client framed none. */
export function forwardedBody(request: GeneratedRequest): string {
  return request.framing === 'none' ? '' : request.body;
}

/** The request's bytes on the wire, carrying `id` in X-Request-Id. */
export function requestBytes(request: GeneratedRequest, id: string): Buffer {
  const lines = [`${request.method} ${request.target.text} HTTP/${request.version}`];
  if (request.host !== 'none') lines.push(request.host === 'not-a-host' ? 'Host: a b/c' : 'Host: proxy.example');
  if (request.host === 'two') lines.push('Host: elsewhere.example');
  lines.push(`X-Request-Id: ${id}`);
  lines.push(...connectionLines(request.connection));
  lines.push(...extraLines(request.extra));
  const body = Buffer.from(request.body, 'utf8');
  // An empty body is the last chunk alone; a size line of 0 followed by another 0 would end the message early.
  const chunk = (sizeLine: string) =>
    body.length === 0 ? `${sizeLine}\r\n\r\n` : `${sizeLine}\r\n${request.body}\r\n0\r\n\r\n`;
  const framed: Record<GeneratedRequest['framing'], [string[], string]> = {
    none: [[], ''],
    length: [[`Content-Length: ${body.length}`], request.body],
    chunked: [['Transfer-Encoding: chunked'], chunk(body.length.toString(16))],
    'chunked-extension': [['Transfer-Encoding: chunked'], chunk(`${body.length.toString(16)};name="v"`)],
    both: [[`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'], chunk(body.length.toString(16))],
    'bad-chunk-size': [['Transfer-Encoding: chunked'], chunk(`${body.length.toString(16)}x`)],
    'bad-length': [[`Content-Length: +${body.length}`], request.body],
    'gzip-chunked': [['Transfer-Encoding: gzip, chunked'], chunk(body.length.toString(16))],
  };
  const [fields, payload] = framed[request.framing];
  lines.push(...fields);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${payload}`, 'utf8');
}

function connectionLines(connection: GeneratedRequest['connection']): string[] {
  if (connection === 'absent') return [];
  if (connection === 'x-hop') return ['Connection: X-Hop', 'X-Hop: dropped'];
  if (connection === 'names-framing') return ['Connection: keep-alive, Content-Length'];
  return [`Connection: ${connection}`];
}

function extraLines(extra: GeneratedRequest['extra']): string[] {
  if (extra === 'repeated-list') return ['X-Repeat: a', 'X-Repeat: b'];
  if (extra === 'two-authorizations')
    return ['Authorization: Bearer first-key-000', 'Authorization: Bearer second-key-0'];
  if (extra === 'obs-fold') return ['X-Folded: one', ' two'];
  return [];
}
