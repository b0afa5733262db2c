/** One HTTP/1.x response read back from raw bytes. */
export interface ParsedResponse {
  status: number;
  statusLine: string;
  /** Header lines in order, names as sent. */
  headers: [name: string, value: string][];
  body: Buffer;
}

const statusLinePattern = /^HTTP\/1\.[01] ([1-5]\d\d) [\t\x20-\x7e\x80-\xff]*$/;
// RFC 9110 token characters for the name; the value may hold visible ASCII, spaces, tabs and obs-text.
const headerLinePattern = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t\x20-\x7e\x80-\xff]*?)[ \t]*$/;

/**
 * Parses `bytes` as a sequence of complete HTTP/1.x responses and throws, naming the byte offset,
 * on anything that is not one: a bad status line, a header line that is not `name: value`, a body
 * shorter than its Content-Length, broken chunked framing, trailing garbage. Interim 1xx
 * responses are returned too.
 *
 * Strict on purpose: a client that received these bytes must be able to read every answer.
 *
 * @example parseResponses(bytes, { firstRequestWasHead: false, connectionClosed: true })
 */
export function parseResponses(
  bytes: Buffer,
  options: { firstRequestWasHead?: boolean; connectionClosed: boolean },
): ParsedResponse[] {
  const responses: ParsedResponse[] = [];
  let offset = 0;
  let finalResponses = 0;
  while (offset < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset, 'latin1');
    if (headEnd === -1)
      throw new Error(`Malformed response at byte ${offset}: the head never ends (${preview(bytes, offset)})`);
    const lines = bytes.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const statusLine = lines[0]!;
    const statusMatch = statusLinePattern.exec(statusLine);
    if (!statusMatch)
      throw new Error(
        `Malformed response at byte ${offset}: bad status line ${JSON.stringify(statusLine.slice(0, 80))}`,
      );
    const status = Number(statusMatch[1]);
    const headers: [string, string][] = [];
    for (const line of lines.slice(1)) {
      const match = headerLinePattern.exec(line);
      if (!match)
        throw new Error(`Malformed response at byte ${offset}: bad header line ${JSON.stringify(line.slice(0, 80))}`);
      headers.push([match[1]!, match[2]!]);
    }
    offset = headEnd + 4;
    const interim = status < 200;
    // A HEAD answer, 204 and 304 have no body whatever their headers say (RFC 9112 section 6.3).
    const bodyless =
      interim || status === 204 || status === 304 || (options.firstRequestWasHead === true && finalResponses === 0);
    let body: Buffer = Buffer.alloc(0);
    if (!bodyless) {
      const transferEncoding = headerValue(headers, 'transfer-encoding');
      const contentLength = headerValues(headers, 'content-length');
      if (transferEncoding !== undefined) {
        if (transferEncoding.toLowerCase() !== 'chunked')
          throw new Error(`Malformed response at byte ${offset}: unexpected Transfer-Encoding ${transferEncoding}`);
        ({ body, offset } = readChunked(bytes, offset));
      } else if (contentLength.length > 0) {
        if (contentLength.length > 1 || !/^\d+$/.test(contentLength[0]!))
          throw new Error(`Malformed response at byte ${offset}: bad Content-Length ${contentLength.join(', ')}`);
        const length = Number(contentLength[0]);
        if (bytes.length - offset < length)
          throw new Error(
            `Malformed response at byte ${offset}: body is ${bytes.length - offset} bytes, Content-Length says ${length}`,
          );
        body = bytes.subarray(offset, offset + length);
        offset += length;
      } else {
        // Neither: the body runs to the end of the connection, which must then have closed.
        if (!options.connectionClosed)
          throw new Error(`Malformed response at byte ${offset}: no framing and the connection stayed open`);
        body = bytes.subarray(offset);
        offset = bytes.length;
      }
    }
    if (!interim) finalResponses += 1;
    responses.push({ status, statusLine, headers, body });
  }
  return responses;
}

function readChunked(bytes: Buffer, start: number): { body: Buffer; offset: number } {
  const parts: Buffer[] = [];
  let offset = start;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset, 'latin1');
    if (lineEnd === -1) throw new Error(`Malformed chunked body at byte ${offset}: no chunk-size line`);
    const sizeMatch = /^([0-9a-fA-F]+)(;[^\r\n]*)?$/.exec(bytes.subarray(offset, lineEnd).toString('latin1'));
    if (!sizeMatch) throw new Error(`Malformed chunked body at byte ${offset}: bad chunk-size line`);
    const size = Number.parseInt(sizeMatch[1]!, 16);
    offset = lineEnd + 2;
    if (size === 0) {
      // Trailer section: header lines until an empty line.
      for (;;) {
        const end = bytes.indexOf('\r\n', offset, 'latin1');
        if (end === -1) throw new Error(`Malformed chunked body at byte ${offset}: trailers never end`);
        const empty = end === offset;
        offset = end + 2;
        if (empty) return { body: Buffer.concat(parts), offset };
      }
    }
    if (bytes.length < offset + size + 2 || bytes.toString('latin1', offset + size, offset + size + 2) !== '\r\n') {
      throw new Error(`Malformed chunked body at byte ${offset}: chunk of ${size} bytes is truncated`);
    }
    parts.push(bytes.subarray(offset, offset + size));
    offset += size + 2;
  }
}

/** All values of a header (case-insensitive name). */
export function headerValues(headers: readonly [string, string][], name: string): string[] {
  const lower = name.toLowerCase();
  return headers.filter(([candidate]) => candidate.toLowerCase() === lower).map(([, value]) => value);
}

/** The values of a header joined with ", ", or undefined when absent. */
export function headerValue(headers: readonly [string, string][], name: string): string | undefined {
  const values = headerValues(headers, name);
  return values.length === 0 ? undefined : values.join(', ');
}

function preview(bytes: Buffer, offset: number): string {
  return JSON.stringify(bytes.subarray(offset, offset + 60).toString('latin1'));
}
