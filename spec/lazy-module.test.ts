import { describe, expect, it } from 'vitest';
import { lazyModule } from './lazy-module.js';

const source = (overrides: Partial<Parameters<typeof lazyModule<{ name: string }>>[0]> = {}) => {
  const calls = { require: 0, import: 0 };
  const lazy = lazyModule<{ name: string }>({
    what: 'the test module',
    notLoaded: 'not loaded in this page',
    require: () => {
      calls.require += 1;
      return { name: 'required' };
    },
    import: async () => {
      calls.import += 1;
      return { name: 'imported' };
    },
    ...overrides,
  });
  return { lazy, calls };
};

describe('lazyModule', () => {
  it('in Node, requires the module at first use, once', () => {
    const { lazy, calls } = source();
    expect(lazy.available()).toBe(true);
    expect(lazy.now()).toEqual({ name: 'required' });
    expect(lazy.now()).toBe(lazy.now());
    expect(calls.require).toBe(1);
  });

  it('keeps the first module provided, and never loads another', async () => {
    const { lazy, calls } = source();
    lazy.provide({ name: 'bundled' });
    lazy.provide({ name: 'second' });
    expect(lazy.now()).toEqual({ name: 'bundled' });
    expect(await lazy.load()).toEqual({ name: 'bundled' });
    expect(calls).toEqual({ require: 0, import: 0 });
  });

  it('shares one load between callers', async () => {
    const { lazy, calls } = source();
    const [first, second] = await Promise.all([lazy.load(), lazy.load()]);
    expect(first).toBe(second);
    expect(calls.import).toBe(1);
  });

  it('names what failed to load, and tries again on the next call', async () => {
    let attempts = 0;
    const { lazy } = source({
      import: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('network down');
        return { name: 'imported' };
      },
    });
    await expect(lazy.load()).rejects.toThrow('Failed to load the test module: network down');
    await expect(lazy.load()).resolves.toEqual({ name: 'imported' });
  });

  it('tryNow gives undefined where the module cannot be had, and remembers the miss', () => {
    let attempts = 0;
    const { lazy } = source({
      require: () => {
        attempts += 1;
        throw new Error('Cannot find module');
      },
    });
    expect(lazy.tryNow()).toBeUndefined();
    expect(lazy.tryNow()).toBeUndefined();
    expect(attempts).toBe(1);
    expect(() => lazy.now()).toThrow('Cannot find module');
  });
});
