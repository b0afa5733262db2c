import { describe, expect, it } from 'vitest';
import { resolveRedisOptions } from './redis-connection.js';

/** docs/configuration.md: a password in the store URL is never printed, however it is written. */
describe('the store URL as it is printed', () => {
  it.each([
    ['redis://user:pa:ss@127.0.0.1:6390/0', 'redis://user:***@127.0.0.1:6390/0'],
    ['redis://user:p@ss@127.0.0.1:6390/0', 'redis://user:***@127.0.0.1:6390/0'],
    ['redis://:secret@127.0.0.1:6390/0', 'redis://:***@127.0.0.1:6390/0'],
    ['rediss://user:p%40ss@cache.internal/0', 'rediss://user:***@cache.internal/0'],
    ['redis://127.0.0.1:6379/0', 'redis://127.0.0.1:6379/0'],
  ])('%s is shown as %s', (url, shown) => {
    expect(resolveRedisOptions({ url }).displayUrl).toBe(shown);
  });

  it.each([
    'redis://user:s3cr3t@127.0.0.1:99999/0',
    'redis://user:s3cr3t@[::1/0',
    'ftp://user:s3cr3t@127.0.0.1/0',
    'redis://user:s3cr3t@127.0.0.1/x',
  ])('a refused URL (%s) is named without its password', (url) => {
    expect(() => resolveRedisOptions({ url })).toThrow(/Failed to use the store/);
    try {
      resolveRedisOptions({ url });
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cr3t');
    }
  });
});
