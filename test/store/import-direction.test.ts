import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

describe('the browser-safe half never reaches the Redis client', () => {
  it('no file in src/core or mocks/ imports the Redis store, node-redis or a node: module through the store files', () => {
    const offenders: string[] = [];
    for (const file of [...sourceFiles(join(root, 'src', 'core')), ...sourceFiles(join(root, 'mocks'))]) {
      const text = readFileSync(file, 'utf8');
      if (
        /from\s+['"](redis|@redis\/[^'"]+)['"]|import\(\s*['"](redis|@redis\/)/.test(text) ||
        /redis-store(\.js)?['"]/.test(text)
      )
        offenders.push(relative(root, file));
    }
    expect(offenders).toEqual([]);
  });

  it('the state store interface and the memory store use no Node module', () => {
    for (const file of ['state/state-store.ts', 'state/memory-store.ts']) {
      const text = readFileSync(join(root, 'src', 'core', file), 'utf8');
      expect(text, file).not.toMatch(/from\s+['"]node:|NodeJS\.|Buffer\b|process\./);
    }
  });
});
