import { describe, expect, it } from 'vitest';
import { readBaseUrl, targetPath, targetQuery } from './url-parts.js';

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

describe('readBaseUrl', () => {
  it.each([
    ['https://api.example.com/v1/', '/v1'],
    ['http://127.0.0.1:4010', ''],
    ['http://h/v1//', '/v1'],
  ])('%s: path %s', (text, path) => {
    const read = readBaseUrl(text);
    expect('problem' in read ? read.problem : read.path).toBe(path);
  });

  it.each([
    ['127.0.0.1:4010/v1', 'not-absolute'],
    ['not a url', 'not-absolute'],
    ['ftp://h/v1', 'not-http'],
    ['http://user:pw@h/v1', 'credentials'],
    ['http://h/v1?x=1', 'query-or-fragment'],
    ['http://h/v1#top', 'query-or-fragment'],
    // Credentials first: the message about a query quotes the text.
    ['http://user:pw@h/v1?x=1', 'credentials'],
  ])('%s: %s', (text, problem) => {
    expect(readBaseUrl(text)).toEqual({ problem });
  });
});
