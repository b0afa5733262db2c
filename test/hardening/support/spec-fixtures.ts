import type { OpenApiDocument } from '../../../spec/openapi-types.js';

/**
 * OpenAPI documents that are small to write and costly to read naively: each is valid 3.1 and
 * served by a linear reader in milliseconds, while copying every reference wherever it is used
 * makes them grow without bound.
 */

const headers = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/Limit' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/Limit' },
};

/** A document with one authenticated GET per entry of `operations`, all under /v1. */
export function specWith(
  operations: Record<string, { schema: unknown; requestSchema?: unknown }>,
  schemas: Record<string, unknown>,
): OpenApiDocument {
  const paths: Record<string, unknown> = {};
  for (const [path, { schema, requestSchema }] of Object.entries(operations)) {
    const id = path.replace(/[^a-z0-9]+/gi, '_');
    paths[path] = {
      get: {
        operationId: `get${id}`,
        responses: { '200': { description: 'ok', headers, content: { 'application/json': { schema } } } },
      },
      ...(requestSchema === undefined
        ? {}
        : {
            post: {
              operationId: `post${id}`,
              requestBody: { required: true, content: { 'application/json': { schema: requestSchema } } },
              responses: {
                '201': { description: 'created', headers, content: { 'application/json': { schema: requestSchema } } },
              },
            },
          }),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Complexity fixture', version: '1.0.0' },
    servers: [{ url: 'http://127.0.0.1:4010/v1' }],
    security: [{ bearerAuth: [] }],
    paths: paths as OpenApiDocument['paths'],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      headers: { Limit: { required: true, schema: { type: 'integer', minimum: 0 } } },
      schemas: schemas as Record<string, never>,
    } as OpenApiDocument['components'],
  };
}

/**
 * `levels` levels of `width` schemas each; every schema has `width` properties, one `$ref` to each
 * schema of the next level. 10 x 10 is about 21 KB of JSON and 10^10 schemas once expanded.
 */
export function layeredRefsSpec(levels = 10, width = 10): OpenApiDocument {
  const schemas: Record<string, unknown> = {};
  for (let level = 0; level < levels; level += 1) {
    for (let index = 0; index < width; index += 1) {
      if (level === levels - 1) {
        schemas[`L${level}_${index}`] = { type: 'string', maxLength: 8 };
        continue;
      }
      const properties: Record<string, unknown> = {};
      for (let next = 0; next < width; next += 1)
        properties[`p${next}`] = { $ref: `#/components/schemas/L${level + 1}_${next}` };
      schemas[`L${level}_${index}`] = { type: 'object', properties };
    }
  }
  return specWith(
    {
      '/layers': {
        schema: { $ref: '#/components/schemas/L0_0' },
        requestSchema: { $ref: '#/components/schemas/L0_0' },
      },
    },
    schemas,
  );
}

/**
 * `levels` levels of `width` schemas each; every schema is an `anyOf` of a `$ref` to each schema of
 * the next level, all applied to the same value: 10 x 10 is about 36 KB of JSON and 10^9 checks of
 * one value along every path (issue 40 row 16).
 */
export function anyOfFanOutSpec(levels = 10, width = 10): OpenApiDocument {
  const schemas: Record<string, unknown> = {};
  for (let level = 0; level < levels; level += 1) {
    for (let index = 0; index < width; index += 1) {
      schemas[`A${level}_${index}`] =
        level === levels - 1
          ? { type: 'string', maxLength: 8 }
          : {
              anyOf: Array.from({ length: width }, (_, next) => ({
                $ref: `#/components/schemas/A${level + 1}_${next}`,
              })),
            };
    }
  }
  const root = { $ref: '#/components/schemas/A0_0' };
  return specWith({ '/fan': { schema: root, requestSchema: root } }, schemas);
}

/**
 * A chain of `length` schemas, each referring three times (through allOf and two properties) to
 * the next: 3^length copies once expanded (18 levels: 387 million).
 */
export function sharedChainSpec(length = 18): OpenApiDocument {
  const schemas: Record<string, unknown> = {};
  for (let index = 0; index < length; index += 1) {
    schemas[`C${index}`] =
      index === length - 1
        ? { type: 'object', required: ['leaf'], properties: { leaf: { type: 'integer', minimum: 0 } } }
        : {
            allOf: [{ $ref: `#/components/schemas/C${index + 1}` }],
            properties: {
              left: { $ref: `#/components/schemas/C${index + 1}` },
              right: { $ref: `#/components/schemas/C${index + 1}` },
            },
          };
  }
  return specWith(
    { '/chain': { schema: { $ref: '#/components/schemas/C0' }, requestSchema: { $ref: '#/components/schemas/C0' } } },
    schemas,
  );
}

/** Recursive schemas: a tree (through an array) and a linked list (through an optional property). */
export function recursiveSpec(): OpenApiDocument {
  return specWith(
    {
      '/trees': { schema: { $ref: '#/components/schemas/Tree' }, requestSchema: { $ref: '#/components/schemas/Tree' } },
      '/lists': { schema: { $ref: '#/components/schemas/Node' }, requestSchema: { $ref: '#/components/schemas/Node' } },
    },
    {
      Tree: {
        type: 'object',
        required: ['name', 'children'],
        properties: {
          name: { type: 'string', minLength: 1 },
          children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } },
        },
      },
      Node: {
        type: 'object',
        required: ['value'],
        properties: { value: { type: 'integer' }, next: { $ref: '#/components/schemas/Node' } },
      },
    },
  );
}

/** `count` operations on distinct templated paths (`/r0/{id}`, `/r1/{id}`, ...). */
export function manyOperationsSpec(count: number): OpenApiDocument {
  const operations: Record<string, { schema: unknown }> = {};
  for (let index = 0; index < count; index += 1) operations[`/r${index}/{id}`] = { schema: { type: 'object' } };
  const document = specWith(operations, {});
  for (const pathItem of Object.values(document.paths ?? {})) {
    pathItem.get!.parameters = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  }
  return document;
}
