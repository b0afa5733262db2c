import type * as Zod from 'zod';
import { lazyModule } from './lazy-module.js';
import { requireEsModule } from './node-require.js';

// zod (about 100 ES module files, 100 ms of a Node test file's start) is loaded when a schema is
// first used, not with the mock: a mock set up with the default config, answering from the spec,
// decodes nothing with it (the default config is known without decoding: mock-config.ts). In Node it
// is loaded synchronously then; a page cannot, so the entries a page imports hand it over as they load
// (spec/zod-for-pages.ts), as the self-contained bundles do at build time (scripts/eager-modules.mjs).

/**
 * The part of zod the library builds its schemas from. A page is handed only these (spec/zod-for-pages.ts), so
 * its bundle keeps only what they need; Node's whole module is one too.
 */
export type ZodModule = Pick<
  typeof Zod,
  | 'array'
  | 'boolean'
  | 'enum'
  | 'int'
  | 'literal'
  | 'looseObject'
  | 'number'
  | 'object'
  | 'record'
  | 'strictObject'
  | 'string'
  | 'union'
  | 'unknown'
  | 'url'
>;

const lazy = lazyModule<ZodModule>({
  what: 'zod',
  notLoaded:
    'zod is not loaded in this page: import the handlers from petstore-kit/mocks/browser (or petstore-kit/mocks, which a bundler resolves for a page to the entry that loads it)',
  // Its ES module, so a test file that imports zod itself shares it.
  require: (require) => requireEsModule(require, 'zod') as ZodModule,
});

/** Gives the library the zod a page has imported (spec/zod-for-pages.ts, as the page's entries load). */
export function provideZodModule(module: ZodModule): void {
  lazy.provide(module);
}

/** zod now: provided already, or in Node loaded synchronously; in a page without `provideZodModule`, an error. */
function zodModule(): ZodModule {
  return lazy.now();
}

/**
 * A value made with zod when it is first asked for, then kept: how a module declares its schemas
 * without loading zod as it loads.
 *
 * @example
 * const limitsSchema = onFirstUse((z) => z.strictObject({ perMinute: z.int().positive() }));
 * limitsSchema().parse({ perMinute: 60 });
 */
export function onFirstUse<T>(make: (z: ZodModule) => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make(zodModule()) };
    return made.value;
  };
}
