import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyStory, timelineInput } from './html/html-timeline.js';
import { expectOnlyOwnMarkup } from './html-markup.fixture.js';
import { renderHtmlReport } from './html-report.js';
import { sampleReport, sampleResult } from './report.fixture.js';
import type { CheckResult, ContractReport } from './report-model.js';

/** What a hostile server sends back, in every field it can reach. */
const hostile = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(2)>',
  "'><svg onload=alert(3)>",
  '</style><style>body{display:none}</style>',
  '</script><script>alert(4)</script>',
  'line\u2028separator\u2029paragraph',
  'bidi \u202eevil\u202c and \u200bzero width',
  'escape \u001b[2J and NUL \u0000',
  '<!-- comment --> <![CDATA[ x ]]> &amp; &#x3c;',
  'javascript:alert(5)',
].join(' ');

const result = (overrides: Partial<CheckResult>): CheckResult =>
  sampleResult({ id: 'x', rule: '§5.3', area: 'Authentication (§5)', durationMs: 1, ...overrides });

/** A report where every text a server can influence is hostile. */
function hostileReport(): ContractReport {
  const evidence = { request: `GET http://h/v1/${hostile}`, seq: 1, status: 401, header: hostile, detail: hostile };
  const results = [
    result({ id: `auth.${hostile}`, status: 'FAIL', title: hostile, message: hostile, evidence: [evidence] }),
    result({ id: 'rate.x', rule: '§8', status: 'SKIP', inconclusive: true, message: `deadline ${hostile}` }),
    result({ id: 'list.ok', rule: hostile, operation: hostile, area: hostile, status: 'INFO', message: hostile }),
  ];
  return sampleReport(results, {
    verdict: 'DOES NOT CONFORM',
    target: { baseUrl: `http://h/v1?${hostile}`, viaPrism: false, prismUrl: undefined },
    runId: hostile,
    stoppedBy: [hostile],
    log: [`petstore-contract: waiting 3 s for ${hostile}`],
    requestsByKey: { [hostile]: 3 },
    failureGroups: [
      {
        cause: hostile,
        signature: hostile,
        rules: ['§5.3', hostile],
        operations: [hostile],
        checks: [{ id: hostile, rule: '§5.3', title: hostile, operation: hostile }],
        evidence,
        curl: `curl -sS http://h/v1 -H 'x: ${hostile}'\nprintf '${hostile}'`,
      },
    ],
    interface: {
      document: 'docs/petstore-service-interface.md',
      local: 'docs/petstore-service-interface.md',
      web: 'https://example.test/doc.md',
      sections: { '§5.3': { heading: hostile, anchor: '5-auth"><script>alert(6)</script>' } },
      external: { [hostile]: 'javascript:alert(7)' },
    },
    requestTimeline: {
      fromMs: Date.UTC(2026, 0, 1),
      toMs: 5000,
      keys: [
        { key: hostile, announcedLimit: 2, requests: [{ atMs: 0, status: 429, code: hostile, retryAfterSeconds: 3 }] },
      ],
    },
  });
}

describe('HTML report', () => {
  it('writes everything a hostile server sent as text: no tag, handler, script URL or raw control character of its own', () => {
    const page = renderHtmlReport(hostileReport());
    expectOnlyOwnMarkup(page);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(page).toContain('&lt;/style&gt;');
    expect(page).toContain('line\\u{2028}separator');
    // The rule of another document with a script URL stays text; the section link keeps its anchor inside the href.
    expect(page).not.toContain('href="javascript:');
    expect(page).toContain('href="https://example.test/doc.md#5-auth%22%3E%3Cscript%3Ealert(6)%3C/script%3E"');
  });

  it('writes only its own markup whatever text a report holds (property)', () => {
    const texts = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(texts, texts, texts, (message, title, operation) => {
        const report = sampleReport([
          result({ status: 'FAIL', message, title, operation, evidence: [{ request: title, detail: message }] }),
        ]);
        expectOnlyOwnMarkup(renderHtmlReport(report));
      }),
      { numRuns: 30 },
    );
  }, 60_000);

  it('declares a policy that forbids every request, and names its one style sheet and script by their hashes', () => {
    const page = renderHtmlReport(hostileReport());
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1];
    expect(policy).toBeDefined();
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('unsafe-inline');
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
    expect(policy).toContain(`style-src ${hash(style)}`);
    expect(policy).toContain(`script-src ${hash(script)}`);
    // Before anything it governs; the style sheet loads nothing either.
    expect(page.indexOf('Content-Security-Policy')).toBeLessThan(page.indexOf('<style>'));
    expect(style).not.toMatch(/url\(|@import/i);
  });

  it('masks a credential left in a report by the masking step’s patterns', () => {
    const secret = 'sk-live-9f8e7d6c5b4a3210';
    const page = renderHtmlReport(
      sampleReport([
        result({
          status: 'FAIL',
          message: `echoed Authorization: Bearer ${secret}`,
          evidence: [{ request: `GET http://h/v1/categories?api_key=${secret}`, detail: `Bearer ${secret}` }],
        }),
      ]),
    );
    for (let at = 0; at + 8 <= secret.length; at += 1) expect(page).not.toContain(secret.slice(at, at + 8));
  });

  it('is the same bytes for the same report', () => {
    expect(renderHtmlReport(hostileReport())).toBe(renderHtmlReport(hostileReport()));
  });

  it('renders a report without the optional parts (an older kit, a conforming run)', () => {
    const page = renderHtmlReport(sampleReport([result({})]));
    expect(page).toContain('CONFORMS');
    expect(page).not.toContain('id="failures"');
    expect(page).not.toContain('id="rate-limits"');
    expectOnlyOwnMarkup(page);
    const stopped = renderHtmlReport(
      sampleReport([result({ status: 'SKIP', inconclusive: true, message: 'the run deadline was reached' })], {
        verdict: 'INCONCLUSIVE',
        conforms: false,
        exitCode: 3,
        stoppedBy: ['the run deadline was reached (--deadline 300 s)'],
      }),
    );
    expect(stopped).toContain(
      '<span class="verdict v-inconclusive">INCONCLUSIVE</span> <span class="muted">exit 3</span>',
    );
    expect(stopped).toContain('<dt>Stopped by</dt><dd>the run deadline was reached (--deadline 300 s)</dd>');
    expect(stopped).toContain('Checks stopped by something outside their rule');
  });

  it('tells one key’s rate-limit story in words, and draws what the lab’s renderer reads', () => {
    const key = {
      key: 'rate-limit key ref-…(15)',
      announcedLimit: 60,
      requests: [
        { atMs: 0, status: 200 },
        { atMs: 2400, status: 429, code: 'rate_limited', retryAfterSeconds: 37 },
        { atMs: 3000 },
        { atMs: 39_000, status: 429 },
      ],
    };
    expect(keyStory(key)).toBe(
      '<b>rate-limit key ref-…(15)</b>: 4 requests · X-RateLimit-Limit 60 · 2 answered 429, the first to request 2, at +2.4 s · Retry-After 37 s (1 without a usable one) · 1 without an answer',
    );
    const input = timelineInput({ fromMs: 1000, toMs: 40_000, keys: [key] });
    expect(input.to).toBe(41_000);
    expect(input.clients[0]!.limits).toEqual({ perMinute: 60, perDay: 0 });
    expect(input.clients[0]!.requests).toEqual([
      { atMs: 1000, status: 200 },
      { atMs: 3400, status: 429, code: 'rate_limited', retryAfterSeconds: 37 },
      { atMs: 40_000, status: 429 },
    ]);
  });
});
