import { createHash } from 'node:crypto';
import { maskSecret } from '../../spec/credential-masking.js';
import type { Limits } from '../../src/core/config/mock-config.js';
import type { ApiKeyEntry } from '../../src/core/state/key-registry.js';
import type { RuntimeKey, StateStoreOptions } from '../../src/core/state/state-store.js';

/** 2026-01-01T00:00:00Z: on a minute and a day boundary, far from any real time. */
export const testEpochMs = Date.UTC(2026, 0, 1);

export function storeOptions(overrides: Partial<StateStoreOptions> = {}): StateStoreOptions {
  return {
    anonymous: { perMinute: 5, perDay: 20 },
    ban: { enabled: true, threshold: 3, durationMs: 120_000 },
    maxTrackedClients: 1_000,
    maxCategories: 50,
    maxCategoryBytes: 16 * 1024 * 1024,
    requestLogSize: 20,
    seedCategories: [{ name: 'dog' }, { name: 'cat', description: 'Felines' }],
    maxSessions: 20,
    sessionIdleMs: 3_600_000,
    ...overrides,
  };
}

function digestOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The entry the core's KeyRegistry would make of `key`. */
export function keyEntry(key: string, plan: string, limits: Limits): RuntimeKey {
  const digest = digestOf(key);
  return { masked: maskSecret(key), plan, limits: { ...limits }, id: digest.slice(0, 32), digest };
}

export function publicEntry({ masked, plan, limits, id }: ApiKeyEntry): ApiKeyEntry {
  return { masked, plan, limits, id };
}

/** A unique key prefix per test, so tests on one Redis never see each other's keys. */
let prefixCounter = 0;
export function uniquePrefix(): string {
  prefixCounter += 1;
  return `t${process.pid}-${prefixCounter}-${Math.random().toString(36).slice(2, 8)}:`;
}
