import { describe, expect, it } from 'vitest';
import { bearerToken, readAuthorization } from './bearer.js';

describe('the Bearer grammar (RFC 9110 credentials, RFC 6750 b64token)', () => {
  it('reads the scheme in any case and one or more spaces before the token', () => {
    for (const value of [
      'Bearer demo-free',
      'bearer demo-free',
      'BEARER demo-free',
      'Bearer   demo-free',
      'Bearer demo-free ',
    ])
      expect(readAuthorization(value), value).toEqual({ kind: 'bearer', token: 'demo-free', b64token: true });
  });

  it('says whether the token is a b64token (padding at the end only)', () => {
    expect(readAuthorization('Bearer abc+/~._-=')).toMatchObject({ b64token: true });
    expect(readAuthorization('Bearer ab=c')).toMatchObject({ kind: 'bearer', b64token: false });
    expect(readAuthorization('Bearer key!')).toMatchObject({ kind: 'bearer', token: 'key!', b64token: false });
  });

  it('names another scheme, and refuses what is not scheme 1*SP token', () => {
    expect(readAuthorization('Basic dXNlcjpwYXNz')).toEqual({ kind: 'other-scheme', scheme: 'Basic' });
    for (const value of [
      '',
      'Bearer',
      'Bearer ',
      'Bearer\tdemo-free',
      'Bearer demo free',
      ' Bearer demo-free',
      'Bearer dé',
    ])
      expect(readAuthorization(value), JSON.stringify(value)).toEqual({ kind: 'malformed' });
  });

  it('gives the bearer token or null', () => {
    expect(bearerToken('bearer k1')).toBe('k1');
    expect(bearerToken('Basic k1')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});
