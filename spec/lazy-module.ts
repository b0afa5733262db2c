import { nodeRequire } from './node-require.js';

// The library's large dependencies (the YAML readers, faker, ajv, re2js, zod) load on first use, not with
// the mock: in Node synchronously (`require`, an ES module too since Node 20.19), in a page ahead of time
// (`load()`, a chunk of its own) or handed over (`provide`). The self-contained bins provide each at
// start (scripts/eager-modules.mjs appends `lazy.provide(...)` to the files that declare one).

/** How one lazily loaded module is reached. */
export interface LazyModuleSource<T> {
  /** Node's synchronous load, given Node's `require` (it may throw). */
  require(require: (id: string) => unknown): T;
  /** A page's load: dynamic imports with literal specifiers, so a bundler makes them a chunk. */
  import?(): Promise<T>;
  /** What is loaded, for the error of a failed `load()`: "Failed to load <what>: <reason>". */
  what: string;
  /** The error when it is needed now in a page that has not loaded it. */
  notLoaded: string;
}

/** A module loaded once, on first use, then kept. */
export interface LazyModule<T> {
  /** The module now: loaded or provided already, or in Node required; in a page before `load()`, an error. */
  now(): T;
  /** The module now, or undefined where it cannot be had now (a page, or not installed); a miss is remembered. */
  tryNow(): T | undefined;
  /** True when `now()` needs no wait (loaded, or in Node). */
  available(): boolean;
  /** Loads it (once; later calls share the load). */
  load(): Promise<T>;
  /** Hands over a module loaded elsewhere (a page's entry, a bundle's start); the first one given is kept. */
  provide(module: T): void;
}

/**
 * One lazily loaded module.
 *
 * @example
 * const lazy = lazyModule({ what: 'the YAML reader', notLoaded: 'await loadYamlModule() first',
 *   require: (require) => require('yaml') as YamlModule, import: () => import('yaml') });
 * lazy.now().parse('a: 1');
 */
export function lazyModule<T>(source: LazyModuleSource<T>): LazyModule<T> {
  let loaded: T | undefined;
  let missing = false;
  let loading: Promise<T> | undefined;
  const now = (): T => {
    if (loaded !== undefined) return loaded;
    const require = nodeRequire();
    if (require === undefined) throw new Error(source.notLoaded);
    loaded = source.require(require);
    return loaded;
  };
  return {
    now,
    tryNow() {
      if (loaded !== undefined || missing) return loaded;
      try {
        return now();
      } catch {
        missing = true;
        return undefined;
      }
    },
    available: () => loaded !== undefined || nodeRequire() !== undefined,
    load() {
      if (loaded !== undefined) return Promise.resolve(loaded);
      const load = source.import ?? (() => Promise.resolve(now()));
      loading ??= load().then(
        (module) => {
          loaded ??= module;
          return loaded;
        },
        (error: unknown) => {
          loading = undefined;
          throw new Error(`Failed to load ${source.what}: ${(error as Error).message}`);
        },
      );
      return loading;
    },
    provide(module) {
      loaded ??= module;
    },
  };
}
