import type { NewCategory } from '../../../spec/schemas.js';
import type { Limits } from '../config/mock-config.js';
import { minMemoryBudgetBytes, type SessionsConfig, storeDefaults } from '../config/store-config.js';
import type { StateStoreOptions } from './state-store.js';

/**
 * Throws a RangeError naming the first option that is not a whole number in its range: both stores
 * check their options the same way (Redis takes them as TTLs and counts).
 */
export function assertStoreOptions(options: StateStoreOptions): void {
  const whole: [string, number, number][] = [
    ['anonymous.perMinute', options.anonymous.perMinute, 1],
    ['anonymous.perDay', options.anonymous.perDay, 1],
    ['ban.threshold', options.ban.threshold, 1],
    ['ban.durationMs', options.ban.durationMs, 1],
    ['maxTrackedClients', options.maxTrackedClients, 1],
    ['maxCategories', options.maxCategories, 1],
    ['maxCategoryBytes', options.maxCategoryBytes, 16],
    ['requestLogSize', options.requestLogSize, 1],
    ['maxSessions', options.maxSessions, 0],
    ['sessionIdleMs', options.sessionIdleMs, 1],
    ['memoryBudgetBytes', options.memoryBudgetBytes ?? minMemoryBudgetBytes, minMemoryBudgetBytes],
  ];
  for (const [name, value, minimum] of whole) {
    if (!Number.isSafeInteger(value) || value < minimum)
      throw new RangeError(`Invalid store option ${name}: expected a whole number >= ${minimum}, got ${String(value)}`);
  }
}

/**
 * The store options of a decoded mock config.
 *
 * @example createMemoryStore(storeOptionsFromConfig(config, []))
 */
export function storeOptionsFromConfig(
  config: {
    anonymous: Limits;
    ban: { enabled: boolean; threshold: number; durationSeconds: number };
    maxTrackedClients: number;
    maxCategories: number;
    maxCategoryBytes: number;
    requestLogSize: number;
    memoryBudgetBytes?: number;
  },
  seedCategories: readonly NewCategory[],
  sessions: { maxSessions?: number; sessionIdleMs?: number } | SessionsConfig = {},
): StateStoreOptions {
  const idleMs = 'idleSeconds' in sessions ? sessions.idleSeconds * 1000 : sessions.sessionIdleMs;
  return {
    anonymous: { ...config.anonymous },
    ban: {
      enabled: config.ban.enabled,
      threshold: config.ban.threshold,
      durationMs: config.ban.durationSeconds * 1000,
    },
    maxTrackedClients: config.maxTrackedClients,
    maxCategories: config.maxCategories,
    maxCategoryBytes: config.maxCategoryBytes,
    requestLogSize: config.requestLogSize,
    seedCategories: seedCategories.map((category) => ({ ...category })),
    maxSessions: sessions.maxSessions ?? storeDefaults.maxSessions,
    sessionIdleMs: idleMs ?? storeDefaults.sessionIdleMs,
    ...(config.memoryBudgetBytes === undefined ? {} : { memoryBudgetBytes: config.memoryBudgetBytes }),
  };
}
