import { describe, expect, it } from 'vitest';
import { createDataGenerator } from './data-generator.js';

// OpenAI's inline skill `data` allows 70,254,592 characters: drawn at that length, a generated body
// took minutes and was larger than a server takes (our mock answered 413 to the kit's valid request).
describe('generated strings', () => {
  it('stay within 1,000 characters where the schema allows megabytes, and valid', () => {
    const schema = {
      type: 'object',
      required: ['data'],
      properties: { data: { type: 'string', maxLength: 70_254_592 } },
    };
    for (let seed = 1; seed <= 20; seed += 1) {
      const value = createDataGenerator(seed).generate(schema, { allOptionals: true }) as { data: string };
      expect(typeof value.data).toBe('string');
      expect(value.data.length).toBeLessThanOrEqual(1_000);
    }
  });

  it("keep the schema's minLength above the bound, and its maxLength below it", () => {
    const long = createDataGenerator(1).generate({ type: 'string', minLength: 2_000, maxLength: 10_000_000 }) as string;
    expect(long.length).toBeGreaterThanOrEqual(2_000);
    expect(long.length).toBeLessThanOrEqual(10_000_000);
    for (let seed = 1; seed <= 10; seed += 1) {
      const short = createDataGenerator(seed).generate({ type: 'string', maxLength: 5 }) as string;
      expect(short.length).toBeLessThanOrEqual(5);
    }
  });
});
