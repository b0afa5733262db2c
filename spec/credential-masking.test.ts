import { describe, expect, it } from 'vitest';
import { createRedactor, looksLikeCredentialHeader, maskSecret, redactDeep } from './credential-masking.js';

describe('createRedactor', () => {
  const redact = createRedactor(['demo-enterprise', 'tenant-session-01']);

  it('masks a secret wherever it appears, in any case, URL-encoded, base64 or cut short by one character', () => {
    expect(redact('Bearer demo-enterprise')).toBe('Bearer demo…(15)');
    expect(redact('echo DEMO-ENTERPRISE and Demo-Enterprise')).toBe('echo demo…(15) and demo…(15)');
    expect(redact('?api_key=demo-enterprise&x=1')).toBe('?api_key=demo…(15)&x=1');
    expect(redact(Buffer.from('demo-enterprise').toString('base64'))).not.toContain('ZGVtby1lbnRlcnByaXNl');
    expect(redact('demo-enterpris')).toBe('demo…(15)');
    expect(redact('cookie: session=tenant-session-01')).toBe('cookie: session=tena…(17)');
  });

  it('masks every string of a report, keys included', () => {
    expect(redactDeep({ 'main key demo-enterprise': ['x demo-enterprise'], n: 1 }, redact)).toEqual({
      'main key demo…(15)': ['x demo…(15)'],
      n: 1,
    });
  });

  it('knows which header names carry credentials', () => {
    for (const name of ['Authorization', 'Cookie', 'X-Api-Key', 'X-Auth-Token', 'X-Session'])
      expect(looksLikeCredentialHeader(name), name).toBe(true);
    expect(looksLikeCredentialHeader('X-Tenant')).toBe(false);
  });
});

describe('maskSecret', () => {
  it.each([
    ['demo-enterprise', 'demo…(15)'],
    ['sk_live_ABCDEFGHIJ', 'sk_l…(18)'],
    ['short', 's…(5)'],
    ['ab', '…(2)'],
  ])('masks %s as %s', (secret, masked) => {
    expect(maskSecret(secret)).toBe(masked);
  });
});
