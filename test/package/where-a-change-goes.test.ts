import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkTargets } from '../support/markdown.js';

// docs/where-a-change-goes.md names the files a newcomer touches: a path that moved must not send one to a file
// that is not there.

const root = resolve(import.meta.dirname, '../..');
const page = 'docs/where-a-change-goes.md';

/** Every `path` in backticks that looks like a file of the repository (a folder and an extension; no placeholder). */
function namedPaths(text: string): string[] {
  const paths = [...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!);
  return [
    ...new Set(paths.filter((path) => /^[\w.-]+\/[\w./*-]+\.\w+$/.test(path) || /^[\w-]+\.(md|yml|json)$/.test(path))),
  ];
}

describe(page, () => {
  it('names only files that exist (a glob names at least one)', async () => {
    const text = await readFile(join(root, page), 'utf8');
    const paths = namedPaths(text);
    expect(paths.length).toBeGreaterThan(30);
    const missing = paths.filter((path) => !existsSync(join(root, path.replace(/\/\*\.json$/, ''))));
    expect(missing).toEqual([]);
  });

  it('links only pages that exist, and architecture.md links it', async () => {
    const text = await readFile(join(root, page), 'utf8');
    for (const target of linkTargets(text)) expect(existsSync(join(root, 'docs', target.split('#')[0]!))).toBe(true);
    expect(await readFile(join(root, 'docs/architecture.md'), 'utf8')).toContain('(where-a-change-goes.md)');
  });
});
