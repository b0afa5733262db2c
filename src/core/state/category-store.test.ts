import fc from 'fast-check';
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
    expect(JSON.parse(store.listJson())).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b', description: 'd' },
    ]);
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
    expect(store.stats()).toEqual({
      count: store.size,
      bytes,
      maxCount: Number.POSITIVE_INFINITY,
      maxBytes: 200,
      dropped: 20 - store.size,
    });
    expect(store.list().at(-1)!.id).toBe(20);
    expect(store.list().map((category) => category.id)).toEqual(
      Array.from({ length: store.size }, (_, index) => 21 - store.size + index),
    );
  });

  it('refuses one category larger than the whole byte bound, keeping the rest and the id sequence', () => {
    const store = new CategoryStore({ maxBytes: 100 });
    store.create({ name: 'kept' });
    expect(() => store.create({ name: 'x'.repeat(200) })).toThrow(/maxCategoryBytes/);
    expect(store.list().map((category) => category.name)).toEqual(['kept']);
    expect(store.create({ name: 'next' }).id).toBe(2);
  });
});

describe('CategoryStore ring', () => {
  /** The store as the interface describes it: an array, the oldest dropped first while a bound is passed. */
  function modelOf(bounds: { maxCount: number; maxBytes: number }) {
    let items: { id: number; name: string }[] = [];
    let nextId = 1;
    let dropped = 0;
    const bytesOf = (list: unknown[]) => new TextEncoder().encode(JSON.stringify(list)).length;
    return {
      create(name: string): 'stored' | 'refused' {
        const category = { id: nextId, name };
        if (bytesOf([category]) > bounds.maxBytes) return 'refused';
        nextId += 1;
        items.push(category);
        while (items.length > 1 && (items.length > bounds.maxCount || bytesOf(items) > bounds.maxBytes)) {
          items = items.slice(1);
          dropped += 1;
        }
        return 'stored';
      },
      state: () => ({ list: items, bytes: bytesOf(items), dropped }),
    };
  }

  it('keeps, in order, exactly what an array model keeps, across growth, wrap-around and drops of any length', () => {
    fc.assert(
      fc.property(
        fc.record({ maxCount: fc.integer({ min: 1, max: 70 }), maxBytes: fc.integer({ min: 30, max: 3_000 }) }),
        // Runs of one name: a long run of small ones after big ones is what grows a ring that has wrapped.
        fc
          .array(
            fc.tuple(
              fc.oneof(
                fc.string({ maxLength: 3 }),
                fc.string({ minLength: 20, maxLength: 200 }),
                fc.constantFrom('é', '😀', 'ß'.repeat(40)),
              ),
              fc.integer({ min: 1, max: 40 }),
            ),
            { maxLength: 12 },
          )
          .map((runs) => runs.flatMap(([name, times]) => Array.from({ length: times }, () => name))),
        fc.integer({ min: 0, max: 300 }),
        (bounds, names, clearAt) => {
          const store = new CategoryStore(bounds);
          let model = modelOf(bounds);
          names.forEach((name, index) => {
            if (index === clearAt) {
              store.clear();
              model = modelOf(bounds);
            }
            const outcome = model.create(name);
            if (outcome === 'refused') expect(() => store.create({ name })).toThrow(/maxCategoryBytes/);
            else {
              // The byte counts are what the byte bound adds up: they must be exact.
              const { json, bytes } = store.createEntry({ name });
              expect(bytes).toBe(Buffer.byteLength(json, 'utf8'));
            }
          });
          const expected = model.state();
          expect(store.list()).toEqual(expected.list);
          expect(store.listJson()).toBe(JSON.stringify(expected.list));
          expect(store.listBytes).toBe(Buffer.byteLength(store.listJson(), 'utf8'));
          expect(store.stats()).toMatchObject({
            count: expected.list.length,
            bytes: expected.bytes,
            dropped: expected.dropped,
          });
        },
      ),
      { numRuns: 300 },
    );
    // About 2 s alone; past vitest's 5 s default when the whole suite shares two cores.
  }, 30_000);
});
