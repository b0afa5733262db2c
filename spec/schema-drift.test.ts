import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { compileSpecDefinition, validatorOf } from './compile-spec.js';
import { readSpecFile } from './load-spec.js';
import type { JsonSchema } from './openapi-types.js';
import { componentSchemas as makeComponentSchemas } from './schemas.js';

const componentSchemas = makeComponentSchemas();

/**
 * The YAML, the hand-written zod schemas and the TypeScript types inferred from them must say the
 * same thing. Both sides are reduced to what a validator enforces (types, required fields,
 * properties) and compared; descriptions, examples and extensions are not rules.
 */
function enforced(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (node.type !== undefined) out.type = node.type;
  if (Array.isArray(node.required)) out.required = [...(node.required as string[])].sort();
  if (node.properties && typeof node.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([name, sub]) => [name, enforced(sub)]));
  }
  if (node.items !== undefined) out.items = enforced(node.items);
  if (Array.isArray(node.enum)) out.enum = node.enum;
  // zod's integers are bounded to the safe-integer range; the spec says int64. Both are "integer".
  return out;
}

const specSchemas = compileSpecDefinition(await readSpecFile()).componentSchemas;

describe('spec components and zod schemas', () => {
  it.each(Object.keys(componentSchemas))('%s is the same in the YAML and in spec/schemas.ts', (name) => {
    const fromZod = z.toJSONSchema(componentSchemas[name as keyof typeof componentSchemas], { io: 'input' });
    expect(enforced(fromZod)).toEqual(enforced(specSchemas[name] as JsonSchema));
  });

  it('every object schema of the resources in the spec has a zod twin', () => {
    const resources = Object.entries(specSchemas).filter(
      ([, schema]) =>
        typeof schema === 'object' && schema !== null && !(schema as Record<string, unknown>)['x-not-shown'],
    );
    expect(resources.map(([name]) => name).sort()).toEqual(Object.keys(componentSchemas).sort());
  });

  it('the validators the mock and the kit build from the spec accept and refuse what the hand-written ones do', () => {
    const samples: unknown[] = [
      { name: 'dog' },
      { name: 'dog', description: 'd' },
      { id: 1, name: 'x' },
      { code: 'c', message: 'm', status: 400 },
      {},
      { name: 1 },
      { name: null },
      [],
      'x',
      { id: 1.5, name: 'x' },
    ];
    for (const [name, handWritten] of Object.entries(componentSchemas)) {
      const fromSpec = validatorOf(specSchemas[name]!, name);
      for (const sample of samples) {
        expect(fromSpec.safeParse(sample).success, `${name} on ${JSON.stringify(sample)}`).toBe(
          handWritten.safeParse(sample).success,
        );
      }
    }
  });
});
