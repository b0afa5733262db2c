import { describe, expect, it } from 'vitest';
import { targetPath, targetQuery } from './url-parts.js';

describe('targetPath and targetQuery', () => {
  it.each([
    ['/v1/pets?limit=2', '/v1/pets', 'limit=2'],
    ['/v1/pets', '/v1/pets', ''],
    ['/v1/pets?', '/v1/pets', ''],
    ['/v1/pets?a=1?b=2', '/v1/pets', 'a=1?b=2'],
    ['?only=query', '', 'only=query'],
    ['', '', ''],
  ])('%s: path %s, query %s', (target, path, query) => {
    expect(targetPath(target)).toBe(path);
    expect(targetQuery(target)).toBe(query);
  });
});
