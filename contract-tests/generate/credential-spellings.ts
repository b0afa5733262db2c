/**
 * Spellings of the Authorization header derived from its grammar, each part varied on its own
 * (interface section 5.1: HTTP bearer). RFC 9110 section 11.4: `credentials = auth-scheme [ 1*SP
 * ( token68 / #auth-param ) ]`, the auth-scheme a case-insensitive token (section 11.1); RFC 6750
 * section 2.1: `credentials = "Bearer" 1*SP b64token`, the token compared as sent; RFC 9110
 * section 5.5: whitespace around a field value is not part of it; section 5.3: Authorization is
 * no list, so two field lines make one invalid value.
 *
 * What each spelling must get:
 * - `accept`: the valid key in a spelling the grammar allows -> 200 (as with `Bearer <key>`);
 * - `refuse`: not the valid key, or not the grammar -> 401 + Error;
 * - `open`: the grammar and the interface's own example (`Bearer <API_KEY>`, one space) part
 *   ways, or HTTP leaves the recipient free (two Authorization lines: RFC 9110 §5.3 lets it keep
 *   one, and node:http keeps the first) -> what `Bearer <key>` gets, or 401 (400 for two lines)
 *   + Error, INFO naming which.
 *
 * The near misses suite 01 sends on every operation (Basic, the key alone, an empty token, the
 * key plus or minus a character, re-cased, followed by another token) are not repeated here:
 * requests with wrong credentials draw on the budget of the client's address, which is small.
 */
export interface CredentialSpelling {
  /** Stable and readable: `scheme: BEARER`, `separator: two spaces`. */
  label: string;
  /** The grammar part varied. */
  part: 'scheme' | 'separator' | 'token' | 'field';
  /** One Authorization field line per entry; none sends no Authorization. */
  lines: (key: string) => string[];
  expect: 'accept' | 'refuse' | 'open';
  /**
   * Sent by --thorough only: a rarer variant of a spelling the default run sends. Refused spellings draw on the
   * budget of the client's address, which the default run does not wait for (60 a minute on our mock).
   */
  thoroughOnly?: boolean;
  /** Why, in the words of the RFC: shown on a failure and in the INFO line. */
  why: string;
}

/** A character of the token grammar (RFC 6750 b64token) other than `character`. */
function otherCharacter(character: string | undefined): string {
  return character === 'x' ? 'y' : 'x';
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

const bearer =
  (scheme: string, separator = ' ') =>
  (key: string) => [`${scheme}${separator}${key}`];

/** The key after each of `schemes`, all with one expectation and its reason. */
function schemeSpellings(
  schemes: readonly string[],
  expect: CredentialSpelling['expect'],
  why: string,
): CredentialSpelling[] {
  return schemes.map((scheme) => ({ label: `scheme: ${scheme}`, part: 'scheme', lines: bearer(scheme), expect, why }));
}

/** Every spelling, scheme first, then separator, token and field lines. */
export const credentialSpellings: readonly CredentialSpelling[] = [
  ...schemeSpellings(
    ['Bearer', 'bearer', 'BEARER', 'bEaReR'],
    'accept',
    'RFC 9110 §11.1: the auth-scheme is case-insensitive',
  ),
  ...schemeSpellings(['Token', 'Bearer-', 'OAuth'], 'refuse', 'interface §5.1: the scheme is Bearer'),
  ...(
    [
      ['scheme: Basic, the key as user name', (key: string) => `Basic ${base64(`${key}:`)}`, false],
      ['scheme: Basic, the key as password', (key: string) => `Basic ${base64(`api:${key}`)}`, true],
    ] as const
  ).map(
    ([label, header, thoroughOnly]): CredentialSpelling => ({
      label,
      part: 'scheme',
      lines: (key) => [header(key)],
      expect: 'refuse',
      why: 'interface §5.1: the scheme is Bearer, the key its token; Basic credentials are another scheme',
      thoroughOnly,
    }),
  ),
  {
    label: 'separator: none ("Bearer<key>")',
    part: 'separator',
    lines: bearer('Bearer', ''),
    expect: 'refuse',
    why: 'RFC 9110 §11.4: 1*SP between scheme and token',
  },
  {
    label: 'separator: two spaces',
    part: 'separator',
    lines: bearer('Bearer', '  '),
    expect: 'open',
    why: 'RFC 9110 §11.4 and RFC 6750 §2.1 allow 1*SP; the interface shows one space',
  },
  {
    label: 'separator: a tab',
    part: 'separator',
    lines: bearer('Bearer', '\t'),
    expect: 'open',
    why: 'RFC 9110 §11.4 has SP only, no tab; accepting one exposes nothing',
  },
  {
    label: 'separator: a trailing space after the token',
    part: 'separator',
    lines: (key) => [`Bearer ${key} `],
    expect: 'accept',
    why: 'RFC 9110 §5.5: whitespace around a field value is not part of it',
  },
  ...(
    [
      ['token: the key with a prefix', (key: string) => `x${key}`],
      ['token: the key cut by three characters', (key: string) => key.slice(0, Math.max(1, key.length - 3))],
      ['token: the key with "=" padding', (key: string) => `${key}=`],
      // Same length, one character changed: what a compare of a prefix (or of a fixed number of characters) lets through.
      [
        'token: the key with its last character changed',
        (key: string) => `${key.slice(0, -1)}${otherCharacter(key.at(-1))}`,
      ],
      ['token: the key in quotes', (key: string) => `"${key}"`],
      ['token: the key as an auth-param (token=<key>)', (key: string) => `token=${key}`],
    ] as const
  ).map(
    ([label, token]): CredentialSpelling => ({
      label,
      part: 'token',
      lines: (key) => [`Bearer ${token(key)}`],
      expect: 'refuse',
      why: 'RFC 6750 §2.1: the token is compared as sent; this is not the key',
    }),
  ),
  {
    label: 'token: the key with its first character changed',
    part: 'token',
    lines: (key) => [`Bearer ${otherCharacter(key[0])}${key.slice(1)}`],
    expect: 'refuse',
    why: 'RFC 6750 §2.1: the token is compared as sent; this is not the key',
    thoroughOnly: true,
  },
  {
    label: 'field: two Authorization lines, the key then another',
    part: 'field',
    lines: (key) => [`Bearer ${key}`, 'Bearer contract-test-not-a-key'],
    expect: 'open',
    why: 'RFC 9110 §5.3: Authorization is no list and a recipient may keep one line (node:http keeps the first)',
  },
  {
    label: 'field: two Authorization lines, another then the key',
    part: 'field',
    lines: (key) => ['Bearer contract-test-not-a-key', `Bearer ${key}`],
    expect: 'open',
    why: 'RFC 9110 §5.3: Authorization is no list and a recipient may keep one line (node:http keeps the first)',
  },
  {
    label: 'field: two Authorization lines, both the key',
    part: 'field',
    lines: (key) => [`Bearer ${key}`, `Bearer ${key}`],
    expect: 'open',
    why: 'RFC 9110 §5.3: Authorization is no list, so two lines make one invalid value; both carry the key',
  },
];
