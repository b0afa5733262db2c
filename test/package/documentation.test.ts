import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMockApp, errorCatalogue, parseMockConfig, readSpecFile } from '../../src/index.js';
import { codeBlockStartingWith, headingAnchors, linkTargets, prose, repositoryPath } from '../support/markdown.js';

// The documentation a user reads, held to the code: every link and anchor resolves, the README stays
// short, user pages carry no issue numbers or commit hashes, and the tables and blocks that mirror the
// code (config defaults, error codes, every command-line option) say what the code does.

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFile(join(root, path), 'utf8');

/** Pages another part of the work creates; linked already. Remove a name once its page exists. */
const pagesToCome = new Set([
  'docs/contract-kit-matrix.md',
  'docs/contract-kit-ci.md',
  'docs/petstore-service-interface.md',
]);

/** The pages written for users: the README, the changelog and every page of docs/ but the contributors' own. */
async function userPages(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  // architecture.md and where-a-change-goes.md are for contributors (where-a-change-goes.test.ts checks the second).
  const contributorPages = new Set(['docs/architecture.md', 'docs/where-a-change-goes.md']);
  return ['README.md', 'CHANGELOG.md', ...docs.filter((page) => !contributorPages.has(page))];
}

/** Long options (`--name`) a command's `--help` lists. */
async function helpOptions(args: string[]): Promise<string[]> {
  const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
  const { stdout } = await run(process.execPath, [tsx, ...args, '--help'], { cwd: root, timeout: 30_000 });
  return [...new Set(stdout.match(/(?<![\w-])--[a-z][a-z-]+/g) ?? [])];
}

describe('the README', () => {
  it('is at most 400 lines, with a table of contents and a quick start per user', async () => {
    const readme = await read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
    for (const heading of [
      '## Contents',
      '## Install',
      '## Quick start: frontend developer',
      '## Quick start: CI engineer',
      '## Quick start: incident responder',
      '## Contributing',
    ]) {
      expect(readme.split('\n')).toContain(heading);
    }
    // The quick starts use the installed commands, not the repository's scripts.
    const quickStarts = readme.slice(
      readme.indexOf('## Quick start: frontend developer'),
      readme.indexOf('## Documentation'),
    );
    expect(quickStarts).not.toMatch(/npm run|npm start|\btsx\b/);
  });

  it('links every page of docs/ written for users', async () => {
    const readme = await read('README.md');
    // A page the package does not ship is linked at the repository (tarball-links.test.ts).
    const { repository } = JSON.parse(await read('package.json')) as { repository: { url: string } };
    const linked = new Set(
      linkTargets(readme).map((target) => (repositoryPath(target, repository.url) ?? target).split('#')[0]),
    );
    expect((await userPages()).filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
  });
});

describe('the user documentation', () => {
  it('has no link or anchor that leads nowhere', async () => {
    const broken: string[] = [];
    for (const page of await userPages()) {
      const text = await read(page);
      for (const target of linkTargets(text)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path))).replace(/\/$/, '');
        if (relative(root, resolve(root, file)).startsWith('..'))
          broken.push(`${page}: ${target} (outside the repository)`);
        else if (!existsSync(join(root, file))) {
          if (!pagesToCome.has(file)) broken.push(`${page}: ${target} (no such file)`);
        } else if (anchor !== undefined && file.endsWith('.md') && !headingAnchors(await read(file)).has(anchor))
          broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names no issue, commit hash or work step: it describes the kit, not its history', async () => {
    const found: string[] = [];
    for (const page of await userPages()) {
      // Link targets are addresses, not prose (an anchor may start with a number).
      const text = prose(await read(page)).replace(/\]\([^)]*\)/g, ']');
      for (const pattern of [
        /\bissues? \d+/gi,
        /(?<![\w&])#\d+\b/g,
        /\bstop \d+\b/gi,
        /\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g,
      ]) {
        for (const match of text.matchAll(pattern)) found.push(`${page}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});

describe('the pages that mirror the code', () => {
  it('configuration.md: the block of defaults is exactly the configuration of an empty file', async () => {
    const block = codeBlockStartingWith(
      await read('docs/configuration.md'),
      "plans:                      # the interface's plans; yours are merged over them",
    );
    expect(parseMockConfig(parse(block))).toEqual(parseMockConfig({}));
    // The settings left unset by default are named in the block's comments.
    for (const name of ['controlToken', 'store', 'scenario']) expect(block).toContain(`# ${name}:`);
  });

  it('mock.md: the error table has one row per code of the catalogue, with its status', async () => {
    const page = await read('docs/mock.md');
    const rows = [...page.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((match) => `${match[1]} ${match[2]}`);
    expect(rows.sort()).toEqual(
      Object.entries(errorCatalogue)
        .map(([code, entry]) => `${entry.status} ${code}`)
        .sort(),
    );
  });

  it('mock.md: the controls table names every control the mock serves, with its method', async () => {
    // The mock lists its controls when asked for one it does not have: the list a user sees.
    const app = createMockApp({ spec: await readSpecFile() });
    const answer = await app.handle({
      method: 'GET',
      url: '/__mock/no-such-control',
      headers: { host: '127.0.0.1' },
      body: null,
      clientAddress: '127.0.0.1',
    });
    const message = (JSON.parse(String(answer.body)) as { message: string }).message;
    const controls = message.slice(message.indexOf('controls: ') + 'controls: '.length).split(', ');
    expect(controls.length).toBeGreaterThan(10);
    const page = await read('docs/mock.md');
    expect(
      controls
        .map((control) => `\`${control}\``)
        .filter((control) => !page.includes(`| ${control}`) && !page.includes(`, ${control}`)),
    ).toEqual([]);
  });

  it('every option of petstore-mock --help is documented in mock.md', async () => {
    const page = await read('docs/mock.md');
    expect((await helpOptions(['src/cli/mock-cli.ts'])).filter((option) => !page.includes(option))).toEqual([]);
  });

  it('every option of petstore-mock replay --help is documented in lab-and-replay.md', async () => {
    const page = await read('docs/lab-and-replay.md');
    expect((await helpOptions(['src/cli/mock-cli.ts', 'replay'])).filter((option) => !page.includes(option))).toEqual(
      [],
    );
  });

  it('every option of petstore-contract --help is documented in contract-kit.md', async () => {
    const page = await read('docs/contract-kit.md');
    expect(
      (await helpOptions(['contract-tests/cli/contract-cli.ts'])).filter((option) => !page.includes(option)),
    ).toEqual([]);
  });
});
