import { describe, expect, it } from 'vitest';
import { compileSpec } from '../src/core/spec/compiled-spec.js';
import { compileSpecDefinition, validatorOf } from './compile-spec.js';
import { buildSpecModel } from './interface/spec-model.js';
import { readSpecFile } from './load-spec.js';
import type { JsonSchema, OpenApiDocument } from './openapi-types.js';

const petstore = await readSpecFile();

function variant(change: (document: OpenApiDocument) => void): OpenApiDocument {
  const document = structuredClone(petstore);
  change(document);
  return document;
}

describe('compileSpecDefinition', () => {
  const spec = compileSpecDefinition(petstore);
  const operation = (id: string) => spec.operations.find((candidate) => candidate.operationId === id)!;

  it('lists operations with method, path template, security, deprecation and extensions', () => {
    expect(
      spec.operations.map((entry) => [
        entry.operationId,
        entry.method,
        entry.pathTemplate,
        entry.security,
        entry.deprecated,
      ]),
    ).toEqual([
      ['listCategories', 'GET', '/categories', [{ bearerAuth: [] }], false],
      ['createCategory', 'POST', '/categories', [{ bearerAuth: [] }], false],
      ['getPetById', 'GET', '/pets/{petId}', [{ bearerAuth: [] }], true],
      ['listStoreOrders', 'GET', '/store/orders', [{ bearerAuth: [] }], false],
    ]);
    expect(operation('getPetById').extensions['x-deprecation']).toMatchObject({ placeholder: true });
    expect(spec.basePath).toBe('/v1');
  });

  it('reads parameters, request bodies with their media types, responses with schemas, headers and examples', () => {
    expect(
      operation('getPetById').parameters.map(({ name, in: location, required }) => [name, location, required]),
    ).toEqual([['petId', 'path', true]]);
    const body = operation('createCategory').requestBody!;
    expect([body.required, body.mediaTypes, body.jsonMediaTypes]).toEqual([
      true,
      ['application/json'],
      ['application/json'],
    ]);
    expect(body.validator!.safeParse({ name: 'dog' }).success).toBe(true);
    expect(body.validator!.safeParse({ name: 1 }).success).toBe(false);
    const created = operation('createCategory').responses.find((response) => response.statusKey === '201')!;
    expect(created.headers.map((header) => [header.name, header.required])).toEqual([
      ['X-RateLimit-Limit', true],
      ['X-RateLimit-Remaining', true],
      ['X-RateLimit-Reset', true],
    ]);
    expect([...created.examples.keys()]).toEqual(['dog', 'nameOnly']);
    expect(created.validator!.safeParse({ id: 4, name: 'dog' }).success).toBe(true);
    expect(operation('listCategories').responses.find((response) => response.statusKey === '429')!.notShown).toBe(true);
  });

  it('lets operation parameters override path-level ones of the same name and location', () => {
    const document = variant((doc) => {
      doc.paths!['/pets/{petId}']!.parameters = [
        { name: 'petId', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'trace', in: 'header', schema: { type: 'string' } },
      ];
    });
    const parameters = compileSpecDefinition(document).operations.find(
      (entry) => entry.operationId === 'getPetById',
    )!.parameters;
    expect(
      parameters.map((parameter) => [parameter.name, parameter.in, (parameter.schema as { type: string }).type]),
    ).toEqual([
      ['petId', 'path', 'string'],
      ['trace', 'header', 'string'],
    ]);
  });

  it('compiles a resolved document (spec.document) from the document it came from', () => {
    const again = compileSpecDefinition(spec.document);
    expect(again.source).toBe(petstore);
    expect(again.operations.map((entry) => entry.operationId)).toEqual(
      spec.operations.map((entry) => entry.operationId),
    );
    expect(compileSpecDefinition(petstore, { basePath: '/api' }).basePath).toBe('/api');
  });

  it('follows a document edited after a first compilation', () => {
    const document = variant(() => {});
    const before = compileSpecDefinition(document);
    (document.components!.schemas!.NewCategory as { required: string[] }).required = ['name', 'description'];
    const after = compileSpecDefinition(document);
    const body = (definition: typeof before) =>
      definition.operations.find((entry) => entry.operationId === 'createCategory')!.requestBody!.validator!;
    expect(body(after).safeParse({ name: 'dog' }).success).toBe(false);
    expect(before.operations).not.toBe(after.operations);
  });

  it('serves recursive schemas: validated as recursion', () => {
    const document = variant((doc) => {
      doc.components!.schemas!.Tree = {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } },
        },
      } as JsonSchema;
    });
    const tree = compileSpecDefinition(document).componentSchemas.Tree!;
    const validator = validatorOf(tree, 'Tree');
    expect(validator.safeParse({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] }).success).toBe(true);
    const deepError = validator.safeParse({ name: 'a', children: [{ name: 'b', children: [{ name: 3 }] }] });
    expect(deepError.success).toBe(false);
    expect(deepError.error!.issues[0]!.path).toEqual(['children', 0, 'children', 0, 'name']);
    let deep: unknown = { name: 'leaf' };
    for (let level = 0; level < 100_000; level += 1) deep = { name: 'n', children: [deep] };
    const tooDeep = validator.safeParse(deep);
    expect(tooDeep.success).toBe(false);
    expect(tooDeep.error!.issues[0]!.message).toBe('nested too deeply to validate');
  });

  it('refuses a document beyond the node budget in one line', () => {
    expect(() =>
      compileSpecDefinition(
        variant(() => {}),
        { maxNodes: 100 },
      ),
    ).toThrow(
      /^Failed to compile spec: it is too complex to serve \(more than 100 nodes\); split it or remove unused parts$/,
    );
  });
});

describe('the mock and the contract kit read the spec the same way', () => {
  const samples: unknown[] = [
    { id: 1, name: 'dog' },
    { id: 1.5, name: 'dog' },
    { id: 1, name: 'dog', description: 3 },
    { name: 'dog' },
    { code: 'x', message: 'y', status: 400 },
    [],
    [{ id: 1, name: 'a' }],
    'text',
    null,
  ];

  /** Operations and the verdict of each response validator on each sample, as the mock and as the kit see them. */
  function bothReadings(document: OpenApiDocument) {
    const mock = compileSpec(document);
    const kit = buildSpecModel(document);
    const fromMock = mock.operations.map((operation) => ({
      operation: [
        operation.operationId,
        operation.method,
        operation.pathTemplate,
        operation.deprecated,
        operation.stability,
      ],
      verdicts: [...operation.responses.values()].map((response) =>
        samples.map((sample) =>
          response.schema === undefined ? 'no schema' : validatorOf(response.schema, 'test').safeParse(sample).success,
        ),
      ),
    }));
    const fromKit = [...kit.operations.values()].map((operation) => ({
      operation: [
        operation.operationId,
        operation.method,
        operation.pathTemplate,
        operation.deprecated,
        operation.stability,
      ],
      verdicts: [...operation.responses.values()].map((response) =>
        samples.map((sample) =>
          response.validator === undefined ? 'no schema' : response.validator.safeParse(sample).success,
        ),
      ),
    }));
    return { fromMock, fromKit };
  }

  it('derive the same operations and the same validators from the spec', () => {
    const { fromMock, fromKit } = bothReadings(petstore);
    expect(fromKit).toEqual(fromMock);
    expect(fromMock).toHaveLength(4);
  });

  it('both follow a change of the spec (a rule tightened, an operation added)', () => {
    const changed = variant((doc) => {
      (doc.components!.schemas!.Category as { required: string[] }).required = ['id', 'name', 'description'];
      doc.paths!['/toys'] = {
        delete: { operationId: 'deleteToys', 'x-stability': 'beta', responses: { '204': { description: 'gone' } } },
      };
    });
    const { fromMock, fromKit } = bothReadings(changed);
    expect(fromKit).toEqual(fromMock);
    expect(fromMock.map((entry) => entry.operation[0])).toContain('deleteToys');
    const created = buildSpecModel(changed).operations.get('createCategory')!.responses.get('201')!.validator!;
    expect(created.safeParse({ id: 1, name: 'dog' }).success).toBe(false);
  });
});

describe('parameter examples', () => {
  it('keeps the examples of path-level parameters with the merged parameter (the kit builds its requests from them)', () => {
    const definition = compileSpecDefinition({
      openapi: '3.1.0',
      info: { title: 'Users', version: '1' },
      paths: {
        '/users/{userId}': {
          parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'string' }, example: 'alice' }],
          get: {
            parameters: [
              { name: 'q', in: 'query', schema: { type: 'string' }, examples: { one: { value: 'findme' } } },
            ],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    } as unknown as OpenApiDocument);
    const parameters = definition.operations[0]!.parameters;
    expect(parameters.map((parameter) => [parameter.name, parameter.examples])).toEqual([
      ['userId', ['alice']],
      ['q', ['findme']],
    ]);
  });
});
