/**
 * The Authorization grammar of interface section 5 ("Authorization: Bearer <API_KEY>"), read as its
 * standards write it, once for the mock, the kit and the judging proxy:
 *
 * - RFC 9110 section 11.4: `credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, the
 *   auth-scheme a token compared case-insensitively (`bearer`, `BEARER`), one or more spaces after it;
 *   a field value carries no leading or trailing white space (section 5.5), so trailing OWS is not
 *   part of the credentials.
 * - RFC 6750 section 2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
 *
 * A token of other visible characters (`key!`) is read as a token too, and says so (`b64token:
 * false`): the mock accepts any printable key its config names, and whether a server takes such a
 * spelling is what the interface leaves open.
 */
export type AuthorizationReading =
  /** Scheme Bearer in any case, 1*SP, one token without white space. */
  | { kind: 'bearer'; token: string; b64token: boolean }
  /** Another scheme (`Basic ...`), by its name as sent. */
  | { kind: 'other-scheme'; scheme: string }
  /** Not `<scheme> 1*SP <token>`: empty, a scheme alone, a token with spaces, a tab for the space. */
  | { kind: 'malformed' };

/** RFC 9110 section 5.6.2 tchar, for the auth-scheme. */
const credentialsPattern = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) +([\x21-\x7e]+)[ \t]*$/;
const b64tokenPattern = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Reads an Authorization field value by the grammar above.
 *
 * @example readAuthorization('bearer  demo-free') // { kind: 'bearer', token: 'demo-free', b64token: true }
 * @example readAuthorization('Basic dXNlcg==') // { kind: 'other-scheme', scheme: 'Basic' }
 * @example readAuthorization('Bearer') // { kind: 'malformed' }
 */
export function readAuthorization(value: string): AuthorizationReading {
  const match = credentialsPattern.exec(value);
  if (match === null) return { kind: 'malformed' };
  const scheme = match[1]!;
  if (scheme.toLowerCase() !== 'bearer') return { kind: 'other-scheme', scheme };
  const token = match[2]!;
  return { kind: 'bearer', token, b64token: b64tokenPattern.test(token) };
}

/**
 * The bearer token of an Authorization value (repeated fields joined), or null when it carries none.
 *
 * @example bearerToken('Bearer demo-free') // 'demo-free'
 */
export function bearerToken(value: string | undefined): string | null {
  if (value === undefined) return null;
  const reading = readAuthorization(value);
  return reading.kind === 'bearer' ? reading.token : null;
}
