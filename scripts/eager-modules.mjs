// esbuild plugin for self-contained Node bundles (the bins, the contract runner): the modules the
// library loads on first use (the YAML readers, faker and json-schema-faker, ajv and ajv-formats, re2js, zod;
// spec/yaml-module.ts, spec/document-yaml.ts, spec/fake-data-modules.ts, spec/validator-modules.ts, spec/linear-patterns.ts,
// spec/zod-module.ts) are bundled and handed to each file's `lazy` (spec/lazy-module.ts) at start instead, since such a bundle has no
// node_modules to load them from later. The library's own entry points (dist/mocks/*) stay lazy.
import { readFile } from 'node:fs/promises';

const eagerTails = {
  'yaml-module.ts': "\nimport * as bundledYaml from 'yaml';\nlazy.provide(bundledYaml);\n",
  'fake-data-modules.ts':
    "\nimport { faker as bundledFaker } from '@faker-js/faker/locale/en';\nimport * as bundledSchemaFaker from 'json-schema-faker';\nlazy.provide(fromModules({ faker: bundledFaker }, bundledSchemaFaker));\n",
  'validator-modules.ts':
    "\nimport * as bundledAjv from 'ajv/dist/2020.js';\nimport bundledFormats from 'ajv-formats';\nlazy.provide(fromModules(bundledAjv, bundledFormats));\n",
  'linear-patterns.ts': "\nimport { RE2JS as bundledRE2JS } from 're2js';\nlazy.provide(bundledRE2JS);\n",
  'document-yaml.ts': "\nimport * as bundledJsYaml from 'js-yaml';\nlazy.provide(bundledJsYaml);\n",
  // By name, as spec/zod-for-pages.ts hands them to a page: the whole namespace would keep every locale.
  'zod-module.ts':
    "\nimport { array, boolean, int, literal, looseObject, number, object, record, strictObject, string, union, unknown, url, enum as enumOf } from 'zod';\nlazy.provide({ array, boolean, int, literal, looseObject, number, object, record, strictObject, string, union, unknown, url, enum: enumOf });\n",
};

/**
 * `lazy` names modules left to load on first use (from the user's node_modules, or their fallback).
 *
 * @example await build({ entryPoints: ['src/cli/mock-cli.ts'], bundle: true, plugins: [eagerModulesPlugin()] });
 */
export function eagerModulesPlugin({ lazy = [] } = {}) {
  return {
    name: 'eager-modules',
    setup(build) {
      build.onLoad(
        {
          filter:
            /[\\/]spec[\\/](yaml-module|document-yaml|fake-data-modules|validator-modules|linear-patterns|zod-module)\.ts$/,
        },
        async (args) => {
          const name = args.path.slice(args.path.search(/[^\\/]+$/));
          if (lazy.includes(name)) return undefined;
          return { contents: (await readFile(args.path, 'utf8')) + eagerTails[name], loader: 'ts' };
        },
      );
    },
  };
}
