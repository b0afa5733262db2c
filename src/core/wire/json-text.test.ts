import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordWithIdJson } from './json-text.js';

const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/** What recordWithIdJson must equal, text and bytes. */
function expected(id: number, fields: Record<string, unknown>) {
  const json = JSON.stringify({ id, ...fields });
  return { json, bytes: utf8Bytes(json) };
}

describe('recordWithIdJson', () => {
  it('writes what JSON.stringify({ id, ...fields }) writes, with its UTF-8 bytes, for any record of primitives', () => {
    // Strings of every kind: ASCII, quotes and backslashes, control characters, non-ASCII, lone surrogates.
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\u007f', '\u2028', '\ud83d', 'x\udc15', '\ud83d\udc15'));
    const value = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY));
    // Keys too: integer-like ones (ordered first), ones that need escaping, and "id".
    const key = fc.oneof(fc.string(), fc.constantFrom('name', 'description', '0', '10', '2', 'id', '"', '\u00e9', '__proto__'));
    fc.assert(
      fc.property(fc.nat(), fc.dictionary(key, value, { maxKeys: 6 }), (id, fields) => {
        expect(recordWithIdJson(id, fields)).toEqual(expected(id, fields));
      }),
      { numRuns: 1_000 },
    );
    // A thousand records of every kind: about two seconds, more on a busy machine.
  }, 30_000);

  it("puts the id in front of the fields' own JSON text, when the caller has it, to the same text and bytes", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\u00e9', '\ud83d\udc15'));
    fc.assert(
      fc.property(fc.nat(), fc.dictionary(fc.constantFrom('name', 'description', 'tag'), text), (id, fields) => {
        const fieldsText = JSON.stringify(fields);
        expect(recordWithIdJson(id, fields, { json: fieldsText, bytes: utf8Bytes(fieldsText) })).toEqual(expected(id, fields));
      }),
      { numRuns: 500 },
    );
    expect(recordWithIdJson(3, {}, { json: '{}', bytes: 2 })).toEqual({ json: '{"id":3}', bytes: 8 });
  });

  it('falls back to JSON.stringify for what it does not write itself, with the same text', () => {
    const withToJson = { toJSON: () => 'x' };
    const cases: Record<string, unknown>[] = [
      { name: 'a', nested: { deep: [1, '\u00e9'] } },
      { name: 'a', list: [1, 2] },
      { name: 'a', missing: undefined },
      { name: 'a', when: withToJson },
      { id: 99, name: 'the field wins the value, the id keeps its place' },
      { name: 'a', 10: 'integer keys go first', '01': 'not an integer key' },
      Object.assign(Object.create({ inherited: 'skipped' }) as Record<string, unknown>, { name: 'own' }),
      Object.assign(Object.create(null) as Record<string, unknown>, { name: 'no prototype' }),
    ];
    for (const fields of cases) expect(recordWithIdJson(7, fields)).toEqual(expected(7, fields));
  });

  it('skips what an enumerable property on Object.prototype would add to a for-in walk', () => {
    Object.defineProperty(Object.prototype, 'polluted', { value: 'x', enumerable: true, configurable: true, writable: true });
    try {
      expect(recordWithIdJson(1, { name: 'a' })).toEqual({ json: '{"id":1,"name":"a"}', bytes: 19 });
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });

  it('throws as JSON.stringify does for a value it cannot write', () => {
    expect(() => recordWithIdJson(1, { big: 1n })).toThrow(TypeError);
  });
});
