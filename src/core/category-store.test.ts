import { describe, expect, it } from 'vitest';
import { CategoryStore } from './category-store.js';

describe('CategoryStore', () => {
  it('assigns increasing ids that are never reused, even after many creations', () => {
    const store = new CategoryStore();
    const ids = Array.from({ length: 1_000 }, (_, index) => store.create({ name: `c${index}` }).id);
    expect(new Set(ids).size).toBe(1_000);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(store.list()).toHaveLength(1_000);
  });

  it('serves the cached list until the next change', () => {
    const store = new CategoryStore();
    store.create({ name: 'a' });
    const first = store.listJson();
    expect(store.listJson()).toBe(first);
    store.create({ name: 'b', description: 'd' });
    expect(JSON.parse(store.listJson())).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b', description: 'd' }]);
  });

  it('starts over from id 1 after clear', () => {
    const store = new CategoryStore();
    store.create({ name: 'a' });
    store.clear();
    expect(store.create({ name: 'b' }).id).toBe(1);
  });
});

describe('CategoryStore with a limit', () => {
  it('drops the oldest category past its limit, keeping ids unique and counting what it dropped', () => {
    const store = new CategoryStore({ maxCount: 3 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) store.create({ name });
    expect(store.list().map((category) => [category.id, category.name])).toEqual([
      [3, 'c'],
      [4, 'd'],
      [5, 'e'],
    ]);
    expect(store.dropped).toBe(2);
  });

  it.each([
    ['short ASCII', 'dog'],
    ['short, with accents and an emoji', 'chien \u00e9t\u00e9 \ud83d\udc15'],
    ['long ASCII', 'a'.repeat(600)],
    ['long, with an emoji at the end', `${'a'.repeat(600)}\ud83d\udc15`],
    ['a lone surrogate', 'x\ud83d'],
  ])('counts the bytes of the served list exactly: %s', (_, name) => {
    const store = new CategoryStore();
    store.create({ name, description: name });
    expect(store.stats().bytes).toBe(new TextEncoder().encode(store.listJson()).byteLength);
  });

  it('is bounded in bytes too: the served list never exceeds maxBytes, the oldest go first, stats are exact', () => {
    const store = new CategoryStore({ maxBytes: 200 });
    for (let index = 0; index < 20; index += 1) store.create({ name: `é${index}`.padEnd(20, 'x') });
    const json = store.listJson();
    const bytes = new TextEncoder().encode(json).byteLength;
    expect(bytes).toBeLessThanOrEqual(200);
    expect(store.stats()).toEqual({ count: store.size, bytes, maxCount: Number.POSITIVE_INFINITY, maxBytes: 200, dropped: 20 - store.size });
    expect(store.list().at(-1)!.id).toBe(20);
    expect(store.list().map((category) => category.id)).toEqual(Array.from({ length: store.size }, (_, index) => 21 - store.size + index));
  });

  it('refuses one category larger than the whole byte bound, keeping the rest and the id sequence', () => {
    const store = new CategoryStore({ maxBytes: 100 });
    store.create({ name: 'kept' });
    expect(() => store.create({ name: 'x'.repeat(200) })).toThrow(/maxCategoryBytes/);
    expect(store.list().map((category) => category.name)).toEqual(['kept']);
    expect(store.create({ name: 'next' }).id).toBe(2);
  });
});
