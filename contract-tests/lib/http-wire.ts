import { Readable } from 'node:stream';
import { parseJson } from '../../spec/interface/exact-ids.js';
import { parseRetryAfter, serverClock } from '../../spec/interface/rate-limit-headers.js';
import { type ExchangeResponse, type PrismViolation, truncate } from './exchange.js';

// What the kit's HTTP client does on the wire, apart from its pacing and its record: headers as
// undici sends them, bodies framed and read within bounds, transport errors described, and what
// Prism says in its own answers and headers.

const maxStoredBody = 8_000;

/** The headers as undici sends them: repeated Authorization lines as an array; chunked framing left to undici. */
export function wireHeaders(
  headers: Record<string, string>,
  authorizations: readonly string[] | undefined,
): Record<string, string | string[]> {
  const { 'transfer-encoding': _framing, ...rest } = headers;
  return authorizations === undefined ? rest : { ...rest, authorization: [...authorizations] };
}

/** A body undici must frame as chunked (it does for an iterable of unknown length): two chunks, so a server joins them. */
export function inChunks(body: string | Uint8Array): Readable {
  const bytes = Buffer.from(body);
  const middle = Math.floor(bytes.length / 2);
  return Readable.from([bytes.subarray(0, middle), bytes.subarray(middle)]);
}

/** Bytes as the report shows them: their UTF-8 text, or, when they are not valid UTF-8, that text with U+FFFD and a note. */
export function showBytes(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return `${new TextDecoder('utf-8').decode(bytes)} (${bytes.length} bytes, not valid UTF-8)`;
  }
}

/** When a 429 says the client may retry, on the kit's clock; undefined without a usable Retry-After. */
export function retryAtMs(response: ExchangeResponse, receivedAtMs: number): number | undefined {
  const clock = serverClock(response.headers, receivedAtMs);
  const retry = parseRetryAfter(response.headers['retry-after'], clock.nowMs);
  return retry.ok ? receivedAtMs + retry.delayMs : undefined;
}

/**
 * Reads a response body up to `maxBytes` and discards the rest (the connection is dropped), so a
 * 100 MB or endless chunked body never fills the kit's memory. `truncatedAtBytes` says it was cut.
 */
export async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
  maxBytes: number,
): Promise<{ text: string; truncatedAtBytes: number | undefined }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, Math.max(0, room)));
      size = maxBytes;
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), truncatedAtBytes: maxBytes };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncatedAtBytes: undefined };
}

export function deadlineReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'the run was stopped';
}

/** Connection refused or reset: the server is gone, which says nothing about the rule being checked. */
export function isGone(error: unknown): boolean {
  const code = (error as { cause?: NodeJS.ErrnoException }).cause?.code ?? (error as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}

export function toResponse(
  status: number,
  rawHeaders: Record<string, string | string[] | undefined>,
  text: string,
  truncatedAtBytes: number | undefined,
): ExchangeResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawHeaders)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  let hasJson = false;
  let json: unknown;
  if (text.trim() !== '' && truncatedAtBytes === undefined) {
    try {
      json = parseJson(text);
      hasJson = true;
    } catch {
      // Not JSON: the checks that care say so, with the body as evidence.
    }
  }
  return { status, headers, bodyText: truncate(text, maxStoredBody), hasJson, json, truncatedAtBytes };
}

export function describeTransportError(error: unknown, timeoutMs: number): string {
  const name = (error as Error | undefined)?.name;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (
    name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `no answer within --timeout ${timeoutMs / 1000} s`;
  }
  const cause = (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause;
  const detail = cause?.code ?? code ?? name ?? 'error';
  return `${detail}: ${(cause ?? (error as Error)).message ?? String(error)}`;
}

export function parseViolations(header: string | undefined): PrismViolation[] {
  if (header === undefined) return [];
  try {
    const parsed = JSON.parse(header) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((item: unknown) => {
      if (item === null || typeof item !== 'object') return [];
      const record = item as Record<string, unknown>;
      return [
        {
          location: Array.isArray(record.location) ? record.location.map(String) : [],
          severity: typeof record.severity === 'string' ? record.severity : 'Error',
          ...(typeof record.code === 'string' || typeof record.code === 'number' ? { code: record.code } : {}),
          message: typeof record.message === 'string' ? record.message : JSON.stringify(item),
        },
      ];
    });
  } catch {
    return [{ location: [], severity: 'Error', message: `unreadable sl-violations header: ${truncate(header, 200)}` }];
  }
}

/** Prism's own problem+json answers (it refused to forward) look like this; undefined for forwarded ones. */
export function prismOwnAnswer(response: ExchangeResponse): string | undefined {
  if (!(response.headers['content-type'] ?? '').startsWith('application/problem+json') || !response.hasJson)
    return undefined;
  const body = response.json as { type?: unknown; title?: unknown };
  if (typeof body?.type !== 'string' || !body.type.startsWith('https://stoplight.io/prism/errors#')) return undefined;
  return `${body.type.split('#')[1] ?? body.type}: ${typeof body.title === 'string' ? body.title : ''}`;
}
