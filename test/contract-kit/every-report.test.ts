import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonReport } from '../../contract-tests/report/report-schema.js';
import { sarifValidator } from '../support/sarif-schema.js';
import { type FakePetstore, fakeKeys, startFakePetstore } from './support/fake-petstore.js';
import { runCli } from './support/run-cli.js';

// Issue 41's "done when": one run against a broken server writes all six formats, each read by its own
// reader. The HTML page is proven in Chromium by the html-report tests; here it is checked as text.

const root = join(import.meta.dirname, '../..');

describe('one run, every report', () => {
  let broken: FakePetstore;
  let dir: string;
  let run: Awaited<ReturnType<typeof runCli>>;
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    broken = await startFakePetstore({ faults: ['unauthorized-without-error-body', 'reset-in-milliseconds'] });
    dir = await mkdtemp(join(tmpdir(), 'contract-every-report-'));
    run = await runCli([
      '--base-url',
      broken.baseUrl,
      '--api-key',
      fakeKeys.main,
      '--report',
      'markdown=-',
      ...['human=report.txt', 'json=report.json', 'junit=report.xml', 'html=report.html', 'sarif=report.sarif'].map(
        (target) => `--report=${target.replace('=', `=${dir}/`)}`,
      ),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([broken?.close(), dir === undefined ? undefined : rm(dir, { recursive: true, force: true })]);
  });

  it('exits 1, prints the Markdown on stdout and says where each file went', () => {
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^## ❌ petstore-contract: DOES NOT CONFORM \(exit 1\)/);
    for (const name of ['report.txt', 'report.json', 'report.xml', 'report.html', 'report.sarif'])
      expect(run.stderr).toContain(`written to ${file(name)}`);
  });

  it('every file is of the same run: one run id, one set of failures', async () => {
    const json = JSON.parse(await readFile(file('report.json'), 'utf8'));
    // The report's own schema reads it whole: every field the run wrote is one it declares.
    expect(parseJsonReport(await readFile(file('report.json'), 'utf8'))).toEqual(json);
    expect(json.verdict).toBe('DOES NOT CONFORM');
    expect(json.summary.FAIL).toBeGreaterThan(1);
    expect(await readFile(file('report.txt'), 'utf8')).toContain(json.runId);
    expect(run.stdout).toContain(json.runId);
    expect(await readFile(file('report.html'), 'utf8')).toContain(json.runId);
    const xml = await readFile(file('report.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const junit = new XMLParser({ ignoreAttributes: false }).parse(xml);
    expect(Number(junit.testsuites['@_failures'])).toBe(json.summary.FAIL);
    expect(Number(junit.testsuites['@_tests'])).toBe(json.summary.total);
    const sarif = JSON.parse(await readFile(file('report.sarif'), 'utf8'));
    expect(sarif.runs[0].automationDetails.id).toBe(`petstore-contract/${json.runId}`);
    expect(sarif.runs[0].results.filter((result: { level: string }) => result.level === 'error')).toHaveLength(
      json.summary.FAIL,
    );
  });

  it('the SARIF log is valid against the SARIF 2.1.0 schema and points into the shipped YAML', async (context) => {
    const sarif = JSON.parse(await readFile(file('report.sarif'), 'utf8'));
    // run-cli.ts runs the kit in the repository's root: the document is spec/petstore.openapi.yaml there.
    expect(sarif.runs[0].artifacts[0].location).toEqual({ uri: 'spec/petstore.openapi.yaml', uriBaseId: '%SRCROOT%' });
    expect(relative(root, join(root, sarif.runs[0].artifacts[0].location.uri))).toBe('spec/petstore.openapi.yaml');
    const yamlLines = (await readFile(join(root, 'spec/petstore.openapi.yaml'), 'utf8')).split('\n');
    const unauthorized = sarif.runs[0].results.find(
      (result: { ruleId: string }) => result.ruleId === 'auth.missing-key',
    );
    expect(yamlLines[unauthorized.locations[0].physicalLocation.region.startLine - 1]).toMatch(/^\s+'401':/);
    const validator = sarifValidator();
    if (typeof validator === 'string') return context.skip(validator);
    expect(validator(sarif)).toEqual([]);
  });

  it('the HTML page is one self-contained HTML5 document', async () => {
    const page = await readFile(file('report.html'), 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('DOES NOT CONFORM');
    expect(page).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
  });
});
