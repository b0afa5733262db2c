import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { realSpecsFolder } from '../test/support/real-specs.js';
import { readsYamlWithJsYaml, readYamlDocumentText } from './document-yaml.js';
import { readYamlDocument } from './yaml-module.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function yamlFiles(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

describe('YAML documents read by js-yaml as yaml reads them', () => {
  it('reads with js-yaml here (the installed copy; the bins bundle it)', () => {
    expect(readsYamlWithJsYaml()).toBe(true);
  });

  it('gives the same values as yaml on the YAML files of the corpora', { timeout: 120_000 }, () => {
    // ../shared/real-specs where present: every document of set1 and set2, and every 10th file of the
    // DigitalOcean and Lichess trees (yaml takes 4 s more to read them all).
    const shared = yamlFiles(realSpecsFolder);
    const files = [
      join(root, 'spec/petstore.openapi.yaml'),
      ...yamlFiles(join(root, 'test/fixtures/specs')),
      ...shared.filter((file, index) => /set[12]\/[^/]+$/.test(file) || index % 10 === 0),
    ];
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(readYamlDocumentText(text), file).toEqual(readYamlDocument(text));
    }
  });

  it('resolves plain scalars by YAML 1.2 core schema as yaml does (differential, random scalars)', () => {
    const piece = fc.constantFrom(
      '0',
      '7',
      '10',
      '0o17',
      '0x1F',
      '0x',
      '1_000',
      '012',
      '1:30',
      '-3',
      '+4',
      '.5',
      '5.',
      '1e3',
      '-1.5E-2',
      '.inf',
      '-.Inf',
      '.NaN',
      'nan',
      'true',
      'True',
      'TRUE',
      'tRue',
      'yes',
      'no',
      'on',
      'off',
      'y',
      'null',
      'Null',
      '~',
      'NULL',
      '2020-01-01',
      '2001-12-14t21:59:43.10-05:00',
      'abc',
      '0b101',
      '1.0.0',
      '+',
      '-',
      '.',
    );
    const scalar = fc.array(piece, { minLength: 1, maxLength: 2 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(scalar, { minLength: 1, maxLength: 8 }), (scalars) => {
        const text = `values:\n${scalars.map((value, index) => `  k${index}: ${value}\n  l${index}: [${value}]`).join('\n')}\n`;
        let expected: unknown;
        try {
          expected = readYamlDocument(text);
        } catch {
          return; // not YAML for either reader (a lone '-' opens a list)
        }
        expect(readYamlDocumentText(text), text).toEqual(expected);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('builds maps keyed "200" small, refuses a key twice, and bounds what aliases expand to', () => {
    const value = readYamlDocumentText('responses:\n  "200": {description: ok}\n  "404": {description: no}\n') as {
      responses: Record<string, unknown>;
    };
    expect(value.responses).toEqual({ 200: { description: 'ok' }, 404: { description: 'no' } });
    expect(() => readYamlDocumentText('a: 1\nb: 2\na: 3\n')).toThrow(/duplicated mapping key/);
    // Shared values by alias are fine; a "billion laughs" (10 levels of 10 aliases: 10^10 nodes) is refused.
    expect(readYamlDocumentText('a: &x {b: 1}\nc: *x\n')).toEqual({ a: { b: 1 }, c: { b: 1 } });
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level <= 9; level += 1)
      levels.push(
        `l${level}: &l${level} [${Array(10)
          .fill(`*l${level - 1}`)
          .join(', ')}]`,
      );
    expect(() => readYamlDocumentText(`${levels.join('\n')}\n`)).toThrow(
      /aliases expand it to more than 2000000 nodes/,
    );
    expect(() => readYamlDocumentText('a: &a {b: *a}\n')).toThrow(/alias refers to the node it is written in/);
  });
});
