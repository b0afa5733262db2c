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
      seed: 424242,
      propertyRuns: 15,
    });
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
