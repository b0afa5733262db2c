import { describe, expect, it } from 'vitest';
import { expectOnlyOwnMarkup } from '../../contract-tests/report/html-markup.fixture.js';
import { renderHtmlReport } from '../../contract-tests/report/html-report.js';
import { brokenRunReport } from '../support/broken-run-report.js';

// The HTML report of a real run (test/support/broken-run-report.ts); the browser's view of the same
// run is test/browser/contract-html-report.test.ts.
describe('HTML report of a real run against a broken, hostile server', () => {
  it('shows the verdict, the failures with evidence and curl, the matrix, the unafforded cells and the timeline, and never a key', async () => {
    const { report, keys } = await brokenRunReport();
    const page = renderHtmlReport(report);
    expectOnlyOwnMarkup(page);
    expect(page).toContain('DOES NOT CONFORM');
    expect(page).toContain('the 401 body is not a JSON Error');
    expect(page).toMatch(/<pre id="curl-1">curl -sS -i/);
    expect(page).toContain('Rule x operation');
    expect(page).toContain('INCONCLUSIVE');
    expect(page).toMatch(/--thorough[^<]* would check it/);
    expect(page).toMatch(/href="https:\/\/github\.com\/petstore-kit\/petstore-kit\/blob\/v[^"]+#5-/);
    expect(page).toMatch(/<section id="rate-limits"[\s\S]*<svg /);
    expect(report.requestTimeline?.keys.map((key) => key.key)).toEqual([
      'main key ref-…(12)',
      'no key (auth probes)',
      'rate-limit key ref-…(15)',
    ]);
    // The hostile 401 echoed every key the probes sent (and near misses of them): no 8 characters of a key remain.
    for (const key of keys)
      for (let at = 0; at + 8 <= key.length; at += 1) expect(page.toLowerCase()).not.toContain(key.slice(at, at + 8));
  }, 120_000);
});
