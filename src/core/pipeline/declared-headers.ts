import type { DataGenerator } from '../../../spec/data-generator.js';
import type { CompiledHeader, CompiledOperation } from '../spec/compiled-spec.js';
import { routedPath } from '../spec/path-key.js';

// The headers a response declares, sent with the answer the document describes: each from its own
// example, else its schema's (the document's values first, then a draw of the request's key), and a
// `Location` that points at the resource the answer is about when the document's paths say where.

/** What a declared header's value is made from. */
export interface HeaderSources {
  data: DataGenerator;
  /** The request's draw key (undefined: drawn afresh). */
  drawKey: string | undefined;
  status: number;
  /** The answer's body value (before it is written as its media type). */
  value: unknown;
  operation: CompiledOperation;
  /** The path prefix the API is served under. */
  basePath?: string | undefined;
  pathParams?: Readonly<Record<string, string>> | undefined;
}

/** The body's own framing and the connection's: never a document's to set. */
const framingHeaders = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'trailer',
]);
/** The rate-limit family, which the mock writes itself where limits apply: made up only when required. */
const rateLimitHeader = /^(x-ratelimit-|ratelimit|retry-after$)/i;

/**
 * Adds every header the response declares that the answer does not have yet (the rate-limit fields
 * the mock wrote win). A value that cannot be a header's text is left out, or is `placeholder` for a
 * required header.
 *
 * @example addDeclaredHeaders(headers, response.headers, sources) // headers.Location = '/v1/pets/7'
 */
export function addDeclaredHeaders(
  headers: Record<string, string>,
  declared: readonly CompiledHeader[],
  sources: HeaderSources,
): void {
  if (declared.length === 0) return;
  const present = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (const header of declared) {
    const lower = header.name.toLowerCase();
    if (present.has(lower) || framingHeaders.has(lower) || (rateLimitHeader.test(lower) && !header.required)) continue;
    const text =
      (lower === 'location' ? locationOf(sources) : undefined) ??
      headerText(headerValue(header, sources), header.required);
    if (text !== undefined) headers[header.name] = text;
  }
}

function headerValue(header: CompiledHeader, { data, drawKey }: HeaderSources): unknown {
  if (header.examples.length > 0) return header.examples[0];
  if (header.schema === undefined) return undefined;
  return data.generate(header.schema, drawKey === undefined ? {} : { key: `${drawKey} ${header.name.toLowerCase()}` });
}

/** A value as a header's text (the `simple` style: a list comma-joined, an object's names and values). */
function headerText(value: unknown, required: boolean): string | undefined {
  const text =
    value === undefined || value === null
      ? ''
      : Array.isArray(value)
        ? value.map(String).join(',')
        : typeof value === 'object'
          ? Object.entries(value).flat().map(String).join(',')
          : String(value);
  if (text !== '' && /^[\x20-\x7e]*$/.test(text) && text.length <= 8192) return text;
  return required ? 'placeholder' : undefined;
}

/**
 * Where the resource the answer is about lives: the request's path and the answer's id (the member
 * path's parameter by name, else `id`, in the body or its `data` envelope), when the document declares
 * a path one templated segment below the operation's (`/pets` -> `/pets/{petId}`).
 */
function locationOf({ operation, value, basePath, pathParams, status }: HeaderSources): string | undefined {
  const member = operation.memberParameter;
  if (member === undefined || status < 200 || status >= 300) return undefined;
  const id = idIn(value, member) ?? idIn((value as { data?: unknown } | null)?.data, member);
  if (id === undefined) return undefined;
  const path = routedPath(operation.pathTemplate)
    .replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParams?.[name] ?? name))
    .replace(/\/$/, '');
  return `${basePath ?? ''}${path}/${encodeURIComponent(id)}`;
}

function idIn(value: unknown, member: string): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const name of [member, 'id']) {
    const id = (value as Record<string, unknown>)[name];
    if ((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id))) return String(id);
  }
  return undefined;
}
