/** One request as a strict HTTP/1.1 server reads it off the wire. */
export interface WireRequest {
  method: string;
  target: string;
  version: string;
  /** Header lines in order, names as sent. */
  headers: [name: string, value: string][];
  body: Buffer;
  /** How the sender framed the body. */
  framing: 'none' | 'content-length' | 'chunked';
}

export type ReadResult =
  | { kind: 'request'; request: WireRequest; rest: Buffer }
  | { kind: 'incomplete' }
  | { kind: 'malformed'; reason: string };

const requestLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) (HTTP\/1\.[01])$/;
const fieldLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t\x20-\x7e\x80-\xff]*?)[ \t]*$/;

/**
 * Reads the first request in `bytes` by RFC 9112, refusing everything a lenient server might read
 * two ways: obs-fold, bare LF, a missing or repeated Host, Content-Length with Transfer-Encoding,
 * a repeated or non-numeric Content-Length, any coding but `chunked`, a bad chunk line. This is
 * the upstream's eye in the proxy's tests: what the proxy sends must read as exactly one request.
 *
 * @example readWireRequest(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n')) // { kind: 'request', ... }
 */
export function readWireRequest(bytes: Buffer): ReadResult {
  const headEnd = bytes.indexOf('\r\n\r\n', 0, 'latin1');
  if (headEnd === -1) return bytes.length > 65_536 ? malformed('a head over 64 KiB') : { kind: 'incomplete' };
  const lines = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  if (lines.some((line) => line.includes('\n') || line.includes('\r'))) return malformed('a bare CR or LF');
  const start = requestLine.exec(lines[0]!);
  if (!start) return malformed(`bad request line ${JSON.stringify(lines[0]!.slice(0, 80))}`);
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const field = fieldLine.exec(line);
    if (!field) return malformed(`bad field line ${JSON.stringify(line.slice(0, 80))}`);
    headers.push([field[1]!, field[2]!]);
  }
  const problem = framingProblem(headers);
  if (problem !== undefined) return malformed(problem);
  const request = { method: start[1]!, target: start[2]!, version: start[3]!, headers };
  const bodyStart = headEnd + 4;
  const lengthText = valuesOf(headers, 'content-length')[0];
  if (valuesOf(headers, 'transfer-encoding').length > 0) {
    const chunked = readChunkedBody(bytes, bodyStart);
    if (chunked.kind !== 'body') return chunked;
    return {
      kind: 'request',
      request: { ...request, body: chunked.body, framing: 'chunked' },
      rest: bytes.subarray(chunked.end),
    };
  }
  const length = lengthText === undefined ? 0 : Number(lengthText);
  if (bytes.length < bodyStart + length) return { kind: 'incomplete' };
  return {
    kind: 'request',
    request: {
      ...request,
      body: bytes.subarray(bodyStart, bodyStart + length),
      framing: lengthText === undefined ? 'none' : 'content-length',
    },
    rest: bytes.subarray(bodyStart + length),
  };
}

function framingProblem(headers: [string, string][]): string | undefined {
  const hosts = valuesOf(headers, 'host');
  if (hosts.length !== 1) return `${hosts.length} Host lines`;
  const lengths = valuesOf(headers, 'content-length');
  const codings = valuesOf(headers, 'transfer-encoding');
  if (lengths.length > 0 && codings.length > 0) return 'Content-Length and Transfer-Encoding';
  if (lengths.length > 1 || (lengths.length === 1 && !/^\d+$/.test(lengths[0]!)))
    return `bad Content-Length ${lengths.join(', ')}`;
  if (codings.length > 1 || (codings.length === 1 && codings[0] !== 'chunked'))
    return `bad Transfer-Encoding ${codings.join(', ')}`;
  return undefined;
}

type ChunkedRead = { kind: 'body'; body: Buffer; end: number } | { kind: 'incomplete' } | ReturnType<typeof malformed>;

function readChunkedBody(bytes: Buffer, start: number): ChunkedRead {
  const parts: Buffer[] = [];
  let offset = start;
  for (let chunks = 0; chunks < 100_000; chunks += 1) {
    const lineEnd = bytes.indexOf('\r\n', offset, 'latin1');
    if (lineEnd === -1) return { kind: 'incomplete' };
    const sizeText = bytes.toString('latin1', offset, lineEnd);
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) return malformed(`bad chunk line ${JSON.stringify(sizeText)}`);
    const size = Number.parseInt(sizeText, 16);
    offset = lineEnd + 2;
    if (size === 0) {
      // No trailers from the proxy: the last chunk is followed by the empty line at once.
      if (bytes.length < offset + 2) return { kind: 'incomplete' };
      if (bytes.toString('latin1', offset, offset + 2) !== '\r\n') return malformed('trailer fields');
      return { kind: 'body', body: Buffer.concat(parts), end: offset + 2 };
    }
    if (bytes.length < offset + size + 2) return { kind: 'incomplete' };
    if (bytes.toString('latin1', offset + size, offset + size + 2) !== '\r\n') return malformed('chunk overrun');
    parts.push(bytes.subarray(offset, offset + size));
    offset += size + 2;
  }
  return malformed('too many chunks');
}

/** All values of a field, by case-insensitive name. */
export function valuesOf(headers: readonly [string, string][], name: string): string[] {
  return headers.filter(([candidate]) => candidate.toLowerCase() === name).map(([, value]) => value);
}

function malformed(reason: string): { kind: 'malformed'; reason: string } {
  return { kind: 'malformed', reason };
}
