import { HttpError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Is this Content-Type JSON (`application/json`, `application/problem+json`, ...) in UTF-8? */
export function isJsonContentType(contentType: string): boolean {
  // What nearly every client sends, judged without splitting it.
  if (contentType === 'application/json') return true;
  const [essence = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (!isJsonMediaType(essence)) return false;
  const charset = parameters
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/** Is this media type, without parameters and lower-cased, JSON (`application/json`, `application/*+json`)? */
export function isJsonMediaType(essence: string): boolean {
  return /^application\/([\w.+-]+\+)?json$/.test(essence);
}

/** Strict UTF-8 text of a body (a leading BOM dropped); throws a TypeError on invalid bytes. */
export function decodeUtf8(bytes: Uint8Array): string {
  // The native decoder at every size: measured on Node 20 and 24, it takes half the time and a
  // third of the instructions of a JavaScript loop even on a 40-byte ASCII body.
  return utf8.decode(bytes);
}

export interface DecodedJsonBody {
  present: true;
  value: unknown;
  /** The body's text (UTF-8, a leading BOM dropped). */
  text: string;
}

/** Throws 415 unless the Content-Type of a body is JSON in UTF-8. */
export function assertJsonContentType(contentType: string | undefined): void {
  // The verdict first: a working client's header is judged without being trimmed.
  if (contentType !== undefined && isJsonContentType(contentType)) return;
  if (contentType === undefined || contentType.trim() === '') {
    throw new HttpError('unsupported_media_type', 'Content-Type is missing; send Content-Type: application/json');
  }
  throw new HttpError(
    'unsupported_media_type',
    `Content-Type ${contentType.slice(0, 100)} is not supported; send application/json (UTF-8)`,
  );
}

/**
 * Decodes a JSON request body: no body, a non-JSON content type, bytes that are not UTF-8 and text
 * that is not JSON each get their own error. `JSON.parse` keeps `__proto__` keys as plain data, and
 * only validated fields are ever copied out, so hostile keys change nothing.
 */
export function decodeJsonBody(
  body: Uint8Array | null,
  contentType: string | undefined,
  required: boolean,
): { present: false } | DecodedJsonBody {
  if (body === null || body.length === 0) {
    if (required) throw new HttpError('body_required', 'Invalid request body: a JSON body is required');
    return { present: false };
  }
  assertJsonContentType(contentType);
  let text: string;
  try {
    text = decodeUtf8(body);
  } catch {
    throw new HttpError('malformed_json', 'Invalid request body: it is not valid UTF-8');
  }
  try {
    return { present: true, value: JSON.parse(text) as unknown, text };
  } catch (error) {
    // Blank is checked only once parsing failed: a valid body (every request of a working client) is never trimmed.
    if (text.trim() === '') {
      if (required)
        throw new HttpError('body_required', 'Invalid request body: a JSON body is required, the body is blank');
      return { present: false };
    }
    // A RangeError here is nesting deeper than the parser's stack: still just bad input.
    const detail = error instanceof SyntaxError ? error.message.slice(0, 200) : 'nested too deeply';
    throw new HttpError('malformed_json', `Invalid request body: malformed JSON (${detail})`);
  }
}
