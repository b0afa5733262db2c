import { describe, expect, it } from 'vitest';
import { normaliseOpenApi } from './normalise-openapi.js';
import { childOf } from './openapi-structure.js';
import type { JsonSchema, OpenApiDocument } from './openapi-types.js';
import { auditSchemas, stripAnnotations } from './schema-keywords.js';
import { knownFormats } from './schema-validator.js';
import { forEachDocumentSchema, forEachSchema, subschemaKeywords } from './schema-walk.js';

const documentWith = (extra: Record<string, unknown>): OpenApiDocument =>
  ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, ...extra }) as OpenApiDocument;

/** A schema holding `{ marked: true }` under `keyword`, in the shape the table says. */
function holding(keyword: string): Record<string, unknown> {
  const marked = { marked: true };
  const shape = subschemaKeywords.get(keyword);
  return { [keyword]: shape === 'map' ? { name: marked } : shape === 'list' ? [marked] : marked };
}

describe('forEachSchema', () => {
  it.each([...subschemaKeywords.keys()])('reaches the subschema under %s', (keyword) => {
    const document = documentWith({ components: { schemas: { Root: holding(keyword) } } });
    const visited: Record<string, unknown>[] = [];
    forEachSchema(document, (schema) => visited.push(schema));
    expect(visited.some((schema) => schema.marked === true)).toBe(true);
  });

  it('reads a list where one schema belongs (draft 4 items) as a list, and skips data and names', () => {
    const document = documentWith({
      components: {
        schemas: {
          Root: { items: [{ marked: 1 }, { marked: 2 }], example: { items: { marked: 3 } } },
          // A property named `schema` is a name, not a schema.
          Named: { properties: { schema: { marked: 4 } } },
        },
      },
    });
    const marks: unknown[] = [];
    forEachSchema(document, (schema) => {
      if ('marked' in schema) marks.push(schema.marked);
    });
    expect(marks.sort()).toEqual([1, 2, 4]);
  });

  it('finds the schemas of a document by structure, with their pointers', () => {
    const document = documentWith({
      paths: { '/a': { get: { parameters: [{ name: 'schema', in: 'query', schema: { type: 'string' } }] } } },
      components: { schemas: { 'A/B': { type: 'object' } } },
    });
    const pointers: string[] = [];
    forEachDocumentSchema(document, (_, pointer) => pointers.push(pointer));
    expect(pointers.sort()).toEqual(['/components/schemas/A~1B', '/paths/~1a/get/parameters/0/schema']);
  });
});

describe('every reader of schemas follows the one table', () => {
  it.each([...subschemaKeywords])('openapi-structure reads %s as %s', (keyword, shape) => {
    expect(childOf('schema', keyword, shape === 'list' ? [] : {})).toEqual(['schema', shape]);
  });

  // The copies disagreed here: normalise-openapi.ts and openapi-structure.ts read `items: [...]` as a list,
  // schema-keywords.ts as one schema, so its copy kept the annotations of each item.
  it('stripAnnotations strips inside a list under items', () => {
    const schema = { items: [{ type: 'string', description: 'a name' }] } as unknown as JsonSchema;
    expect(stripAnnotations(schema)).toEqual({ items: [{ type: 'string' }] });
  });

  // The copies disagreed here: the 3.0 reading (normalise-openapi.ts) read Swagger's top-level `definitions` as
  // schemas, the audit only `components.schemas`.
  it('the audit and the 3.0 reading both read schemas under a top-level definitions', () => {
    const document = documentWith({ definitions: { Old: { type: 'string', nullable: true } } });
    expect(() => auditSchemas(structuredClone(document), knownFormats)).toThrow(
      /keyword "nullable" is not supported .* at #\/definitions\/Old/,
    );
    const normalised = normaliseOpenApi(document) as unknown as { definitions: { Old: unknown } };
    expect(normalised.definitions.Old).toEqual({ type: ['string', 'null'] });
  });
});
