import { targetQuery } from './url-parts.js';

/**
 * The one masking step every output of the mock, the judging proxy and the kit goes through
 * (reports in every format, the dashboard, the export, `--report` files, log lines): credentials are
 * masked by where they travel (headers, query parameters, cookies, by common names and by the
 * document's `apiKey` schemes) and by what they are (the text of every key known to the writer,
 * whole, encoded, or cut: any run of 8 or more of its characters). Browser-safe: no node:*.
 * docs/decisions/032-one-masking-step.md.
 */

/** Where a document (and common practice) carries credentials; names lower-case. */
export interface CredentialPlaces {
  headers: ReadonlySet<string>;
  query: ReadonlySet<string>;
  cookies: ReadonlySet<string>;
}

/** Header names whose whole value is a credential, whatever the document says. */
const credentialHeaders = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key'];

/** Query parameter names that carry a key in common practice (OAuth 2 `access_token`, RFC 6750 2.3, among them). */
const credentialQueryNames = [
  'api_key',
  'apikey',
  'api-key',
  'key',
  'token',
  'access_token',
  'auth',
  'auth_token',
  'id_token',
  'refresh_token',
  'client_secret',
  'secret',
  'password',
  'sig',
  'signature',
  'session',
  'sessionid',
];

/** The places every writer masks, without a document. */
export const commonCredentialPlaces: CredentialPlaces = {
  headers: new Set(credentialHeaders),
  query: new Set(credentialQueryNames),
  cookies: new Set(),
};

/** A run of a key's characters this long (or longer) is masked wherever it appears. */
export const maskedRunLength = 8;

/**
 * The common places plus the document's `apiKey` schemes (`in: header|query|cookie`, `name`).
 *
 * @example credentialPlacesOf({ components: { securitySchemes: { k: { type: 'apiKey', in: 'query', name: 'sig' } } } }).query.has('sig') // true
 */
export function credentialPlacesOf(document: unknown): CredentialPlaces {
  const headers = new Set(commonCredentialPlaces.headers);
  const query = new Set(commonCredentialPlaces.query);
  const cookies = new Set<string>();
  const schemes = (document as { components?: { securitySchemes?: unknown } } | null)?.components?.securitySchemes;
  if (schemes !== null && typeof schemes === 'object')
    for (const scheme of Object.values(schemes as Record<string, unknown>)) {
      const { type, in: place, name } = (scheme ?? {}) as { type?: unknown; in?: unknown; name?: unknown };
      if (type !== 'apiKey' || typeof name !== 'string' || name === '') continue;
      const lower = name.toLowerCase();
      if (place === 'header') headers.add(lower);
      else if (place === 'query') query.add(lower);
      else if (place === 'cookie') cookies.add(lower);
    }
  return { headers, query, cookies };
}

/**
 * Masks a secret: a short prefix stays readable (never 8 characters), the rest is hidden.
 *
 * @example maskSecret('demo-enterprise') // 'demo…(15)'
 */
export function maskSecret(secret: string): string {
  const visible = secret.length > 8 ? 4 : Math.min(2, Math.floor(secret.length / 3));
  return `${secret.slice(0, visible)}…(${secret.length})`;
}

/**
 * Masks the credentials of an Authorization value, the scheme kept visible (a check is often about it).
 *
 * @example maskAuthorization('Bearer demo-enterprise') // 'Bearer demo…(15)'
 */
function maskAuthorization(value: string): string {
  const space = value.indexOf(' ');
  if (space === -1) return maskSecret(value);
  return `${value.slice(0, space)} ${maskSecret(value.slice(space + 1).trim())}`;
}

/**
 * Does a header name carry credentials? The fixed names, the document's `apiKey in: header` names,
 * and anything named like a key, token, session or password.
 *
 * @example looksLikeCredentialHeader('X-Api-Key') // true
 */
export function looksLikeCredentialHeader(name: string, places: CredentialPlaces = commonCredentialPlaces): boolean {
  const lower = name.toLowerCase();
  return places.headers.has(lower) || /auth|cookie|key|token|secret|session|password|credential|signature/.test(lower);
}

/**
 * A header's value as it may be shown: Authorization-like values keep their scheme, cookies their
 * names, every other credential header is masked whole.
 *
 * @example maskHeaderValue('Cookie', 'sid=abcdefgh12; theme=dark') // 'sid=ab…(10); theme=d…(4)'
 */
export function maskHeaderValue(
  name: string,
  value: string,
  places: CredentialPlaces = commonCredentialPlaces,
): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') return maskAuthorization(value);
  if (lower === 'cookie' || lower === 'set-cookie') return maskCookieValues(value);
  return looksLikeCredentialHeader(lower, places) ? maskSecret(value) : value;
}

/** Each `name=value` of a Cookie (or the first of a Set-Cookie) with its value masked. */
function maskCookieValues(value: string): string {
  return value.replace(/(^|;\s*)([^=;\s]+)=([^;]*)/g, (_all, lead: string, name: string, text: string) =>
    /^(path|domain|expires|max-age|samesite)$/i.test(name)
      ? `${lead}${name}=${text}`
      : `${lead}${name}=${maskSecret(text)}`,
  );
}

/**
 * A request target (or any text holding one) with the values of its credential query parameters
 * masked: common names and the document's `apiKey in: query` names, compared case-insensitively.
 *
 * @example maskQueryCredentials('/v1/pets?api_key=abcdefgh123&limit=2') // '/v1/pets?api_key=abcd…(11)&limit=2'
 */
export function maskQueryCredentials(url: string, places: CredentialPlaces = commonCredentialPlaces): string {
  if (!url.includes('=')) return url;
  // A value ends where a URL's query does, and at a quote or bracket of the text around it (a JSON string, HTML).
  return url.replace(
    /([?&;])([^=&#?;\s"'<>]+)=([^&#;\s"'<>\\`{}|^]*)/g,
    (all, lead: string, name: string, value: string) =>
      value !== '' && !alreadyMasked.test(value) && places.query.has(safeDecode(name).toLowerCase())
        ? `${lead}${name}=${maskSecret(safeDecode(value))}`
        : all,
  );
}

/**
 * Masks what looks like a credential in any text, without knowing a key: credential query
 * parameters (`?api_key=...`) and `Bearer`/`Basic` credentials (8 or more token characters, one
 * of them a digit or punctuation, so "Bearer authentication" stays prose). The last step of outputs
 * written after the keys are gone (the proxy keeps none), and of every log line.
 *
 * @example maskCredentialPatterns('GET /v1/x?token=abcdefghij (Bearer zyxw-vutsr)') // 'GET /v1/x?token=abcd…(10) (Bearer zyxw…(10))'
 */
export function maskCredentialPatterns(text: string, places: CredentialPlaces = commonCredentialPlaces): string {
  return maskQueryCredentials(text, places).replace(
    /\b(bearer|basic)([ \t]+)(?=[A-Za-z]*[0-9\-._~+/])([A-Za-z0-9\-._~+/]{8,}=*)/gi,
    (_all, scheme: string, space: string, credentials: string) => `${scheme}${space}${maskSecret(credentials)}`,
  );
}

/** What `maskSecret` writes: masked again, it would only lose the length. */
const alreadyMasked = /^[^…]{0,4}…\(\d+\)$/;

/**
 * The secrets a request carries, by every route: the credentials of Authorization headers (a
 * Basic pair's password too), credential headers, the values of credential query parameters and
 * of cookies that may be keys. Give them to `createRedactor` to mask their echo in an answer.
 *
 * @example secretsOfRequest({ authorization: 'Bearer abc12345678' }, '/v1/x?key=zz99887766', commonCredentialPlaces) // ['abc12345678', 'zz99887766']
 */
export function secretsOfRequest(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  url: string,
  places: CredentialPlaces = commonCredentialPlaces,
): string[] {
  const secrets: string[] = [];
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const lower = name.toLowerCase();
    for (const value of typeof raw === 'string' ? [raw] : raw) {
      if (lower === 'authorization' || lower === 'proxy-authorization') secrets.push(...authorizationSecrets(value));
      else if (lower === 'cookie') secrets.push(...cookieSecrets(value, places));
      else if (looksLikeCredentialHeader(lower, places)) secrets.push(value.trim());
    }
  }
  const query = targetQuery(url);
  if (query !== '')
    for (const pair of query.split(/[&;]/)) {
      const equals = pair.indexOf('=');
      if (equals > 0 && places.query.has(safeDecode(pair.slice(0, equals)).toLowerCase()))
        secrets.push(safeDecode(pair.slice(equals + 1)));
    }
  return secrets.filter((secret) => secret.length >= 4);
}

/**
 * The cookie values that may be keys: those the document names `apiKey in: cookie`, and any as long
 * as a run the redactor masks (a session id); `theme=dark` is not looked for in every answer.
 */
function cookieSecrets(value: string, places: CredentialPlaces): string[] {
  const out: string[] = [];
  for (const pair of value.split(';')) {
    const equals = pair.indexOf('=');
    const text = pair.slice(equals + 1).trim();
    if (text.length >= maskedRunLength || places.cookies.has(pair.slice(0, equals).trim().toLowerCase()))
      out.push(text);
  }
  return out;
}

function authorizationSecrets(value: string): string[] {
  const match = /^\s*(\S+)\s+(.+?)\s*$/.exec(value);
  if (match === null) return [value.trim()];
  const credentials = match[2]!;
  if (match[1]!.toLowerCase() !== 'basic') return [credentials];
  // Basic: the base64 text, and the pair and password it decodes to (an echo may show either).
  try {
    const pair = atob(credentials);
    return [credentials, pair, pair.slice(pair.indexOf(':') + 1)];
  } catch {
    return [credentials];
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * Replaces every given secret wherever it appears in a text: whole, in any case, URL-encoded, hex,
 * or base64(url) at any offset of a longer encoded text (a JSON body or a JWT holding it), and any
 * run of `maskedRunLength` or more of its characters (an excerpt cut through a key shows none of
 * it; for an encoded form, a run standing for as many). Each run becomes the secret's mask. A secret shorter than 4 is not looked for.
 * `label` masks whole secrets only: for the names the writer itself gives things (an object's keys,
 * a header's name), never cut by an excerpt, which a human-readable secret may share 8 characters with.
 *
 * @example createRedactor(['demo-enterprise'])('echo: DEMO-ENTERPRISE, …o-enterpr') // 'echo: demo…(15), …demo…(15)'
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const forms: { text: string; mask: string; minRun: number }[] = [];
  const seen = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    const mask = maskSecret(secret);
    for (const { text: form, minRun } of encodedForms(secret)) {
      const lower = asciiLower(form);
      if (seen.has(lower)) continue;
      seen.add(lower);
      forms.push({ text: lower, mask, minRun });
    }
  }
  if (forms.length === 0) return Object.assign((text: string) => text, { label: (text: string) => text });
  // Every 4 characters of every long form, by where they stand: a run of 8 or more in a text
  // always holds a whole 4-character block starting at a multiple of 4, so blocks are enough to find it.
  const blocks = new Map<string, { form: number; at: number }[]>();
  forms.forEach(({ text, minRun }, form) => {
    if (text.length < minRun) return;
    for (let at = 0; at + 4 <= text.length; at += 1) {
      const block = text.slice(at, at + 4);
      const list = blocks.get(block);
      if (list === undefined) blocks.set(block, [{ form, at }]);
      else list.push({ form, at });
    }
  });
  const redact = (text: string, wholeOnly: boolean) => {
    if (text.length < 4) return text;
    const lower = asciiLower(text);
    const runs: Run[] = [];
    for (const { text: form, mask, minRun } of forms)
      if (form.length < minRun)
        for (let at = lower.indexOf(form); at !== -1; at = lower.indexOf(form, at + 1))
          runs.push({ start: at, end: at + form.length, mask });
    for (let start = 0; start + 4 <= lower.length; start += 4) {
      const found = blocks.get(lower.slice(start, start + 4));
      if (found !== undefined)
        for (const { form, at } of found) {
          const run = runAround(lower, forms[form]!.text, start, at);
          const length = run.end - run.start;
          if (length >= (wholeOnly ? forms[form]!.text.length : forms[form]!.minRun))
            runs.push({ ...run, mask: forms[form]!.mask });
        }
    }
    return runs.length === 0 ? text : replaceRuns(text, runs);
  };
  return Object.assign((text: string) => redact(text, false), { label: (text: string) => redact(text, true) });
}

/** Masks secrets in a text; `label` only whole ones (see `createRedactor`). */
export type Redactor = ((text: string) => string) & { label?: (text: string) => string };

interface Run {
  start: number;
  end: number;
  mask: string;
}

/** The longest stretch of `text` around `start` that matches `form` around `at` (both lower-case). */
function runAround(text: string, form: string, start: number, at: number): { start: number; end: number } {
  let left = start;
  let formLeft = at;
  while (left > 0 && formLeft > 0 && text[left - 1] === form[formLeft - 1]) {
    left -= 1;
    formLeft -= 1;
  }
  let right = start + 4;
  let formRight = at + 4;
  while (right < text.length && formRight < form.length && text[right] === form[formRight]) {
    right += 1;
    formRight += 1;
  }
  return { start: left, end: right };
}

/** The text with overlapping runs merged and each stretch replaced by one mask. */
function replaceRuns(text: string, runs: Run[]): string {
  runs.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let written = 0;
  let current: Run | undefined;
  for (const run of runs) {
    if (current !== undefined && run.start < current.end) {
      current.end = Math.max(current.end, run.end);
      continue;
    }
    if (current !== undefined) {
      out += current.mask;
      written = current.end;
    }
    out += text.slice(written, run.start);
    current = { ...run };
  }
  return `${out}${current!.mask}${text.slice(current!.end)}`;
}

/**
 * Applies a redactor to every string in a plain-data value (a report), keys included (by its
 * `label`, when it has one).
 *
 * @example redactDeep({ a: ['key-12345678'] }, createRedactor(['key-12345678'])) // { a: ['key-…(12)'] }
 */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === 'object') {
    const label = redact.label ?? redact;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [label(key), redactDeep(item, redact)])) as T;
  }
  return value;
}

/** Lower-case ASCII letters only: the length (and so every index) stays the text's own. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * The texts a key may be echoed as, each with the shortest run of it that is masked (one that
 * stands for `maskedRunLength` of the key's characters): the key itself, URL-encoded, every byte
 * percent-encoded, hex, and base64 and base64url at each of the three offsets a key can stand at
 * inside a longer encoded text (a JSON document or a JWT holding it), without the characters that
 * also encode its neighbours. An encoded form shorter than its run is not looked for (too common).
 */
function encodedForms(secret: string): { text: string; minRun: number }[] {
  const bytes = new TextEncoder().encode(secret);
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  const base64Run = Math.ceil((maskedRunLength * 8) / 6);
  const shifted = [1, 2].map((offset) => {
    const text = base64Of(new Uint8Array([...new Uint8Array(offset), ...bytes]));
    // Without the characters that hold a bit of the bytes before the key, and the last one when it holds bits after it.
    const end = ((offset + bytes.length) * 8) % 6 === 0 ? text.length : text.length - 1;
    return { text: text.slice(Math.ceil((offset * 8) / 6), end), minRun: base64Run };
  });
  const base64 = [{ text: base64Of(bytes), minRun: maskedRunLength }, ...shifted];
  return [
    { text: secret, minRun: maskedRunLength },
    { text: encodeURIComponent(secret), minRun: maskedRunLength },
    ...base64,
    ...base64.map((form) => ({ ...form, text: form.text.replace(/\+/g, '-').replace(/\//g, '_') })),
    { text: hex, minRun: maskedRunLength * 2 },
    { text: hex.replace(/../g, '%$&'), minRun: maskedRunLength * 3 },
  ].filter((form, index) => index < 3 || form.text.length >= form.minRun);
}

function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/=+$/, '');
}
