import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as yaml from 'yaml';
import { realSpecs } from '../test/support/real-specs.js';
import { defaultSpecPath } from './load-spec.js';
import { operationLine } from './operation-line.js';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation's method-key line as the yaml library's syntax tree places it (what the scan must equal). */
function linesByTree(text: string): { path: string; method: string; line: number }[] {
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter, uniqueKeys: false });
  const paths = document.get('paths') as
    | yaml.YAMLMap<yaml.Scalar<string>, yaml.YAMLMap<yaml.Scalar<string>>>
    | undefined;
  return (paths?.items ?? []).flatMap((pathPair) =>
    (yaml.isMap(pathPair.value) ? pathPair.value.items : [])
      .filter((pair) => methods.includes(String(pair.key.value)))
      .map((pair) => ({
        path: String(pathPair.key.value),
        method: String(pair.key.value),
        // An operation in a flow mapping on its path's line is placed on that line.
        line: lineCounter.linePos((pathPair.value!.flow ? pathPair.key : pair.key).range![0]).line,
      })),
  );
}

const yamlDocuments = [
  defaultSpecPath,
  ...realSpecs()
    .map((spec) => spec.file)
    .filter((file) => /\.ya?ml$/.test(file)),
];

describe('operationLine', () => {
  it.each(yamlDocuments)('finds each operation of %s on the line its syntax tree says', { timeout: 60_000 }, (file) => {
    const text = readFileSync(file, 'utf8');
    const expected = linesByTree(text);
    // Documents without paths (webhooks only) or whose path items are other files (Lichess) have none here.
    if (file === defaultSpecPath) expect(expected.length).toBeGreaterThan(3);
    for (const { path, method, line } of expected)
      expect(operationLine(text, path, method.toUpperCase()), `${method} ${path}`).toBe(line);
  });

  it('reads JSON, quoted YAML keys, flow mappings, and says undefined for what is not there', () => {
    const json = JSON.stringify(
      { openapi: '3.1.0', paths: { '/a': { get: {}, post: {} }, '/b': { get: {} } } },
      null,
      2,
    );
    expect(operationLine(json, '/a', 'POST')).toBe(json.split('\n').findIndex((line) => line.includes('"post"')) + 1);
    expect(operationLine(json, '/b', 'GET')).toBe(json.split('\n').findIndex((line) => line.includes('"/b"')) + 1 + 1);
    const text =
      'openapi: 3.1.0\npaths:\n  \'/a\': {get: {}}\n  "/b":\n    # note\n    get:\n      responses: {}\n  /c:\n    post: {}\ncomponents: {}\n';
    expect(operationLine(text, '/a', 'GET')).toBe(3);
    expect(operationLine(text, '/b', 'GET')).toBe(6);
    expect(operationLine(text, '/c', 'POST')).toBe(9);
    expect(operationLine(text, '/c', 'GET')).toBe(8);
    expect(operationLine(text, '/d', 'GET')).toBeUndefined();
  });
});
