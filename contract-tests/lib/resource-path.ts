import { exactMember } from '../../spec/interface/exact-ids.js';
import { targetPath } from '../../spec/url-parts.js';

/**
 * How the generic layer addresses a resource: each path value as one segment, and never a URL that
 * a parser (the kit's HTTP client, a proxy, the server) would read as another path. A server that
 * names a created resource `.` or `..` must not turn the kit's PUT or DELETE into one on the
 * collection or the API root.
 */

/**
 * A request the kit refuses to send because a URL parser would take it elsewhere than its path
 * template names (a value `.` or `..` from a server, for one): the check ends as INFO saying why.
 */
export class RefusedRequest extends Error {}

/**
 * A value as ONE path segment: percent-encoded (`/` as `%2F`, `?` as `%3F`), and a segment of dots
 * only (`.`, `..`) with its dots encoded too (`%2E`), so that it is never a dot segment as written.
 *
 * @example pathSegment('..') // '%2E%2E'
 * @example pathSegment('a/../b') // 'a%2F..%2Fb'
 */
export function pathSegment(text: string): string {
  const encoded = encodeURIComponent(text);
  return /^\.+$/.test(encoded) ? encoded.replace(/\./g, '%2E') : encoded;
}

/**
 * The path a URL parser makes of `path` when it is not the same segments (WHATWG URL and RFC 3986
 * remove `.` and `..`, and `%2E` spellings of them, with the segment before), else undefined.
 *
 * @example parsedPath('/pets/%2E%2E') // '/'
 * @example parsedPath('/pets/a%2Fb') // undefined
 */
export function parsedPath(path: string): string | undefined {
  const raw = targetPath(path);
  const parsed = new URL(raw, 'http://kit.invalid').pathname;
  const decoded = (text: string) => text.split('/').map(decodedSegment).join('/');
  return decoded(parsed) === decoded(raw) ? undefined : parsed;
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Envelope properties a created resource may sit in (`{ "data": { "id": ... } }`). */
const envelopes = ['data', 'result', 'item', 'resource', 'object', 'entry'];

/**
 * The created resource's identifier for a path parameter, and where it stood: the property of that
 * name (any case or separator), else `id`; when the body has neither at its top, the same in an
 * envelope (`data`, `result`, ...) or a property named like the parameter's resource (`list` for
 * `list_id`). A body with an `id` of its own is never searched deeper: a nested `user.id` is another resource.
 *
 * `text` is the value as a path writes it: an integer beyond 2^53 exactly as the body held it (spec/interface/exact-ids.ts).
 *
 * @example createdIdentifier({ data: { note_id: 'n-1' } }, 'noteId') // { value: 'n-1', at: 'data.note_id', text: 'n-1' }
 */
export function createdIdentifier(
  body: Record<string, unknown>,
  parameter: string,
): { value: string | number; at: string; text: string } | undefined {
  const plain = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const keyIn = (object: Record<string, unknown>) =>
    parameter in object
      ? parameter
      : (Object.keys(object).find((name) => plain(name) === plain(parameter)) ?? ('id' in object ? 'id' : undefined));
  const valueAt = (object: Record<string, unknown>, key: string, at: string) => {
    const value = object[key];
    const text = String(exactMember(object, key));
    return typeof value === 'string' || typeof value === 'number' ? { value, at, text } : undefined;
  };
  const top = keyIn(body);
  if (top !== undefined) return valueAt(body, top, top);
  const resource = plain(parameter).replace(/id$/, '');
  const wrapper = Object.keys(body).find(
    (name) =>
      (envelopes.includes(name.toLowerCase()) || (resource !== '' && plain(name) === resource)) &&
      body[name] !== null &&
      typeof body[name] === 'object' &&
      !Array.isArray(body[name]),
  );
  if (wrapper === undefined) return undefined;
  const inner = body[wrapper] as Record<string, unknown>;
  const key = keyIn(inner);
  return key === undefined ? undefined : valueAt(inner, key, `${wrapper}.${key}`);
}
