import { describe, expect, it } from 'vitest';
import { deriveBodyCases } from './coverage-cases.js';

const newCategory = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, description: { type: 'string' } },
};
const name = (label: string) => `contract-test-ab12-${label}`;

describe('deriveBodyCases', () => {
  it('derives every family from the schema, not from field names', () => {
    const cases = deriveBodyCases(newCategory, name);
    const labels = cases.map((entry) => entry.label);
    expect(labels).toContain('name: absent (required)');
    expect(labels).toContain('description: absent (optional)');
    for (const property of ['name', 'description']) {
      for (const type of ['null', 'integer', 'non-integer number', 'boolean', 'array', 'object'])
        expect(labels).toContain(`${property}: ${type}`);
      for (const boundary of [
        'empty string',
        'non-ASCII (accents, CJK)',
        'emoji (surrogate pairs, ZWJ sequence)',
        'right-to-left text',
        'control characters (tab, newline, U+0001)',
      ])
        expect(labels).toContain(`${property}: ${boundary}`);
    }
    // 10 shapes, 7 near-JSON texts, and 3 raw bodies (BOM, whitespace everywhere, an unknown property).
    expect(labels.filter((label) => label.startsWith('body: '))).toHaveLength(20);
    expect(labels).toContain('media type: application/json; charset=utf-8');
    expect(cases.find((entry) => entry.label === 'name: boolean')).toMatchObject({
      expect: 'reject',
      body: { kind: 'json', value: { name: true } },
    });
    // Whether a blank name is valid is open (issue 39): refused or stored, both conform.
    expect(cases.find((entry) => entry.label === 'name: empty string')).toMatchObject({
      expect: 'open',
      echo: { name: '' },
    });
    expect(cases.find((entry) => entry.label.startsWith('name: very long'))?.expect).toBe('open');
  });

  it('writes what JSON.stringify cannot: escaped and re-cased names, a name twice, invalid UTF-8, near-JSON', () => {
    const cases = deriveBodyCases(newCategory, name);
    const byLabel = (start: string) => cases.find((entry) => entry.label.startsWith(start))!;
    const escaped = byLabel('name: property name spelled with an escape');
    expect(escaped).toMatchObject({ family: 'raw-json', expect: 'accept' });
    expect(JSON.parse((escaped.body as { text: string }).text)).toEqual(escaped.echo);
    expect((escaped.body as { text: string }).text).toContain('"\\u006eame"');
    expect(byLabel('name: only as "Name"')).toMatchObject({ expect: 'reject' });
    const twice = byLabel('name: the property twice');
    expect((twice.body as { text: string }).text.match(/"name":/g)).toHaveLength(2);
    expect(twice.echoOneOf?.values).toHaveLength(2);
    const invalid = byLabel('name: bytes that are not UTF-8');
    const bytes = (invalid.body as { bytes: Uint8Array }).bytes;
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    expect(JSON.parse(new TextDecoder('utf-8').decode(bytes))).toEqual(invalid.echo);
    for (const entry of cases.filter((candidate) => candidate.label.startsWith('body: near-JSON'))) {
      expect(() => JSON.parse((entry.body as { text: string }).text), entry.label).toThrow();
      expect(entry.expect).toBe('reject');
    }
    expect(byLabel('media type: Application/JSON')).toMatchObject({
      expect: 'accept',
      contentType: 'Application/JSON',
    });
  });

  it('works for any properties and types, and respects enum, bounds and lengths', () => {
    const schema = {
      type: 'object',
      required: ['count', 'kind'],
      properties: {
        count: { type: 'integer', minimum: 0, maximum: 10 },
        kind: { type: 'string', enum: ['a', 'b'] },
        ratio: { type: 'number' },
        tag: { type: 'string', minLength: 2, maxLength: 40 },
      },
    };
    const cases = deriveBodyCases(schema, name);
    const labels = cases.map((entry) => entry.label);
    expect(labels).toContain('count: non-integer number');
    expect(labels).toContain('count: string');
    expect(labels).not.toContain('count: integer');
    expect(labels).toContain('count: zero');
    expect(labels).not.toContain('count: negative');
    // An integer is a number: not a wrong type for `ratio`.
    expect(labels).not.toContain('ratio: integer');
    expect(labels).not.toContain('kind: empty string');
    expect(labels).not.toContain('tag: empty string');
    expect(labels).toContain('tag: very long string (40 characters)');
    expect(cases.find((entry) => entry.label === 'kind: absent (required)')?.body).toEqual({
      kind: 'json',
      value: { count: 0, tag: 'contract-test-ab12-no-kind-tag' },
    });
  });
});
