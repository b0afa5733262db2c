import type * as Yaml from 'yaml';
import { compactRecord } from './compact-record.js';
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

/**
 * A YAML document as plain data, the way `yaml.parse` reads it, but with a key twice in one mapping found in one
 * pass: yaml's own check compares each key with every other (a document of 20,000 paths took 5 s of its 9).
 *
 * @example readYamlDocument('paths: {/a: {}}') // { paths: { '/a': {} } }
 */
export function readYamlDocument(text: string): unknown {
  const yaml = yamlModule();
  const document = yaml.parseDocument(text, { uniqueKeys: false });
  if (document.errors.length > 0) throw document.errors[0];
  yaml.visit(document, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const name = yaml.isScalar(key) ? key.value : key;
        if (seen.has(name))
          throw new Error(`Map keys must be unique; "${String(name).slice(0, 100)}" is repeated${where(key)}`);
        seen.add(name);
      }
    },
  });
  // Each mapping whose keys look like indexes ("200") rebuilt small (compact-record.ts).
  return document.toJS({
    maxAliasCount: 100,
    reviver: (_key, value) =>
      value !== null && typeof value === 'object' && !Array.isArray(value) ? compactRecord(value) : value,
  });
}

function where(node: unknown): string {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range === undefined ? '' : ` (at character ${range[0]})`;
}
