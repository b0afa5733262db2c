import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

// `petstore-kit/mocks` and `petstore-kit/mocks/browser` run in a page: bundling them for the
// browser must succeed and pull in nothing Node-only (node:*, spec/load-spec.ts, its fs).

it.each(['handlers.ts', 'browser.ts'])(
  'mocks/%s bundles for the browser with no Node-only module',
  async (entry) => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('src/core/mock-app.ts');
    expect(
      inputs.filter(
        (input) => input.startsWith('node:') || input.includes('load-spec') || input.startsWith('src/server/'),
      ),
    ).toEqual([]);
    // A bundle of the whole core: past vitest's 5 s default when the suite shares two cores.
  },
  30_000,
);
