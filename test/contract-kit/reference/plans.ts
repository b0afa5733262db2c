/**
 * The request limits of interface section 8, by plan. Enterprise quotas are "agreed
 * individually"; the reference server gives its enterprise keys the numbers below.
 */
export interface Plan {
  perMinute: number;
  perDay: number;
}

export const plans = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: { perMinute: 5_000, perDay: 1_000_000 },
} as const satisfies Record<string, Plan>;

/**
 * What a client without a valid key may send, per address: enough for a contract run's
 * authentication probes, few enough that a flood of 401s is refused too.
 */
export const anonymousPlan: Plan = { perMinute: 120, perDay: 2_000 };
