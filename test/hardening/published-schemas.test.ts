import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

// Red team of issue 43's published JSON Schemas (schemas/, shipped for other readers): each must
// compile in a validator's default strict mode, with no keyword or format only zod knows.
const directory = new URL('../../schemas/', import.meta.url);
const files = readdirSync(directory).filter((name) => name.endsWith('.schema.json'));

describe('the published JSON Schemas', () => {
  it.each(files)('%s compiles in strict mode', (file) => {
    const schema = JSON.parse(readFileSync(new URL(file, directory), 'utf8')) as Record<string, unknown>;
    expect(() => new Ajv2020().compile(schema)).not.toThrow();
  });
});
