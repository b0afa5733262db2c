/**
 * Interface section 8, "Request limits by plan": the one plan table the mock serves, the kit judges
 * by and the judging proxy reads. Enterprise quotas are agreed individually ("custom"), so it has no
 * numbers here: a server chooses them.
 */
export const interfacePlans = [
  { name: 'Free', perMinute: 60, perDay: 1_000 },
  { name: 'Pro', perMinute: 300, perDay: 10_000 },
  { name: 'Business', perMinute: 1_000, perDay: 100_000 },
] as const;

/** The plans whose quotas the interface leaves to an agreement (section 8.4). */
export const customPlans = ['Enterprise'] as const;

export type InterfacePlan = (typeof interfacePlans)[number];

/**
 * The plan a per-minute limit names, where that number names one plan and one window: a key whose
 * X-RateLimit-Limit is 60 is on the Free plan's minute window, so its day allows 1,000. (1,000 is
 * both Business's minute and Free's day, so it names neither.)
 *
 * @example planOfMinuteLimit(60) // { name: 'Free', perMinute: 60, perDay: 1000 }
 */
export function planOfMinuteLimit(limit: number | undefined): InterfacePlan | undefined {
  return interfacePlans.find(
    (plan) => plan.perMinute === limit && !interfacePlans.some((other) => other.perDay === limit),
  );
}

/** The per-minute limits that no plan also has as a day limit: a key reporting one is on a minute window. */
export const minuteLimits: ReadonlySet<number> = new Set<number>(
  interfacePlans
    .filter((plan) => !interfacePlans.some((other) => other.perDay === plan.perMinute))
    .map((plan) => plan.perMinute),
);
