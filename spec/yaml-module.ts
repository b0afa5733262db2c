import type * as Yaml from 'yaml';
import { compactRecord } from './compact-record.js';
import { lazyModule } from './lazy-module.js';

// The YAML reader (95 kB) is loaded on first use, not with the mock: most mocks read no YAML text,
// and a JSON text is read without it. In Node it is loaded synchronously when first needed; in a
// browser the MSW adapter loads it ahead (`loadYamlModule()`) before a YAML text can arrive.

export type YamlModule = typeof Yaml;

const lazy = lazyModule<YamlModule>({
  what: 'the YAML reader',
  notLoaded: 'the YAML reader is not loaded yet in this page (give JSON, or await loadYamlModule() first)',
  require: (require) => require('yaml') as YamlModule,
  import: () => import('yaml'),
});

/**
 * Loads `yaml` (once; later calls share the load).
 *
 * @example await loadYamlModule(); readYamlText('presets: [banned-key]');
 */
export function loadYamlModule(): Promise<YamlModule> {
  return lazy.load();
}

/** True when a YAML text can be read now without waiting (loaded, or in Node). */
export function yamlModuleAvailable(): boolean {
  return lazy.available();
}

/** `yaml` now: loaded already, or in Node loaded synchronously; in a page before `loadYamlModule()`, an error. */
export function yamlModule(): YamlModule {
  return lazy.now();
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
