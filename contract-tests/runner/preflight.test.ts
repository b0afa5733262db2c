import { describe, expect, it } from 'vitest';
import { candidateBaseUrls, transportReason } from './preflight.js';

describe('preflight helpers', () => {
  it('suggests the base URLs users most often meant, in order, never the one given', () => {
    expect(candidateBaseUrls('https://api.example.com')).toEqual(['https://api.example.com/v1']);
    expect(candidateBaseUrls('https://api.example.com/petstore')).toEqual([
      'https://api.example.com/petstore/v1',
      'https://api.example.com/v1',
    ]);
    expect(candidateBaseUrls('https://api.example.com/v2')).toEqual(['https://api.example.com/v1']);
    expect(candidateBaseUrls('https://api.example.com/api/v2')).toEqual([
      'https://api.example.com/api/v1',
      'https://api.example.com/v1',
    ]);
    expect(candidateBaseUrls('https://api.example.com/v1/categories')).toEqual(['https://api.example.com/v1']);
    expect(candidateBaseUrls('https://api.example.com/v1/pets/7')).toEqual(['https://api.example.com/v1']);
    expect(candidateBaseUrls('https://api.example.com/v1')).toEqual([]);
    expect(candidateBaseUrls('https://api.example.com/gateway/v1')).toEqual(['https://api.example.com/v1']);
  });

  it('names the cause of a failed connection in words a user can act on', () => {
    const failure = (code: string, message: string, name = 'Error') =>
      Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(message), { code, name }) });
    expect(transportReason(failure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'), 10_000)).toBe(
      'connection refused (is the server running, and is the port right?)',
    );
    expect(transportReason(failure('ENOTFOUND', 'getaddrinfo ENOTFOUND staging.example.invalid'), 10_000)).toBe(
      'the host name does not resolve (DNS)',
    );
    expect(transportReason(failure('EAI_AGAIN', 'getaddrinfo EAI_AGAIN staging'), 10_000)).toBe(
      'the host name does not resolve (DNS)',
    );
    expect(transportReason(failure('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 10_000)).toBe(
      'TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate): a certificate this machine does not trust? (NODE_EXTRA_CA_CERTS=ca.pem adds a CA)',
    );
    expect(transportReason(failure('CERT_HAS_EXPIRED', 'certificate has expired'), 10_000)).toContain(
      'TLS failed (CERT_HAS_EXPIRED: certificate has expired)',
    );
    expect(
      transportReason(
        failure('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
        10_000,
      ),
    ).toContain('TLS failed (ERR_TLS_CERT_ALTNAME_INVALID');
    expect(transportReason(Object.assign(new Error('x'), { name: 'TimeoutError' }), 2_500)).toBe(
      'no answer within 2.5 s',
    );
    expect(
      transportReason(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }), 10_000),
    ).toContain('the connection was closed before an answer (UND_ERR_SOCKET: other side closed)');
  });
});
