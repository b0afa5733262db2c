import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleCatalogue } from '../../spec/interface/catalogue.js';
import { defaultSpecPath } from '../../spec/load-spec.js';
import { loadYamlModule } from '../../spec/yaml-module.js';
import { sarifValidator } from '../../test/support/sarif-schema.js';
import { documentLines, operationOfRequest } from './openapi-lines.js';
import { sampleReport, sampleResult } from './report.fixture.js';
import { renderSarifFile, renderSarifReport, shippedSpecFile } from './sarif-report.js';

const documentText = `openapi: 3.1.0
info: { title: T, version: '1' }
paths:
  /pets/{petId}:
    get:
      responses:
        200:
          description: ok
        4XX:
          description: client error
  /pets/mine:
    get:
      responses:
        '200': { description: ok }
        default: { description: error }
`;

const failures = [
  sampleResult({
    id: 'auth.missing-key:getPet',
    rule: '§5.3',
    title: 'missing Authorization -> 401 + Error',
    operation: 'GET /pets/{petId}',
    status: 'FAIL',
    message: 'the 401 body is not a JSON Error',
    evidence: [{ request: 'GET http://h/v1/pets/10 [no Authorization]', status: 401, detail: 'body is not JSON' }],
  }),
  sampleResult({
    id: 'every.error-shape',
    rule: '§7',
    title: 'every error response (except 429) is a JSON Error {code, message, status}',
    operation: undefined,
    status: 'FAIL',
    message: '2 of 9 error responses are not JSON Error objects',
    evidence: [
      { request: 'GET http://h/v1/pets/mine [no Authorization]', status: 401, detail: '401 body is not JSON' },
      {
        request: 'GET http://h/v1/pets/7 [Authorization: Bearer demo…(8)]',
        status: 404,
        detail: '404 body is not JSON',
      },
    ],
  }),
  sampleResult({ id: 'list.ok', status: 'PASS' }),
  sampleResult({ id: 'beta.thing:getPet', status: 'WARN', operation: 'GET /nowhere', message: 'experimental' }),
];

async function render(results = failures) {
  const lines = documentLines(documentText, await loadYamlModule());
  return JSON.parse(
    renderSarifReport(
      sampleReport(results),
      { uri: 'api/openapi.yaml', uriBaseId: '%SRCROOT%', lines },
      { cwd: '/repo' },
    ),
  );
}

describe('SARIF report', () => {
  it('has one reporting rule per catalogue rule, then one per kind of check of the run', async () => {
    const rules = (await render()).runs[0].tool.driver.rules as { id: string; shortDescription: { text: string } }[];
    expect(rules.slice(0, ruleCatalogue.length).map((rule) => rule.id)).toEqual(ruleCatalogue.map((rule) => rule.id));
    expect(rules.slice(ruleCatalogue.length).map((rule) => rule.id)).toEqual([
      'auth.missing-key',
      'list.ok',
      'beta.thing',
    ]);
    expect(rules[0]!.shortDescription.text).toBe(ruleCatalogue[0]!.title);
  });

  it('has one result per failed check (WARN as a warning), its evidence the message, at the response it judges', async () => {
    const run = (await render()).runs[0];
    expect(run.results.map((result: { ruleId: string; level: string }) => [result.ruleId, result.level])).toEqual([
      ['auth.missing-key', 'error'],
      ['every.error-shape', 'error'],
      ['beta.thing', 'warning'],
    ]);
    const [auth, shape, beta] = run.results;
    expect(auth.message.text).toBe(
      'missing Authorization -> 401 + Error [GET /pets/{petId}]: the 401 body is not a JSON Error\nEvidence: GET http://h/v1/pets/10 [no Authorization] -> 401: body is not JSON',
    );
    // 401 falls on the 4XX response of GET /pets/{petId} (line 9).
    expect(auth.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'api/openapi.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 9 },
    });
    expect(auth.locations[0].logicalLocations).toEqual([{ name: 'GET /pets/{petId}', kind: 'function' }]);
    // A rule over every response: located at its first evidence (the literal path wins, its default response),
    // the others as related locations.
    expect(shape.locations[0].physicalLocation.region.startLine).toBe(15);
    expect(shape.relatedLocations).toHaveLength(1);
    expect(shape.relatedLocations[0].physicalLocation.region.startLine).toBe(9);
    expect(shape.relatedLocations[0].message.text).toContain('404 body is not JSON');
    // Nowhere in the document: at paths:.
    expect(beta.locations[0].physicalLocation.region.startLine).toBe(3);
    expect(auth.partialFingerprints).toEqual({ 'petstoreContractCheck/v1': 'auth.missing-key:getPet' });
  });

  it('links each rule to its section of the interface document when the report has the links', async () => {
    const markdown = await readFile(join(import.meta.dirname, '../../docs/petstore-service-interface.md'), 'utf8');
    const lines = documentLines(documentText, await loadYamlModule());
    const log = JSON.parse(
      renderSarifReport(
        sampleReport(failures),
        { uri: 'a.yaml', uriBaseId: '%SRCROOT%', lines },
        { cwd: '/', interfaceMarkdown: markdown },
      ),
    );
    const rule = log.runs[0].tool.driver.rules.find((entry: { id: string }) => entry.id === 'auth.missing-key');
    expect(rule.helpUri).toMatch(
      /^https:\/\/github\.com\/petstore-kit\/petstore-kit\/blob\/v0\.1\.0\/docs\/petstore-service-interface\.md#5-/,
    );
  });

  it("points the kit's own interface at the shipped YAML, relative to the working directory", async () => {
    const report = sampleReport(failures, { spec: { path: defaultSpecPath, title: 'Petstore', version: '1' } });
    const log = JSON.parse(await renderSarifFile(report, join(import.meta.dirname, '../..')));
    const location = log.runs[0].results[0].locations[0].physicalLocation;
    expect(location.artifactLocation).toEqual({ uri: 'spec/petstore.openapi.yaml', uriBaseId: '%SRCROOT%' });
    // GET /pets/{petId}'s 401 response in the shipped YAML.
    const yamlLines = (await readFile(shippedSpecFile, 'utf8')).split('\n');
    expect(yamlLines[location.region.startLine - 1]).toMatch(/^\s+'?401'?:/);
    // Outside the working directory: the kit's repository at its version, no path of this machine.
    const outside = JSON.parse(await renderSarifFile(report, '/nonexistent-dir'));
    expect(outside.runs[0].artifacts[0].location).toEqual({
      uri: 'spec/petstore.openapi.yaml',
      uriBaseId: 'PETSTOREKIT',
    });
    expect(outside.runs[0].originalUriBaseIds.PETSTOREKIT.uri).toBe(
      'https://github.com/petstore-kit/petstore-kit/blob/v0.1.0/',
    );
    expect(JSON.stringify(outside)).not.toContain(join(import.meta.dirname, '../..'));
  });

  it('locates a --spec path with spaces, #, %, unicode or .. as a valid URI reference, and never writes a path outside the working directory', async (context) => {
    const validator = sarifValidator();
    if (typeof validator === 'string') return context.skip(validator);
    const cwd = await mkdtemp(join(tmpdir(), 'sarif-cwd-'));
    const outside = await mkdtemp(join(tmpdir(), 'sarif-secret-home-'));
    try {
      await mkdir(join(cwd, 'my specs'));
      const cases: [string, string, string][] = [
        ['my specs/a #1 100%.yaml', 'my%20specs/a%20%231%20100%25.yaml', '%SRCROOT%'],
        ['my specs/ünï ✓?.yaml', 'my%20specs/%C3%BCn%C3%AF%20%E2%9C%93%3F.yaml', '%SRCROOT%'],
        ['./my specs/../x.yaml', 'x.yaml', '%SRCROOT%'],
        [join(outside, 'api.yaml'), 'api.yaml', 'SPECDIR'],
        [`../${basename(outside)}/api.yaml`, 'api.yaml', 'SPECDIR'],
      ];
      for (const [path, uri, uriBaseId] of cases) {
        await writeFile(resolve(cwd, path), documentText).catch(() => undefined);
        const report = sampleReport(failures, { spec: { path, title: 'T', version: '1' } });
        const log = JSON.parse(await renderSarifFile(report, cwd));
        expect(validator(log), path).toEqual([]);
        expect(log.runs[0].artifacts[0].location, path).toEqual({
          uri: encodeURI(decodeURI(uri)) === uri ? uri : uri,
          uriBaseId,
        });
        expect(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe(uri);
        expect(JSON.stringify(log), path).not.toContain(outside);
      }
    } finally {
      await Promise.all([rm(cwd, { recursive: true, force: true }), rm(outside, { recursive: true, force: true })]);
    }
  });

  it('is valid against the SARIF 2.1.0 schema', async (context) => {
    const validator = sarifValidator();
    if (typeof validator === 'string') return context.skip(validator);
    expect(validator(await render())).toEqual([]);
    const report = sampleReport(failures, { spec: { path: defaultSpecPath, title: 'Petstore', version: '1' } });
    expect(validator(JSON.parse(await renderSarifFile(report, process.cwd())))).toEqual([]);
  });
});

describe('documentLines', () => {
  it('finds operations and responses in JSON text as in YAML', async () => {
    const json =
      '{\n  "paths": {\n    "/a": {\n      "post": {\n        "responses": {\n          "201": {}\n        }\n      }\n    }\n  }\n}\n';
    const lines = documentLines(json, await loadYamlModule());
    expect(lines.paths).toBe(2);
    expect(lines.operations.get('POST /a')).toEqual({ line: 4, responses: new Map([['201', 6]]) });
    expect(operationOfRequest(lines, 'POST', '/a')).toBe('POST /a');
    expect(operationOfRequest(lines, 'GET', '/a')).toBeUndefined();
  });

  it('gives no operations for a text that is no mapping', async () => {
    expect(documentLines('- a\n- b\n', await loadYamlModule()).operations.size).toBe(0);
  });
});
