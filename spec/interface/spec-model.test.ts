import { describe, expect, it } from 'vitest';
import { compileSpecDefinition } from '../compile-spec.js';
import { readSpecFile } from '../load-spec.js';
import { buildSpecModel, validateBody } from './spec-model.js';

describe('validators derived from the spec', async () => {
  const spec = buildSpecModel(await readSpecFile());
  const operation = (id: string) => spec.operations.get(id)!;

  it('validates Category bodies of createCategory 201', () => {
    expect(validateBody(operation('createCategory'), 201, { id: 4, name: 'dog', description: 'x' }, true)).toEqual({
      kind: 'valid',
      notShown: false,
    });
    expect(validateBody(operation('createCategory'), 201, { id: '4', name: 'dog' }, true)).toMatchObject({
      kind: 'invalid',
      issues: ['id: expected integer, received string'],
    });
    expect(validateBody(operation('createCategory'), 201, { id: 4.5, name: 'dog' }, true).kind).toBe('invalid');
  });

  it('keeps a property named "description" (annotations are stripped, field names are not)', () => {
    expect(validateBody(operation('createCategory'), 201, { id: 4, name: 'dog', description: 7 }, true).kind).toBe(
      'invalid',
    );
  });

  it('validates the Error component', () => {
    expect(spec.errorValidator.safeParse({ code: 'x', message: 'y', status: 401 }).success).toBe(true);
    expect(spec.errorValidator.safeParse({ error: 'nope' }).success).toBe(false);
  });

  it('reports undeclared statuses and marks open operations', () => {
    expect(validateBody(operation('createCategory'), 200, {}, true)).toEqual({
      kind: 'undeclared-status',
      declared: ['201', '400', '401', '429'],
    });
    expect(operation('getPetById').open).toBe(true);
    expect(operation('listStoreOrders').open).toBe(true);
    expect(operation('listCategories').open).toBe(false);
  });

  it('treats the 429 body as not shown', () => {
    expect(validateBody(operation('listCategories'), 429, 'anything', true)).toEqual({ kind: 'valid', notShown: true });
    expect(validateBody(operation('listCategories'), 429, undefined, false)).toEqual({
      kind: 'not-json',
      notShown: true,
    });
  });

  it('reads x-stability', async () => {
    const document = await readSpecFile();
    document.paths!['/categories']!.post!['x-stability'] = 'beta';
    expect(buildSpecModel(document).operations.get('createCategory')?.stability).toBe('beta');
    expect(operation('createCategory').stability).toBeUndefined();
  });
});

describe('specs beyond ours', () => {
  it('validates recursive response schemas and refuses what it cannot check, as the mock does', async () => {
    const document = await readSpecFile();
    document.components!.schemas!.Category = {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/components/schemas/Category' } },
      },
    };
    const spec = buildSpecModel(document);
    const create = spec.operations.get('createCategory')!;
    expect(
      validateBody(create, 201, { id: 1, name: 'a', children: [{ id: 2, name: 'b', children: [] }] }, true).kind,
    ).toBe('valid');
    expect(validateBody(create, 201, { id: 1, name: 'a', children: [{ id: 2, name: 3 }] }, true)).toMatchObject({
      kind: 'invalid',
      issues: ['children.0.name: expected string, received number'],
    });
    document.components!.schemas!.Category = {
      type: 'object',
      properties: { name: { type: 'string', maxLenght: 3 } },
    } as never;
    // A keyword JSON Schema 2020-12 does not know is an annotation, named in a warning with a likely meaning.
    expect(() => buildSpecModel(document)).not.toThrow();
    expect(compileSpecDefinition(document).warnings).toContainEqual(
      expect.stringMatching(
        /^Unknown schema keywords, served as annotations .*"maxLenght" at #\/components\/schemas\/Category\/properties\/name \(did you mean "maxLength"\?\)$/,
      ),
    );
  });
});
