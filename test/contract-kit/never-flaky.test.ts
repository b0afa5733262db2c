import { describe, expect, it } from 'vitest';
import { runAgainstReference } from './reference/reference-runs.js';

/**
 * Never a flaky verdict: a correct server gets CONFORMS on every run, wherever in its windows the
 * run happens to start. The reference server's windows are calendar minutes and days, so a run
 * that starts in the last second of a minute measures across a reset; the kit must take such a
 * measurement again rather than end INCONCLUSIVE. The clock is virtual but follows real time, so
 * the minute ends during the run as it would on a real server, without waiting for a real minute.
 * (200 runs in a row: `npx tsx test/contract-kit/support/flake-runs.ts`, reported in
 * test/contract-kit/surviving-mutants.md.)
 */
describe('the kit never gives a flaky verdict', () => {
  it('20 runs in a row, each starting in the last second of a minute (and the first at the end of a UTC day): 20 CONFORMS', async () => {
    const verdicts: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      // 59.000 to 59.950: every millisecond offset class of the last second, the first run also the day's last second.
      const minute = index === 0 ? '2026-03-02T23:59' : `2026-03-02T10:${String(10 + index).padStart(2, '0')}`;
      const startsAt = `${minute}:59.${String(index * 50).padStart(3, '0')}Z`;
      const { run } = await runAgainstReference(
        { name: `run ${index + 1}`, startsAt, options: { propertyRuns: 3 } },
        { followRealTime: true },
      );
      const stopped = run.report.results
        .filter((result) => result.inconclusive || result.status === 'FAIL')
        .map((result) => `${result.id}: ${result.message}`);
      verdicts.push(`${startsAt} ${run.report.verdict}${stopped.length === 0 ? '' : ` (${stopped.join('; ')})`}`);
    }
    expect(verdicts.filter((verdict) => !verdict.includes(' CONFORMS'))).toEqual([]);
  });
});
