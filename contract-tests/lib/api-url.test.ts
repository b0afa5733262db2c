import { describe, expect, it } from 'vitest';
import { apiUrl, normaliseBaseUrl } from './api-url.js';

describe('URLs', () => {
  it('joins the base URL and a spec path', () => {
    expect(apiUrl('http://127.0.0.1:4010/v1', '/categories')).toBe('http://127.0.0.1:4010/v1/categories');
    expect(apiUrl('http://127.0.0.1:4010/v1/', '/pets/1')).toBe('http://127.0.0.1:4010/v1/pets/1');
    expect(() => apiUrl('http://h/v1', 'categories')).toThrow('Failed to build a URL for categories');
  });

  it('normalises a user-given base URL and refuses what it cannot use', () => {
    expect(normaliseBaseUrl('https://api.example.com/v1/')).toBe('https://api.example.com/v1');
    expect(normaliseBaseUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(() => normaliseBaseUrl('127.0.0.1:4010/v1')).toThrow(/only http and https|not an absolute URL/);
    expect(() => normaliseBaseUrl('ftp://h/v1')).toThrow('only http and https');
    expect(() => normaliseBaseUrl('http://h/v1?x=1')).toThrow('query or a fragment');
    expect(() => normaliseBaseUrl('http://user:pw@h/v1')).toThrow('--api-key');
  });
});
