import { describe, expect, it } from 'vitest';
import { deriveBodyCases } from './coverage-cases.js';

const newCategory = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' } } };
const name = (label: string) => `contract-test-ab12-${label}`;

describe('deriveBodyCases', () => {
  it('derives every family from the schema, not from field names', () => {
    const cases = deriveBodyCases(newCategory, name);
    const labels = cases.map((entry) => entry.label);
    expect(labels).toContain('name: absent (required)');
    expect(labels).toContain('description: absent (optional)');
    for (const property of ['name', 'description']) {
      for (const type of ['null', 'integer', 'non-integer number', 'boolean', 'array', 'object']) expect(labels).toContain(`${property}: ${type}`);
      for (const boundary of ['empty string', 'non-ASCII (accents, CJK)', 'emoji (surrogate pairs, ZWJ sequence)', 'right-to-left text', 'control characters (tab, newline, U+0001)']) expect(labels).toContain(`${property}: ${boundary}`);
    }
    expect(labels.filter((label) => label.startsWith('body: '))).toHaveLength(10);
    expect(labels).toContain('media type: application/json; charset=utf-8');
    expect(cases.find((entry) => entry.label === 'name: boolean')).toMatchObject({ expect: 'reject', body: { kind: 'json', value: { name: true } } });
    expect(cases.find((entry) => entry.label === 'name: empty string')).toMatchObject({ expect: 'accept', echo: { name: '' } });
    expect(cases.find((entry) => entry.label.startsWith('name: very long'))?.expect).toBe('open');
  });

  it('works for any properties and types, and respects enum, bounds and lengths', () => {
    const schema = { type: 'object', required: ['count', 'kind'], properties: { count: { type: 'integer', minimum: 0, maximum: 10 }, kind: { type: 'string', enum: ['a', 'b'] }, ratio: { type: 'number' }, tag: { type: 'string', minLength: 2, maxLength: 40 } } };
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
    expect(cases.find((entry) => entry.label === 'kind: absent (required)')?.body).toEqual({ kind: 'json', value: { count: 0, tag: 'contract-test-ab12-no-kind-tag' } });
  });
});
