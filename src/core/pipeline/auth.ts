import { KeyRegistry, maskSecret, type ApiKeyEntry } from '../state/key-registry.js';
import { demoKeys, planLimits, type Limits, type MockConfig } from '../config/mock-config.js';

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
  /** The config/demo key entry of a raw key, if it is one. */
  configKey(key: string): ApiKeyEntry | undefined;
  /** The public entries of the config/demo keys. */
  configKeys(): ApiKeyEntry[];
  /** The masked form of a token for the log. */
  masked(token: string): string;
}

const missingCredentials: Credentials = Object.freeze({ kind: 'none', failure: 'Missing API key; send Authorization: Bearer <API_KEY>' });
const maxCachedHeaders = 1_024;
const maxCachedHeaderLength = 512;

export function createAuthenticator(config: MockConfig): Authenticator {
  const keys = new KeyRegistry();
  const demoKeyNames = new Set(demoKeys.map((entry) => entry.key));
  const startupKeys: StartupKey[] = [...(config.demoKeys ? demoKeys : []), ...config.keys].map((entry) => ({
    key: entry.key,
    // The demo keys are public (they are in the README); every other key is a secret.
    display: demoKeyNames.has(entry.key) ? entry.key : maskSecret(entry.key),
    plan: entry.limits && !entry.plan ? 'custom' : entry.plan!,
    limits: entry.limits ?? planLimits(config.plans, entry.plan!)!,
  }));
  for (const entry of startupKeys) keys.set(entry.key, entry.plan, entry.limits);
  const servedDemoKeys: ReadonlySet<string> = new Set(config.demoKeys ? demoKeyNames : []);

  const readCredentials = (header: string): Credentials => {
    const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
    if (!match) return { kind: 'none', failure: 'Malformed Authorization header; expected Bearer <API_KEY>' };
    if (match[1]!.toLowerCase() !== 'bearer') return { kind: 'none', failure: `Unsupported authorization scheme ${match[1]!.slice(0, 20)}; expected Bearer <API_KEY>` };
    const token = match[2]!;
    const { digestHex, entry } = keys.lookup(token);
    return { kind: 'token', token, digestHex, configKey: entry, demoKey: servedDemoKeys.has(token) ? token : undefined };
  };
  // A client sends the same header on every request: reading it once saves a SHA-256 per request
  // (the largest part of the 401 and 429 paths). Bounded in entries and in header length; the
  // config and demo keys never change, so a cached answer never goes stale.
  const recent = new Map<string, Credentials>();

  return {
    startupKeys,
    servedDemoKeys,
    credentials(header) {
      if (header === undefined) return missingCredentials;
      let credentials = recent.get(header);
      if (credentials === undefined) {
        credentials = readCredentials(header);
        if (header.length <= maxCachedHeaderLength) {
          if (recent.size >= maxCachedHeaders) recent.delete(recent.keys().next().value!);
          recent.set(header, credentials);
        }
      }
      return credentials;
    },
    configKey: (key) => keys.find(key),
    configKeys: () => keys.list(),
    masked: maskSecret,
  };
}
