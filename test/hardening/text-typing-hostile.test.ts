import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../spec/openapi-types.js';
import { formFields } from '../../src/core/spec/media.js';
import { parameterReader } from '../../src/core/spec/parameter-values.js';
import { propertySchemas, textValue, valueTypes } from '../../src/core/spec/text-typing.js';
import { fastestSync } from '../support/fastest-run.js';

// Red team of issue 42's text typing (src/core/spec/text-typing.ts): a parameter, form field or part is
// typed by its whole schema. A hostile document (a huge enum) and a request repeating a name must not
// make each repeated name walk the schema again.

describe('typing texts by a hostile schema', () => {
  it('reads a deepObject query of 4,000 names against a property with an enum of 100,000 values in linear time', () => {
    const values = Array.from({ length: 100_000 }, (_, index) => `v${index}`);
    const schema = { type: 'object', properties: { p: { enum: values } } } as JsonSchema;
    const read = parameterReader({
      name: 'o',
      in: 'query',
      style: 'deepObject',
      explode: true,
      schema,
      content: false,
    });
    const query = new URLSearchParams(Array.from({ length: 4000 }, () => ['o[p]', 'v1']));
    const sources = { query, headers: {}, pathParams: {} };
    expect(read(sources)).toEqual({ p: 'v1' });
    // Once per schema: ~5 ms; once per name (4,000 walks of the enum) took ~20 s.
    const elapsed = fastestSync(2, () => read(sources));
    expect(elapsed, `one read took ${elapsed.toFixed(1)} ms`).toBeLessThan(100);
  });
});

describe('a mixed enum or a oneOf of consts, read as any value it allows', () => {
  it('keeps each read a lookup against an enum of 100,000 numbers and numeric strings', () => {
    // Even indexes as numbers, odd ones as the strings that spell them: each text has two readings.
    const values = Array.from({ length: 100_000 }, (_, index) => (index % 2 === 0 ? index : String(index)));
    const field = formFields({ type: 'object', properties: { code: { enum: values } } } as JsonSchema).get('code')!;
    const texts = Array.from({ length: 4000 }, (_, index) => String(index));
    expect(texts.slice(0, 4).map((text) => field([text]))).toEqual([0, '1', 2, '3']);
    // A lookup a text: ~2 ms; a scan of the enum a text (4,000 x 100,000) takes seconds.
    const elapsed = fastestSync(2, () => {
      for (const text of texts) field([text]);
    });
    expect(elapsed, `4,000 reads took ${elapsed.toFixed(1)} ms`).toBeLessThan(200);
  });

  it('reads a oneOf of 20,000 consts in linear time (the values gathered in place, not copied a member)', () => {
    const schema = { oneOf: Array.from({ length: 20_000 }, (_, index) => ({ const: String(index) })) } as JsonSchema;
    // The first read alone (it gathers the values once): one run, in CPU time like the others here.
    const elapsed = fastestSync(1, () => expect(textValue('7', schema)).toBe('7'));
    // Linear: ~10 ms; a copy of the values so far a member is 200 million copies.
    expect(elapsed, `the first read took ${elapsed.toFixed(0)} ms`).toBeLessThan(1000);
  });
});

describe('an array part the encoding declares JSON', () => {
  const schema = {
    type: 'object',
    properties: {
      ids: { type: 'array', items: { type: 'integer' } },
      tags: { type: 'array', items: { type: 'string' } },
    },
  } as JsonSchema;
  const json = { contentType: 'application/json' };
  const fields = formFields(schema, { ids: json, tags: json });

  it('is read as the JSON array it is, not split at its commas', () => {
    expect(fields.get('ids')!(['[1,2]'])).toEqual([1, 2]);
    expect(fields.get('tags')!(['["a","b"]'])).toEqual(['a', 'b']);
  });

  it('still reads repeated parts as the items', () => {
    expect(fields.get('ids')!(['1', '2'])).toEqual([1, 2]);
  });
});

describe('types through a cycle of combinators', () => {
  it('reads a schema met twice (once inside its own cycle) the same both times', () => {
    // Root: oneOf [Z, integer]; Z: allOf [Root]; Top: allOf [Root, Z]. Each of them is an integer.
    const root: { oneOf: unknown[] } = { oneOf: [] };
    const z = { allOf: [root] };
    root.oneOf.push(z, { type: 'integer' });
    expect(valueTypes({ allOf: [root, z] } as JsonSchema)).toEqual(['integer']);
  });
});

describe('a property declared by many members', () => {
  it('is gathered in linear time through 20,000 allOf or anyOf members (within the loader fan-out bound of 100,000)', () => {
    const members = Array.from({ length: 20_000 }, () => ({ properties: { x: { type: 'string' } } }));
    for (const keyword of ['allOf', 'anyOf']) {
      let gathered: ReadonlyMap<string, unknown> = new Map();
      const elapsed = fastestSync(1, () => {
        gathered = propertySchemas({ [keyword]: members } as JsonSchema);
      });
      expect([...gathered.keys()]).toEqual(['x']);
      // Linear: ~20 ms; a copy of the list per member took 2.2 s (15 s at 40,000).
      expect(elapsed, `${keyword} took ${elapsed.toFixed(0)} ms`).toBeLessThan(500);
    }
  });
});
