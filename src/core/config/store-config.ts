import type * as z from 'zod';
import { onFirstUse } from '../../../spec/zod-module.js';

/** The least memory budget the config takes: room for a session's seeds, log and lab, and then some. */
export const minMemoryBudgetBytes = 16 * 1024 * 1024;

/** The session bounds when the config says nothing. */
export const storeDefaults = {
  maxSessions: 100,
  sessionIdleMs: 3_600_000,
  /** A quarter of a 1 GiB heap. */
  memoryBudgetBytes: 256 * 1024 * 1024,
} as const;

/** Past its sunset date, a deprecated operation keeps serving (with its headers) or answers 410 Gone. */
export const afterSunsetModes = ['serve', 'gone'] as const;
export type AfterSunsetMode = (typeof afterSunsetModes)[number];
export const afterSunsetModeSchema = onFirstUse((z) => z.enum(afterSunsetModes, { error: 'must be gone or serve' }));

/**
 * The `sessions` and `store` sections of the config file, for `mockConfigSchema()` to take in when the
 * store is wired (unknown fields refused by name, like the rest of the config). The URL is only
 * checked for its scheme here; `connectRedisStore` checks the rest and says what is wrong in one line.
 *
 * @example
 * sessions: { maxSessions: 20, idleSeconds: 1800 }
 * store: { url: redis://127.0.0.1:6379/0, prefix: "team-mock:", timeoutMs: 2000 }
 */
export const sessionsConfigSchema = onFirstUse((z) =>
  z
    .strictObject({
      /** Most sessions alive at once besides the default one. */
      maxSessions: z.int().min(0).max(100_000).default(storeDefaults.maxSessions),
      /** A session not used for this long is forgotten (the default one never is). */
      idleSeconds: z
        .int()
        .positive()
        .max(30 * 86_400)
        .default(storeDefaults.sessionIdleMs / 1000),
    })
    .default({ maxSessions: storeDefaults.maxSessions, idleSeconds: storeDefaults.sessionIdleMs / 1000 }),
);

export const storeConfigSchema = onFirstUse((z) =>
  z.strictObject({
    url: z
      .string()
      .max(2_000)
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'),
    prefix: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[^{}\s]+$/, 'must have no braces or spaces')
      .optional(),
    timeoutMs: z.int().min(1).max(5_000).optional(),
    retryAfterSeconds: z.int().min(1).max(60).optional(),
    cluster: z.boolean().optional(),
  }),
);
export type SessionsConfig = z.output<ReturnType<typeof sessionsConfigSchema>>;
