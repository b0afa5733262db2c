import type { Faker, LocaleDefinition } from '@faker-js/faker';
import type { createGeneratorSync } from 'json-schema-faker';
import { lazyModule } from './lazy-module.js';
import { requireEsModule } from './node-require.js';
import { loadValidatorModules } from './validator-modules.js';

// faker (400 kB of English words) and json-schema-faker are the largest things the mock could load,
// and most mocks never draw from them: the kit's own spec answers from its examples, and its seed
// categories are precomputed (src/core/spec/precomputed-seeds.ts). So they are loaded on first use:
// in Node synchronously (require of an ES module, Node >= 20.19), in a browser ahead of time by the
// MSW adapter (`loadFakeDataModules()`), as a separate chunk of the app's bundle.

/** What the data generator needs of the two libraries. */
export interface FakeDataModules {
  /** faker's class (`new Faker({ locale, seed })`). */
  Faker: new (options: {
    locale: LocaleDefinition;
    seed?: number;
  }) => Faker;
  /** English over faker's base locale, merged: the same definitions as `[en, base]`. */
  locale: LocaleDefinition;
  createGeneratorSync: typeof createGeneratorSync;
}

const lazy = lazyModule<FakeDataModules>({
  what: 'the fake-data libraries (faker, json-schema-faker)',
  notLoaded: 'Failed to generate fake data: faker is not loaded yet in this page (await loadFakeDataModules() first)',
  require: (require) =>
    fromModules(
      require('@faker-js/faker/locale/en') as { faker: Faker },
      // json-schema-faker exports an `import` condition only.
      requireEsModule(require, 'json-schema-faker') as { createGeneratorSync: typeof createGeneratorSync },
    ),
  // The generator checks its draws against the schema: the validator is loaded with it.
  import: () =>
    Promise.all([import('@faker-js/faker/locale/en'), import('json-schema-faker'), loadValidatorModules()]).then(
      ([english, schemaFaker]) => fromModules(english, schemaFaker),
    ),
});

function fromModules(english: { faker: Faker }, schemaFaker: { createGeneratorSync: typeof createGeneratorSync }) {
  // The English entry point exports an instance over [en, base] only (the package's main entry
  // imports every locale: 4x the load time in Node); its class and merged definitions are the same
  // as `new Faker({ locale: [en, base] })` reads.
  return {
    Faker: english.faker.constructor as FakeDataModules['Faker'],
    locale: english.faker.rawDefinitions,
    createGeneratorSync: schemaFaker.createGeneratorSync,
  };
}

/**
 * Loads faker and json-schema-faker (once; later calls share the load). A browser app calls it
 * before the mock draws fake data; the MSW adapter does so for specs that need generated data.
 *
 * @example await loadFakeDataModules(); createDataGenerator(42).generate({ type: 'string' });
 */
export function loadFakeDataModules(): Promise<FakeDataModules> {
  return lazy.load();
}

/** True when a draw needs no wait: the libraries are loaded, or this is Node (they load synchronously). */
export function fakeDataModulesAvailable(): boolean {
  return lazy.available();
}

/**
 * The libraries now: loaded already, or in Node loaded synchronously. In a browser without a
 * preceding `loadFakeDataModules()` this throws (the MSW adapter loads them before it is reached).
 */
export function fakeDataModules(): FakeDataModules {
  return lazy.now();
}
