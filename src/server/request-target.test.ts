import { describe, expect, it } from 'vitest';
import { normaliseTarget, removeDotSegments } from './request-target.js';

describe('removeDotSegments (RFC 3986 section 5.2.4)', () => {
  it.each([
    ['/a/b/c/./../../g', '/a/g'],
    ['/v1/categories', '/v1/categories'],
    ['/v1/./categories', '/v1/categories'],
    ['/v1/pets/../categories', '/v1/categories'],
    ['/v1/..', '/'],
    ['/v1/.', '/v1/'],
    ['/v1/a/..', '/v1/'],
    ['/../../v1', '/v1'],
    ['/v1//categories', '/v1//categories'],
    ['/v1/..a/.b', '/v1/..a/.b'],
  ])('%s is %s', (path, normalised) => {
    expect(removeDotSegments(path)).toBe(normalised);
  });
});

describe('normaliseTarget', () => {
  it.each([
    ['/v1/%2e%2E/x?q=/../%2e', { path: '/x', query: '?q=/../%2e' }],
    ['http://Elsewhere.Example:8080/v1/categories', { path: '/v1/categories', query: '' }],
    ['https://h', { path: '/', query: '' }],
    ['http://h?x', { path: '/', query: '?x' }],
    ['/v1/%41', { path: '/v1/%41', query: '' }],
  ])('%s is forwarded as %j', (target, expected) => {
    expect(normaliseTarget(target)).toEqual(expected);
  });

  it.each([
    '*',
    'ftp://h/v1',
    'v1/categories',
    '/v1/a#b',
    '/v1/%2F',
    '/v1/%5c',
    '/v1/\\',
    '/v1/%252E',
    '/v1/%2',
    '/v1/%g1',
    '/v1/..;/admin',
    '/v1/%2e%2e;x/admin',
    '/v1/.;/a',
  ])('%s is refused', (target) => {
    expect(normaliseTarget(target)).toHaveProperty('refused');
  });
});
