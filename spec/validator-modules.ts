import type { Ajv2020 as Ajv2020Class } from 'ajv/dist/2020.js';
import { lazyModule } from './lazy-module.js';

// ajv and ajv-formats (about ninety CommonJS files, a third of a Node test file's start) are loaded
// when the first schema is compiled, not with the mock: answering from the spec's examples needs no
// validator, and every validator is compiled on first use anyway. In Node they are loaded
// synchronously then; in a browser the MSW adapter loads them (`loadValidatorModules()`) before
// the first request, as a chunk of their own.

/** What the validators need: ajv's JSON Schema 2020-12 class and ajv-formats' plugin. */
export interface ValidatorModules {
  Ajv2020: typeof Ajv2020Class;
  addFormats: (ajv: Ajv2020Class) => Ajv2020Class;
}

type FormatsPlugin = ValidatorModules['addFormats'];
/** ajv-formats is CommonJS: the plugin arrives as the module, or wrapped once or twice in `default`, by loader. */
type FormatsExport = FormatsPlugin | { default: FormatsPlugin | { default: FormatsPlugin } };

const lazy = lazyModule<ValidatorModules>({
  what: 'the schema validator (ajv, ajv-formats)',
  notLoaded: 'the schema validator is not loaded yet in this page (await loadValidatorModules() first)',
  require: (require) =>
    fromModules(
      require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020Class },
      require('ajv-formats') as FormatsExport,
    ),
  import: () =>
    Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]).then(([ajv, formats]) =>
      fromModules(ajv, formats as FormatsExport),
    ),
});

function fromModules(ajv: { Ajv2020: typeof Ajv2020Class }, formats: FormatsExport): ValidatorModules {
  let plugin: FormatsExport = formats;
  while (typeof plugin !== 'function') plugin = plugin.default;
  return { Ajv2020: ajv.Ajv2020, addFormats: plugin };
}

/**
 * Loads ajv and ajv-formats (once; later calls share the load). The MSW adapter calls it in a page
 * before the first request; Node never needs to.
 *
 * @example await loadValidatorModules(); validatorOf(schema, 'Pet').safeParse(pet);
 */
export function loadValidatorModules(): Promise<ValidatorModules> {
  return lazy.load();
}

/** True when a schema can be compiled now without waiting (loaded, or in Node). */
export function validatorModulesAvailable(): boolean {
  return lazy.available();
}

/** ajv now: loaded already, or in Node loaded synchronously; in a page before `loadValidatorModules()`, an error. */
export function validatorModules(): ValidatorModules {
  return lazy.now();
}
