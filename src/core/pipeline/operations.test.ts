import { describe, expect, it } from 'vitest';
import { specDocument } from '../../../test/support/core-test-app.js';
import { compileSpec } from '../spec/compiled-spec.js';
import { createCategory } from './operations.js';

describe('createCategory.storeWork', () => {
  const operation = compileSpec(specDocument).operations.find(
    (candidate) => candidate.operationId === 'createCategory',
  )!;

  it('copies the declared fields of a body read by JSON.parse, and nothing else', () => {
    const body = JSON.parse('{"description":"x","name":"dog","extra":1,"__proto__":{"polluted":true}}') as Record<
      string,
      unknown
    >;
    const work = createCategory.storeWork(operation, body);
    expect(work).toStrictEqual({ kind: 'create', requiresKey: true, input: { name: 'dog', description: 'x' } });
    expect(Object.keys((work as { input: object }).input)).toEqual(['name', 'description']);
  });
});
