import { maskSecret } from '../../../spec/credential-masking.js';
import { readAuthorization } from '../../../spec/interface/bearer.js';
import type { CompiledSecurity, SchemeCheck } from '../../../spec/security-schemes.js';
import { targetQuery } from '../../../spec/url-parts.js';
import { demoKeys, type Limits, type MockConfig, planLimits } from '../config/mock-config.js';
import { cookieValue } from '../spec/parameter-values.js';
import { type ApiKeyEntry, KeyRegistry } from '../state/key-registry.js';
import type { MockRequest } from '../types.js';

/** What the Authorization header says, before the state store is asked about run-time keys. */
export type Credentials =
  /** A well-formed bearer token: its digest (run-time keys are found by it) and its config-key entry, if one. */
  | {
      kind: 'token';
      token: string;
      digestHex: string;
      configKey: ApiKeyEntry | undefined;
      /** A demo key (when the config serves them) shown in full by the lab; undefined for every other token. Read once with the header. */
      demoKey: string | undefined;
      /** OAuth2/OpenID scopes the operation asks for that the config does not give this key (403). */
      missingScopes?: readonly string[];
    }
  /** No usable token: why, for the 401 message. */
  | { kind: 'none'; failure: string };

/** A key accepted at start (config or demo keys): the same in every session. */
export interface StartupKey {
  key: string;
  /** Safe to print: demo keys in full, others masked. */
  display: string;
  plan: string;
  limits: Limits;
}

/**
 * Authentication: the keys of the config (and the demo keys), the same in every session and every
 * replica, looked up without the store; keys added at run time live in the state store, per session,
 * and are found there by the token's digest in the same round trip as the rate-limit hit.
 *
 * @example
 * const auth = createAuthenticator(config);
 * auth.credentials('Bearer demo-free'); // { kind: 'token', token: 'demo-free', digestHex: '…', configKey: { plan: 'free', … } }
 */
export interface Authenticator {
  readonly startupKeys: readonly StartupKey[];
  /** The demo keys this config serves (none when `demoKeys` is off): public, so shown by name. */
  readonly servedDemoKeys: ReadonlySet<string>;
  credentials(header: string | undefined): Credentials;
  /**
   * The credentials a request offers for an operation's security (any scheme: bearer, basic, API
   * keys in a header, query or cookie, OAuth2 and OpenID Connect as bearer tokens): the first
   * alternative whose credentials are all present. Every credential is an API key of the registry;
   * in a combined requirement (AND) the others must be keys of the config.
   */
  credentialsFor(security: CompiledSecurity, request: MockRequest): Credentials;
  /** The config/demo key entry of a raw key, if it is one. */
  configKey(key: string): ApiKeyEntry | undefined;
  /** The public entries of the config/demo keys. */
  configKeys(): ApiKeyEntry[];
  /** The masked form of a token for the log. */
  masked(token: string): string;
}

const missingCredentials: Credentials = Object.freeze({
  kind: 'none',
  failure: 'Missing API key; send Authorization: Bearer <API_KEY>',
});
const maxCachedHeaders = 1_024;
const maxCachedHeaderLength = 512;

/**
 * `read`, with its answers kept per text. A client sends the same header or key on every request: reading it once
 * saves a SHA-256 per request (the largest part of the 401 and 429 paths). Bounded in entries and in text length;
 * the config and demo keys never change, so a kept answer never goes stale.
 */
function readOnce(read: (text: string) => Credentials): (text: string) => Credentials {
  const recent = new Map<string, Credentials>();
  return (text) => {
    let credentials = recent.get(text);
    if (credentials === undefined) {
      credentials = read(text);
      if (text.length <= maxCachedHeaderLength) {
        if (recent.size >= maxCachedHeaders) recent.delete(recent.keys().next().value!);
        recent.set(text, credentials);
      }
    }
    return credentials;
  };
}

export function createAuthenticator(config: MockConfig): Authenticator {
  const scopesByKey = new Map(
    config.keys.filter((entry) => entry.scopes !== undefined).map((entry) => [entry.key, new Set(entry.scopes)]),
  );
  const keys = new KeyRegistry();
  const demoKeyNames = new Set(demoKeys.map((entry) => entry.key));
  const startupKeys: StartupKey[] = [...(config.demoKeys ? demoKeys : []), ...config.keys].map((entry) => ({
    key: entry.key,
    // The demo keys are public (the README and docs/configuration.md print them); every other key is a secret.
    display: demoKeyNames.has(entry.key) ? entry.key : maskSecret(entry.key),
    plan: entry.limits && !entry.plan ? 'custom' : entry.plan!,
    limits: entry.limits ?? planLimits(config.plans, entry.plan!)!,
  }));
  for (const entry of startupKeys) keys.set(entry.key, entry.plan, entry.limits);
  const servedDemoKeys: ReadonlySet<string> = new Set(config.demoKeys ? demoKeyNames : []);

  const tokenCredentials = (token: string): Credentials => {
    const { digestHex, entry } = keys.lookup(token);
    return {
      kind: 'token',
      token,
      digestHex,
      configKey: entry,
      demoKey: servedDemoKeys.has(token) ? token : undefined,
    };
  };
  // Keys sent in other ways than the Authorization header (an API key header, query, cookie, basic).
  const keyCredentials = readOnce(tokenCredentials);
  const readCredentials = (header: string): Credentials => {
    // The grammar of RFC 9110 and RFC 6750, read as the kit and the proxy read it (spec/interface/bearer.ts).
    const reading = readAuthorization(header);
    if (reading.kind === 'malformed')
      return { kind: 'none', failure: 'Malformed Authorization header; expected Bearer <API_KEY>' };
    if (reading.kind === 'other-scheme')
      return {
        kind: 'none',
        failure: `Unsupported authorization scheme ${reading.scheme.slice(0, 20)}; expected Bearer <API_KEY>`,
      };
    return tokenCredentials(reading.token);
  };
  const withScopes = (credentials: Credentials, alternative: readonly SchemeCheck[]): Credentials => {
    if (credentials.kind !== 'token') return credentials;
    const granted = scopesByKey.get(credentials.token);
    if (granted === undefined) return credentials;
    const missingScopes = alternative.flatMap((check) =>
      check.kind === 'bearer' ? check.scopes.filter((scope) => !granted.has(scope)) : [],
    );
    return missingScopes.length === 0 ? credentials : { ...credentials, missingScopes };
  };
  const headerCredentials = readOnce(readCredentials);

  return {
    startupKeys,
    servedDemoKeys,
    credentials: (header) => (header === undefined ? missingCredentials : headerCredentials(header)),
    credentialsFor(security, request) {
      let failure: string | undefined;
      for (const alternative of security.alternatives) {
        const values = alternative.map((check) => credentialOf(check, request, (key) => keys.find(key) !== undefined));
        const missing = values.findIndex((value) => typeof value !== 'string');
        if (missing !== -1) {
          failure ??= (values[missing] as { failure: string }).failure;
          continue;
        }
        const [primary, ...others] = values as string[];
        // One round trip to the store checks one key: the others of a combined requirement are the config's.
        const unknown = others.findIndex((value) => keys.find(value) === undefined);
        if (unknown !== -1)
          return { kind: 'none', failure: `Invalid credentials for ${alternative[unknown + 1]!.name}` };
        return withScopes(keyCredentials(primary!), alternative);
      }
      return { kind: 'none', failure: failure ?? 'Missing credentials' };
    },
    configKey: (key) => keys.find(key),
    configKeys: () => keys.list(),
    masked: maskSecret,
  };
}

/**
 * The credential a request offers for one scheme (the key it carries), or why there is none.
 * HTTP basic: the key is `user:password` when the registry has it, else the password, else (with
 * an empty password, as Stripe does) the user name.
 */
function credentialOf(
  check: SchemeCheck,
  request: MockRequest,
  known: (key: string) => boolean,
): string | { failure: string } {
  if (check.kind === 'apiKey') {
    const value =
      check.in === 'header'
        ? request.headers[check.parameter.toLowerCase()]
        : check.in === 'query'
          ? queryValue(request.url, check.parameter)
          : cookieValue(request.headers.cookie, check.parameter);
    return value === undefined || value === ''
      ? {
          failure: `Missing API key; send it in the ${check.in} ${check.in === 'header' ? 'field' : 'parameter'} ${check.parameter}`,
        }
      : value;
  }
  const header = request.headers.authorization;
  const expected = check.kind === 'basic' ? 'Basic' : 'Bearer';
  if (header === undefined)
    return {
      failure: `Missing credentials; send Authorization: ${expected} ${check.kind === 'basic' ? '<base64 of user:password>' : '<API_KEY>'}`,
    };
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
  if (!match || match[1]!.toLowerCase() !== expected.toLowerCase())
    return { failure: `Expected Authorization: ${expected} ...` };
  if (check.kind === 'bearer') return match[2]!;
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(atob(match[2]!), (char) => char.charCodeAt(0)),
    );
  } catch {
    return { failure: 'Malformed Authorization: Basic; expected base64 of user:password' };
  }
  const colon = decoded.indexOf(':');
  if (colon === -1) return { failure: 'Malformed Authorization: Basic; expected base64 of user:password' };
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (known(decoded)) return decoded;
  if (password !== '' && known(password)) return password;
  return password === '' ? user : decoded;
}

function queryValue(url: string, name: string): string | undefined {
  const query = targetQuery(url);
  return query === '' ? undefined : (new URLSearchParams(query).get(name) ?? undefined);
}
