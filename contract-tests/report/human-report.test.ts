import { describe, expect, it } from 'vitest';
import { renderHumanReport } from './human-report.js';
import { renderMarkdownReport } from './markdown-report.js';
import { sampleReport, sampleResult } from './report.fixture.js';
import type { CheckResult, ContractReport } from './report-model.js';

const links: NonNullable<ContractReport['interface']> = {
  document: 'docs/petstore-service-interface.md',
  local: 'node_modules/petstore-kit/docs/petstore-service-interface.md',
  web: 'https://github.com/petstore-kit/petstore-kit/blob/v0.1.0/docs/petstore-service-interface.md',
  sections: {
    '§5.3': { heading: '5. Authentication', anchor: '5-authentication' },
    '§5.1': { heading: '5. Authentication', anchor: '5-authentication' },
    '§4 listCategories': { heading: 'listCategories', anchor: 'listcategories' },
  },
};
const probe = (operation: string, title: string, seq: number): CheckResult =>
  sampleResult({
    id: `auth.${title}:${operation}`,
    rule: '§5.3',
    title: `${title} -> 401 + Error`,
    operation,
    area: 'Authentication (§5)',
    status: 'FAIL',
    message: 'the 401 body is not a JSON Error',
    evidence: [
      {
        request: `GET http://h/v1${operation.split(' ')[1]} [no Authorization]`,
        seq,
        status: 401,
        detail: 'body is not JSON: (empty body)',
      },
    ],
  });
const results = [
  sampleResult({}),
  probe('GET /categories', 'missing Authorization', 1),
  probe('GET /store/orders', 'missing Authorization', 2),
  probe('GET /categories', 'invalid key', 3),
];
const report = sampleReport(results, {
  verdict: 'DOES NOT CONFORM',
  interface: links,
  failureGroups: [
    {
      cause: 'the 401 body is not a JSON Error',
      signature: 'the 401 body is not a JSON Error',
      rules: ['§5.3'],
      operations: ['GET /categories', 'GET /store/orders'],
      checks: results.slice(1).map(({ id, rule, title, operation }) => ({ id, rule, title, operation })),
      evidence: results[1]!.evidence[0],
      curl: "curl -sS -i -g --path-as-is http://h/v1/categories -H 'accept: application/json'",
    },
  ],
});

describe('human report', () => {
  it('lists every check, then the failures by cause with the operations, evidence and a curl, a legend of rule links and the verdict', () => {
    const text = renderHumanReport(report);
    expect(text).toMatch(/^ {2}FAIL {2}§5\.3 +missing Authorization -> 401 \+ Error \[GET \/categories\]$/m);
    expect(text).toContain(
      [
        'Failures by cause: 1 cause, 3 failed checks',
        '  1. FAIL the 401 body is not a JSON Error · 3 checks · §5.3',
        '       GET /categories (2): missing Authorization; invalid key',
        '       GET /store/orders: missing Authorization',
        '       evidence: GET http://h/v1/categories [no Authorization] -> 401: body is not JSON: (empty body)',
        "       reproduce: curl -sS -i -g --path-as-is http://h/v1/categories -H 'accept: application/json'",
      ].join('\n'),
    );
    expect(text).toContain(
      'Rules, by section of the interface document (docs/petstore-service-interface.md):\n  §4 listCategories: listCategories, node_modules/petstore-kit/docs/petstore-service-interface.md#listcategories\n  §5.3: 5. Authentication, node_modules/petstore-kit/docs/petstore-service-interface.md#5-authentication',
    );
    expect(text.trimEnd().split('\n').at(-1)).toBe('Verdict: DOES NOT CONFORM: 3 required check(s) failed (exit 1)');
  });

  it('without the check list (the live lines already showed them) keeps the failures by cause, the matrix and the verdict', () => {
    const text = renderHumanReport(report, { listChecks: false });
    expect(text).not.toMatch(/^ {2}(PASS|FAIL) {2}/m);
    expect(text).toContain('Failures by cause: 1 cause, 3 failed checks');
    expect(text).toContain('Coverage (rule x operation)');
    expect(text).toContain('Verdict: DOES NOT CONFORM');
  });

  it('groups the failures itself when a report carries no groups (an older JSON report)', () => {
    const { failureGroups: _groups, interface: _links, ...older } = report;
    expect(renderHumanReport(older)).toContain('  1. FAIL the 401 body is not a JSON Error · 3 checks · §5.3');
  });
});

describe('Markdown report', () => {
  it('links rule ids to the interface document on the web, groups failures by cause with the curl in a code block', () => {
    const text = renderMarkdownReport(report);
    expect(text).toContain(`| [§5.3](${links.web}#5-authentication) | FAIL 2 |`);
    expect(text).toContain('#### 1. the 401 body is not a JSON Error');
    expect(text).toContain(`3 failed checks · [§5.3](${links.web}#5-authentication)`);
    expect(text).toContain('- GET /categories: missing Authorization; invalid key');
    expect(text).toContain(
      "```sh\ncurl -sS -i -g --path-as-is http://h/v1/categories -H 'accept: application/json'\n```",
    );
  });

  it('fences a curl holding backticks with a longer fence', () => {
    const tricky = sampleReport(report.results, {
      failureGroups: [{ ...report.failureGroups![0]!, curl: "curl --data-binary '```sh'" }],
    });
    expect(renderMarkdownReport(tricky)).toContain("````sh\ncurl --data-binary '```sh'\n````");
  });
});
