import type { LabObservation } from './lab-types.js';

/** The start of the lab tests' virtual time. */
export const t0 = Date.UTC(2026, 0, 1);
/** The default ban policy: 10 refusals in a row ban for 15 minutes. */
export const ban = { enabled: true, threshold: 10, durationMs: 900_000 };

/** demo-free's GET /v1/categories at `atSeconds` after t0, answered `status` (a 429 says Retry-After: 10). */
export function obs(atSeconds: number, status: number, extra: Partial<LabObservation> = {}): LabObservation {
  return {
    atMs: t0 + atSeconds * 1000,
    client: 'demo-free',
    kind: 'key',
    plan: 'free',
    limits: { perMinute: 60, perDay: 1000 },
    method: 'GET',
    path: '/v1/categories',
    operationId: 'listCategories',
    status,
    outcome: status === 429 ? 'limited' : 'allowed',
    forced: false,
    windowReset: false,
    ...(status === 429 ? { retryAfterSeconds: 10 } : {}),
    ...extra,
  };
}
