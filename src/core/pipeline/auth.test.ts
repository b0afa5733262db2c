import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMockConfig } from '../config/mock-config.js';
import { createAuthenticator } from './auth.js';

const config = parseMockConfig({ keys: [{ key: 'team-key-123456', plan: 'pro' }] });

/** What a fresh authenticator, with nothing remembered, says of a header. */
const freshAnswer = (header: string | undefined) => createAuthenticator(config).credentials(header);

describe('createAuthenticator', () => {
  it('reads a bearer token, its plan, and why a header is refused', () => {
    const auth = createAuthenticator(config);
    expect(auth.credentials('Bearer demo-free')).toMatchObject({
      kind: 'token',
      token: 'demo-free',
      configKey: { plan: 'free' },
      demoKey: 'demo-free',
    });
    expect(auth.credentials('Bearer unknown-key')).toMatchObject({
      kind: 'token',
      token: 'unknown-key',
      configKey: undefined,
      demoKey: undefined,
    });
    expect(auth.credentials('Bearer team-key-123456')).toMatchObject({
      kind: 'token',
      configKey: { plan: 'pro' },
      demoKey: undefined,
    });
    expect(auth.credentials(undefined)).toMatchObject({
      kind: 'none',
      failure: expect.stringContaining('Missing API key'),
    });
    expect(auth.credentials('Basic abc')).toMatchObject({
      kind: 'none',
      failure: expect.stringContaining('Unsupported authorization scheme Basic'),
    });
    expect(auth.credentials('Bearer')).toMatchObject({ kind: 'none', failure: expect.stringContaining('Malformed') });
  });

  it('names a demo key as one only when the config serves the demo keys', () => {
    const withoutDemoKeys = createAuthenticator(
      parseMockConfig({ demoKeys: false, keys: [{ key: 'demo-free', plan: 'pro' }] }),
    );
    expect(withoutDemoKeys.credentials('Bearer demo-free')).toMatchObject({
      kind: 'token',
      configKey: { plan: 'pro' },
      demoKey: undefined,
    });
  });

  // The answers are remembered (the header before, and a bounded map): in any order of headers,
  // repeated or not, cached or too long to cache, each answer is what a fresh authenticator gives.
  it('answers every header as if it had never seen one before, in any order', () => {
    const headers = fc.oneof(
      fc.constantFrom(
        'Bearer demo-free',
        'Bearer demo-pro',
        'Bearer team-key-123456',
        'Bearer nope',
        'bearer demo-pro',
        'Token x',
        'Bearer',
        '',
      ),
      fc.string({ maxLength: 30 }).map((token) => `Bearer ${token}`),
      fc.constant(`Bearer ${'k'.repeat(600)}`),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(fc.array(headers, { maxLength: 40 }), (sequence) => {
        const auth = createAuthenticator(config);
        for (const header of sequence) expect(auth.credentials(header)).toEqual(freshAnswer(header));
      }),
      { numRuns: 200 },
    );
  });
});
