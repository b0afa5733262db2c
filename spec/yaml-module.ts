import type * as Yaml from 'yaml';
import { nodeRequire } from './node-require.js';

// The YAML reader (95 kB) is loaded on first use, not with the mock: most mocks read no YAML text,
// and a JSON text is read without it. In Node it is loaded synchronously when first needed; in a
// browser the MSW adapter loads it ahead (`loadYamlModule()`) before a YAML text can arrive.

export type YamlModule = typeof Yaml;

let loaded: YamlModule | undefined;
let loading: Promise<YamlModule> | undefined;

/**
 * Loads `yaml` (once; later calls share the load).
 *
 * @example await loadYamlModule(); readYamlText('presets: [banned-key]');
 */
export function loadYamlModule(): Promise<YamlModule> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  loading ??= import('yaml').then(
    (module) => {
      loaded ??= module;
      return loaded;
    },
    (error: unknown) => {
      loading = undefined;
      throw new Error(`Failed to load the YAML reader: ${(error as Error).message}`);
    },
  );
  return loading;
}

/** True when a YAML text can be read now without waiting (loaded, or in Node). */
export function yamlModuleAvailable(): boolean {
  return loaded !== undefined || nodeRequire() !== undefined;
}

/** `yaml` now: loaded already, or in Node loaded synchronously; in a page before `loadYamlModule()`, an error. */
export function yamlModule(): YamlModule {
  if (loaded !== undefined) return loaded;
  const require = nodeRequire();
  if (require === undefined)
    throw new Error('the YAML reader is not loaded yet in this page (give JSON, or await loadYamlModule() first)');
  loaded = require('yaml') as YamlModule;
  return loaded;
}
