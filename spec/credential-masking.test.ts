import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  commonCredentialPlaces,
  createRedactor,
  credentialPlacesOf,
  looksLikeCredentialHeader,
  maskCredentialPatterns,
  maskHeaderValue,
  maskQueryCredentials,
  maskSecret,
  redactDeep,
  secretsOfRequest,
} from './credential-masking.js';

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

  it('masks every 8-character run of a key, wherever an excerpt cuts it (issue 40, row 7)', () => {
    const key = 'k3y-AbCdEfGhIjKlMnOpQrStUvWxYz01';
    const cut = createRedactor([key]);
    const body = `${'x'.repeat(80)}the key ${key} came back${'y'.repeat(80)}`;
    for (let start = 0; start < body.length; start += 1)
      for (const length of [8, 20, 80]) {
        const shown = cut(body.slice(start, start + length)).toLowerCase();
        for (let at = 0; at + 8 <= key.length; at += 1)
          expect(shown, `excerpt at ${start}, ${length} long`).not.toContain(key.slice(at, at + 8).toLowerCase());
      }
  });

  it('masks a key inside a longer base64, base64url, hex or percent-encoded text, at any offset (property)', () => {
    // The oracle decodes what is left, each stretch of encoded characters at each alignment, and looks for the key.
    const decodings = (text: string): string[] => {
      const out: string[] = [];
      for (const stretch of text.match(/[A-Za-z0-9+/_-]{4,}/g) ?? [])
        for (let shift = 0; shift < 4; shift += 1)
          out.push(
            Buffer.from(stretch.slice(shift).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1'),
          );
      for (const stretch of text.match(/(?:%?[0-9a-fA-F]{2})+/g) ?? [])
        for (const shift of [0, 1])
          out.push(Buffer.from(stretch.replace(/%/g, '').slice(shift), 'hex').toString('latin1'));
      return out;
    };
    const alphabet = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~');
    const encodings = {
      base64: (bytes: Buffer) => bytes.toString('base64'),
      base64url: (bytes: Buffer) => bytes.toString('base64url'),
      hex: (bytes: Buffer) => bytes.toString('hex'),
      percent: (bytes: Buffer) => bytes.toString('hex').replace(/../g, '%$&'),
    };
    fc.assert(
      fc.property(
        fc.string({ unit: alphabet, minLength: 12, maxLength: 40 }),
        fc.string({ maxLength: 6 }),
        fc.string({ maxLength: 6 }),
        fc.constantFrom(...(Object.keys(encodings) as (keyof typeof encodings)[])),
        (key, before, after, encoding) => {
          const shown = createRedactor([key])(
            `echo ${encodings[encoding](Buffer.from(`${before}${key}${after}`))} end`,
          );
          for (const decoded of decodings(shown))
            for (let at = 0; at + 8 <= key.length; at += 1) expect(decoded).not.toContain(key.slice(at, at + 8));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('leaves runs shorter than 8 and text around a key as they are', () => {
    const cut = createRedactor(['k3y-AbCdEfGhIjKlMnOp']);
    expect(cut('k3y-AbC is 7 characters')).toBe('k3y-AbC is 7 characters');
    expect(cut('before k3y-AbCd after')).toBe('before k3y-…(20) after');
    expect(cut('x'.repeat(3))).toBe('xxx');
  });

  it('masks only whole secrets in the names a report gives things, which a readable secret may share a run with', () => {
    const readable = createRedactor(['s3cr3t-session-value']);
    // In a text any 8-character run is masked, also one the secret shares with a name: the safe side.
    expect(readable('x-api-session: s3cr3t-session-val…')).toBe('x-apis3cr…(20): s3cr…(20)…');
    expect(redactDeep({ 'x-api-session': 's3cr3t-session-value' }, readable)).toEqual({ 'x-api-session': 's3cr…(20)' });
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

describe('where credentials travel', () => {
  const places = credentialPlacesOf({
    components: {
      securitySchemes: {
        q: { type: 'apiKey', in: 'query', name: 'tenantPass' },
        h: { type: 'apiKey', in: 'header', name: 'X-Tenant-Ident' },
        c: { type: 'apiKey', in: 'cookie', name: 'tenant_ident' },
        b: { type: 'http', scheme: 'bearer' },
      },
    },
  });

  it("masks query values by common names and the document's apiKey names, and leaves the rest", () => {
    expect(maskQueryCredentials('/v1/x?tenantPass=abcdefghij&limit=2', places)).toBe(
      '/v1/x?tenantPass=abcd…(10)&limit=2',
    );
    expect(maskQueryCredentials('/v1/x?tenantPass=abcdefghij')).toBe('/v1/x?tenantPass=abcdefghij');
    expect(maskQueryCredentials('/v1/x?API_KEY=abcdefghij&access_token=zyxwvutsrq&key=1234567')).toBe(
      '/v1/x?API_KEY=abcd…(10)&access_token=zyxw…(10)&key=12…(7)',
    );
    // Inside a JSON line, a value ends at its quote; a mask is never masked again.
    expect(maskQueryCredentials('{"url":"/v1/x?token=abcdefghij","n":1}')).toBe(
      '{"url":"/v1/x?token=abcd…(10)","n":1}',
    );
    expect(maskQueryCredentials('/v1/x?token=abcd…(10)')).toBe('/v1/x?token=abcd…(10)');
  });

  it('collects the secrets of a request by every route', () => {
    const secrets = secretsOfRequest(
      {
        authorization: 'Bearer bearer-key-123',
        'x-tenant-ident': 'header-key-456',
        cookie: 'theme=dark; tenant_ident=cookie-key-789',
        accept: 'application/json',
      },
      '/v1/x?tenantPass=query-key-000&limit=2',
      places,
    );
    expect(secrets.sort()).toEqual(['bearer-key-123', 'cookie-key-789', 'header-key-456', 'query-key-000']);
    expect(secretsOfRequest({ authorization: `Basic ${btoa('me:pass-word-1')}` }, '/')).toContain('pass-word-1');
  });

  it('masks header values by name: Authorization keeps its scheme, cookies their names', () => {
    expect(maskHeaderValue('Authorization', 'Bearer abcdefghijk')).toBe('Bearer abcd…(11)');
    expect(maskHeaderValue('Cookie', 'sid=abcdefghij; theme=dark')).toBe('sid=abcd…(10); theme=d…(4)');
    expect(maskHeaderValue('X-Tenant-Ident', 'abcdefghij', places)).toBe('abcd…(10)');
    expect(maskHeaderValue('X-Tenant-Ident', 'abcdefghij', commonCredentialPlaces)).toBe('abcdefghij');
    expect(maskHeaderValue('Accept', 'application/json')).toBe('application/json');
  });

  it('masks what looks like a credential in any text, and leaves prose', () => {
    expect(maskCredentialPatterns('GET /v1/x?token=abcdefghij -> 401 (Bearer zyxw-vutsr)')).toBe(
      'GET /v1/x?token=abcd…(10) -> 401 (Bearer zyxw…(10))',
    );
    expect(maskCredentialPatterns('Bearer authentication; WWW-Authenticate: Bearer realm="Pets"')).toBe(
      'Bearer authentication; WWW-Authenticate: Bearer realm="Pets"',
    );
  });
});
