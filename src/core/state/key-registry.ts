import { maskSecret } from '../../../spec/credential-masking.js';
import { keyDigest, toHex } from '../../../spec/interface/key-id.js';
import type { Limits } from '../config/mock-config.js';

export interface ApiKeyEntry {
  /** Masked form of the key, safe to print. */
  masked: string;
  plan: string;
  limits: Limits;
  /** Stable id of the key for rate-limit buckets, derived from its digest (not the key). */
  id: string;
}

interface StoredKey {
  /** What lookups answer: frozen, so it is made once and no caller can change it for the next. */
  entry: ApiKeyEntry;
  digest: Uint8Array;
}

/**
 * The API keys the mock accepts. Lookups go through a SHA-256 digest and end with a
 * constant-time comparison, so the time an answer takes says nothing about how close a guess was.
 *
 * @example
 * const keys = new KeyRegistry();
 * keys.set('demo-pro', 'pro', { perMinute: 300, perDay: 10_000 });
 * keys.find('demo-pro')?.plan; // 'pro'
 */
export class KeyRegistry {
  #byDigest = new Map<string, StoredKey>();

  set(key: string, plan: string, limits: Limits): { entry: ApiKeyEntry; created: boolean } {
    const digest = keyDigest(key);
    const hex = toHex(digest);
    const created = !this.#byDigest.has(hex);
    const stored: StoredKey = {
      entry: frozenKeyEntry({ masked: maskSecret(key), plan, limits, id: hex.slice(0, 32) }),
      digest,
    };
    this.#byDigest.set(hex, stored);
    return { entry: copyKeyEntry(stored.entry), created };
  }

  find(key: string): ApiKeyEntry | undefined {
    const digest = keyDigest(key);
    const stored = this.#byDigest.get(toHex(digest));
    if (!stored || !constantTimeEqual(stored.digest, digest)) return undefined;
    return stored.entry;
  }

  /**
   * The token's SHA-256 in lower-case hex (what a state store finds run-time keys by) and its entry
   * among these keys, if any: one digest for both.
   */
  lookup(key: string): { digestHex: string; entry: ApiKeyEntry | undefined } {
    const digest = keyDigest(key);
    const digestHex = toHex(digest);
    const stored = this.#byDigest.get(digestHex);
    return { digestHex, entry: stored && constantTimeEqual(stored.digest, digest) ? stored.entry : undefined };
  }

  list(): ApiKeyEntry[] {
    return [...this.#byDigest.values()].map((stored) => copyKeyEntry(stored.entry));
  }

  get size(): number {
    return this.#byDigest.size;
  }

  clear(): void {
    this.#byDigest.clear();
  }
}

/** A copy of a key's public entry (its limits copied too), the caller's to keep. */
export function copyKeyEntry({ masked, plan, limits, id }: ApiKeyEntry): ApiKeyEntry {
  return { masked, plan, limits: { perMinute: limits.perMinute, perDay: limits.perDay }, id };
}

/** A frozen copy of a key's public entry: what a store keeps and reports on every hit without copying again. */
export function frozenKeyEntry(entry: ApiKeyEntry): ApiKeyEntry {
  const copy = copyKeyEntry(entry);
  Object.freeze(copy.limits);
  return Object.freeze(copy);
}

export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}
