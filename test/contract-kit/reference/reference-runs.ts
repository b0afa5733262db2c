import type { ContractOptions } from '../../../contract-tests/runner/contract-options.js';
import type { ContractRun } from '../../../contract-tests/runner/run-contract.js';
import { runKit } from '../support/run-kit.js';
import type { OpenChoiceOptions } from './open-choice-petstore.js';
import { referenceKeys, startReferenceServer } from './reference-server.js';
import { createVirtualClock } from './virtual-clock.js';

/**
 * The kit's runs against the reference server that the tests and the mutation run share. Each one
 * is a situation a real run meets: a default staging run, a run that may wait windows out, a run
 * that starts a second before a minute or a day ends, a read-only run. On a virtual clock every
 * wait (a minute window, a Retry-After, a ban, a day) takes no real time.
 */
export interface ReferenceRun {
  name: string;
  /** When the run starts, on the virtual clock (UTC). */
  startsAt: string;
  options: Partial<Omit<ContractOptions, 'baseUrl' | 'apiKey' | 'clock'>>;
}

/** Budgets that let every time cell but the day's run: waits are virtual, so they cost no real time. */
const waits = { windowWaitSeconds: 2 * 86_400, maxWaitSeconds: 86_400 };
/** And the day's too: about a thousand more requests of the rate-limit key. */
const wholeDay = { ...waits, maxRequests: 3_000 };

export const referenceRuns: readonly ReferenceRun[] = [
  { name: 'a default run (no waiting on purpose)', startsAt: '2026-03-02T10:00:20.000Z', options: {} },
  { name: 'a run that may wait windows out and spend a day', startsAt: '2026-03-02T10:00:20.000Z', options: wholeDay },
  { name: 'a run that starts in the last second of a minute', startsAt: '2026-03-02T10:00:59.500Z', options: waits },
  {
    name: 'a run that starts in the last second of a UTC day',
    startsAt: '2026-03-02T23:59:59.500Z',
    options: wholeDay,
  },
  { name: 'a read-only run', startsAt: '2026-03-02T10:00:20.000Z', options: { ...waits, readOnly: true } },
];

/**
 * Starts a fresh reference server on a virtual clock, runs the kit against it and stops the
 * server (making `choices` differently, when given). With `stopAtFirstFailure` the run is cancelled at its first FAIL (for mutation testing:
 * one failure kills the mutant, the rest of the run would only cost time).
 *
 * @example const { run } = await runAgainstReference(referenceRuns[0]!);
 */
export async function runAgainstReference(
  scenario: ReferenceRun,
  options: { stopAtFirstFailure?: boolean; followRealTime?: boolean; choices?: OpenChoiceOptions } = {},
): Promise<{ run: ContractRun & { log: string[] }; firstFailure: string | undefined }> {
  const clock = createVirtualClock({
    startMs: Date.parse(scenario.startsAt),
    followRealTime: options.followRealTime ?? false,
  });
  const server = await startReferenceServer({
    clock,
    ...(options.choices === undefined ? {} : { choices: options.choices }),
  });
  const cancel = new AbortController();
  let firstFailure: string | undefined;
  try {
    const run = await runKit({
      baseUrl: server.baseUrl,
      apiKey: referenceKeys.main,
      rateLimitKey: referenceKeys.limited,
      clock,
      timeoutSeconds: 2,
      ...scenario.options,
      signal: cancel.signal,
      onResult: (result) => {
        if (result.status !== 'FAIL' || firstFailure !== undefined) return;
        firstFailure = `${result.id}: ${result.message ?? ''}`;
        if (options.stopAtFirstFailure === true) cancel.abort();
      },
    });
    return { run, firstFailure };
  } finally {
    await server.close();
  }
}
