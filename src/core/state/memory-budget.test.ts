import { describe, expect, it } from 'vitest';
import { textBytes } from './memory-account.js';
import { MemoryBudget } from './memory-budget.js';

const kib = 1024;

function budgetOf(bytes: number) {
  const budget = new MemoryBudget(bytes, 'test data');
  const evicted: string[] = [];
  budget.onEvict((session) => evicted.push(session));
  return { budget, evicted };
}

describe('MemoryBudget', () => {
  it('forgets the least recently used named session to make room, never the default one nor the writer', () => {
    const { budget, evicted } = budgetOf(10 * kib);
    const meters = Object.fromEntries(['default', 'a', 'b', 'c'].map((name) => [name, budget.meter(name)]));
    for (const name of ['default', 'a', 'b', 'c']) expect(meters[name]!.take(2 * kib)).toBe(true);
    budget.touch('a');
    // 8 KiB used; 4 more for c: b is the least recently used named session (a was just used).
    expect(meters.c!.take(4 * kib)).toBe(true);
    expect(evicted).toEqual(['b']);
    expect(budget.stats()).toMatchObject({ usedBytes: 10 * kib, evictedSessions: 1, refusedWrites: 0 });
    // A write that would not fit even with a forgotten too: refused, nothing counted, nobody forgotten.
    expect(meters.c!.take(5 * kib)).toBe(false);
    expect(evicted).toEqual(['b']);
    expect(budget.stats().usedBytes).toBe(10 * kib);
    expect(meters.c!.take(2 * kib)).toBe(true);
    expect(evicted).toEqual(['b', 'a']);
    const refusal = meters.c!.full('category');
    expect(refusal).toMatchObject({ code: 'store_full', status: 507, headers: { 'Retry-After': '60' } });
    expect(refusal.message).toMatch(/memory budget \(0 MiB.*the category was not stored/);
    expect(budget.stats().refusedWrites).toBe(1);
  });

  it('counts what is given back, and lets go of a session emptied by its owners', () => {
    const { budget, evicted } = budgetOf(4 * kib);
    const store = budget.meter('s1');
    const lab = budget.meter('s1');
    store.take(kib);
    lab.take(kib);
    store.give(512);
    expect(budget.stats().usedBytes).toBe(kib + 512);
    store.releaseAll();
    expect(budget.stats().usedBytes).toBe(kib);
    lab.releaseAll();
    expect(budget.stats().usedBytes).toBe(0);
    // A new owner of the same session starts a new account, which the old meter's writes join.
    const again = budget.meter('s1');
    again.take(kib);
    lab.take(kib);
    budget.meter('s2').take(3 * kib);
    expect(evicted).toEqual(['s1']);
    expect(budget.stats().usedBytes).toBe(3 * kib);
    // The forgotten session's owners dropped it: a late write of theirs counts nothing.
    again.give(kib);
    lab.take(kib);
    expect(budget.stats().usedBytes).toBe(3 * kib);
  });

  it('charges what another bound keeps small even past the budget, making what room it can', () => {
    const { budget, evicted } = budgetOf(4 * kib);
    budget.meter('old').take(2 * kib);
    const records = budget.meter('default');
    records.charge(5 * kib);
    expect(evicted).toEqual(['old']);
    expect(budget.stats().usedBytes).toBe(5 * kib);
  });

  it('counts one byte a character for ASCII text, else two a UTF-16 unit or the UTF-8 size, whichever is more', () => {
    expect(textBytes('{"id":1}', 8)).toBe(8);
    expect(textBytes('é'.repeat(10), 20)).toBe(20);
    expect(textBytes(`${'a'.repeat(99)}€`, 102)).toBe(200);
    expect(textBytes('€€', 6)).toBe(6);
  });
});
