import { describe, expect, it } from 'vitest';
import { resolveContractOptions } from './contract-options.js';

describe('resolveContractOptions', () => {
  it('applies the defaults', () => {
    expect(resolveContractOptions({ baseUrl: 'http://127.0.0.1:4010/v1/', apiKey: 'demo-pro' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:4010/v1',
      rateLimitKey: undefined,
      readOnly: false,
      maxRequests: 1100,
      maxWaitSeconds: 120,
      timeoutSeconds: 10,
      concurrency: 4,
      seed: expect.any(Number),
      propertyRuns: 15,
      thorough: false,
      windowWaitSeconds: 0,
      deadlineSeconds: 300,
    });
  });

  it('--thorough spends time (waits, a 10-minute deadline), explicit options winning; --seed repeats a run', () => {
    const base = { baseUrl: 'http://h/v1', apiKey: 'k' };
    expect(resolveContractOptions({ ...base, thorough: true })).toMatchObject({
      thorough: true,
      windowWaitSeconds: 480,
      deadlineSeconds: 600,
      propertyRuns: 45,
    });
    expect(resolveContractOptions({ ...base, thorough: true, windowWaitSeconds: 90 }).windowWaitSeconds).toBe(90);
    expect(resolveContractOptions({ ...base, seed: 7 }).seed).toBe(7);
    expect(() => resolveContractOptions({ ...base, exhaustMainKey: true })).toThrow(
      '--exhaust-main-key: it belongs to --thorough',
    );
  });

  it('refuses options it cannot use, naming the flag', () => {
    const base = { baseUrl: 'http://h/v1', apiKey: 'k' };
    expect(() => resolveContractOptions({ ...base, rateLimitKey: 'k' })).toThrow(
      '--rate-limit-key: it must differ from --api-key',
    );
    expect(() => resolveContractOptions({ ...base, apiKey: 'has space' })).toThrow(
      '--api-key: a key must be printable ASCII without spaces',
    );
    expect(() => resolveContractOptions({ ...base, apiKey: 'a\r\nX-Injected: 1' })).toThrow('printable ASCII');
    expect(() => resolveContractOptions({ ...base, concurrency: 0 })).toThrow(
      '--concurrency: 0 is not an integer from 1 to 64',
    );
    expect(() => resolveContractOptions({ ...base, timeoutSeconds: 0 })).toThrow('--timeout');
    expect(() => resolveContractOptions({ ...base, maxRequests: 1.5 })).toThrow('--max-requests');
    expect(() => resolveContractOptions({ ...base, baseUrl: 'nope' })).toThrow('Failed to use base URL "nope"');
  });
});
