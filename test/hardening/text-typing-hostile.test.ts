import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../spec/openapi-types.js';
import { formFields } from '../../src/core/spec/media.js';
import { parameterReader } from '../../src/core/spec/parameter-values.js';
import { propertySchemas, valueTypes } from '../../src/core/spec/text-typing.js';
import { fastestSync } from './support/fastest-run.js';

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
      const started = performance.now();
      const gathered = propertySchemas({ [keyword]: members } as JsonSchema);
      const elapsed = performance.now() - started;
      expect([...gathered.keys()]).toEqual(['x']);
      // Linear: ~20 ms; a copy of the list per member took 2.2 s (15 s at 40,000).
      expect(elapsed, `${keyword} took ${elapsed.toFixed(0)} ms`).toBeLessThan(500);
    }
  });
});
