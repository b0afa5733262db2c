import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { kitVersion } from './kit-version.js';

it('the version petstore-contract prints is the package version', async () => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(kitVersion).toBe(pkg.version);
});
