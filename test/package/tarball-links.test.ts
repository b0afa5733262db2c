import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, normalize, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { headingAnchors, linkTargets, repositoryPath, repositoryWeb } from '../support/markdown.js';

// The pages a user reads where npm puts them (node_modules/petstore-kit, the registry's page) lead
// somewhere: a relative link of a shipped page names a file the tarball holds, and what the package
// leaves out on purpose (the contributors' pages, the decisions) is linked at the repository, where
// it must exist. documentation.test.ts holds the same pages to the repository's tree.

const root = resolve(import.meta.dirname, '../..');
const repositoryUrl = (
  JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { repository: { url: string } }
).repository.url;

let packed: Set<string>;

beforeAll(async () => {
  // The list `npm pack` would pack ("files" of package.json), without prepack's build: no page links dist/.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
  const [tarball] = JSON.parse(stdout) as { files: { path: string }[] }[];
  packed = new Set(tarball!.files.map((file) => file.path));
});

/** Whether `path` is a file of the tarball or a folder holding one. */
const inTarball = (path: string) => packed.has(path) || [...packed].some((file) => file.startsWith(`${path}/`));

/** Whether `path` (with an optional `#anchor`) names a file or folder of the repository, and the anchor a heading of it. */
async function inRepository(target: string): Promise<boolean> {
  const [path = '', anchor] = target.split('#');
  const file = normalize(decodeURI(path)).replace(/\/$/, '');
  if (file.startsWith('..') || !existsSync(join(root, file))) return false;
  if (anchor === undefined || !file.endsWith('.md')) return true;
  return headingAnchors(await readFile(join(root, file), 'utf8')).has(anchor);
}

/** Every link of `page` (a shipped Markdown file) that leads nowhere for a reader of the package. */
async function deadLinks(page: string): Promise<string[]> {
  const dead: string[] = [];
  for (const target of linkTargets(await readFile(join(root, page), 'utf8'))) {
    const inRepo = repositoryPath(target, repositoryUrl);
    if (inRepo !== undefined) {
      if (!(await inRepository(inRepo))) dead.push(`${page}: ${target} (not in the repository)`);
      continue;
    }
    if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('#')) continue;
    const file = normalize(join(dirname(page), decodeURI(target.split('#')[0]!))).replace(/\/$/, '');
    if (!inTarball(file))
      dead.push(
        `${page}: ${target} (not in the tarball: ship it or link ${repositoryWeb(repositoryUrl)}/blob/main/${file})`,
      );
  }
  return dead;
}

describe('the shipped pages', () => {
  it('are the README, the changelog and the user pages of docs/', () => {
    const pages = [...packed].filter((file) => file.endsWith('.md'));
    expect(pages).toEqual(
      expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/mock.md', 'docs/contract-kit.md']),
    );
    // The contributors' pages stay out: the README links them at the repository.
    expect(pages).not.toContain('docs/contributing.md');
    expect(pages).not.toContain('docs/architecture.md');
  });

  it('link only files of the tarball, absolute addresses, and files of the repository at its address', async () => {
    const pages = [...packed].filter((file) => file.endsWith('.md'));
    const dead = (await Promise.all(pages.map(deadLinks))).flat();
    expect(dead).toEqual([]);
  });
});
