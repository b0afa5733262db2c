import { describe, expect, it } from 'vitest';
import { reportedOptions, resolveContractOptions, targetOptions } from './contract-options.js';

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

describe('the target and the report settings, derived from the resolved options', () => {
  const settings = resolveContractOptions({
    baseUrl: 'http://h/v1',
    apiKey: 'key-12345',
    rateLimitKey: 'limited-6789',
    headers: ['X-Tenant: acme', 'X-Session: s1'],
    timeoutSeconds: 2.5,
    seed: 3,
  });

  it('hands every check the options it reads, times in milliseconds', () => {
    const target = targetOptions(settings);
    expect(Object.keys(target).sort()).toEqual(
      [
        'allowDestructive',
        'apiKey',
        'clock',
        'concurrency',
        'createBudget',
        'directBaseUrl',
        'exhaustMainKey',
        'extraHeaders',
        'invalidCases',
        'maxBodyBytes',
        'maxRequests',
        'maxWaitMs',
        'propertyRuns',
        'rateLimitKey',
        'readOnly',
        'seed',
        'specPath',
        'strict',
        'thorough',
        'timeoutMs',
        'viaPrism',
        'windowWaitMs',
      ].sort(),
    );
    expect(target).toMatchObject({
      directBaseUrl: 'http://h/v1',
      timeoutMs: 2500,
      maxWaitMs: 120_000,
      windowWaitMs: 0,
    });
  });

  it('states the run settings in the report with keys and credential-like headers masked', () => {
    const reported = reportedOptions(
      settings,
      (key) => `${key.slice(0, 2)}…`,
      (name, value) => (name === 'x-session' ? '***' : value),
    );
    expect(reported).toMatchObject({
      apiKey: 'ke…',
      rateLimitKey: 'li…',
      extraHeaders: { 'x-tenant': 'acme', 'x-session': '***' },
      timeoutSeconds: 2.5,
      seed: 3,
      maxBodyBytes: 1_048_576,
    });
    expect(JSON.stringify(reported)).not.toMatch(/key-12345|limited-6789|s1/);
    expect(Object.keys(reported).sort()).toEqual(
      [
        'allowDestructive',
        'apiKey',
        'concurrency',
        'createBudget',
        'deadlineSeconds',
        'extraHeaders',
        'failOnSkip',
        'invalidCases',
        'maxBodyBytes',
        'maxRequests',
        'maxWaitSeconds',
        'propertyRuns',
        'rateLimitKey',
        'readOnly',
        'seed',
        'strict',
        'thorough',
        'timeoutSeconds',
        'windowWaitSeconds',
      ].sort(),
    );
  });
});
