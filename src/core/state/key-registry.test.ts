import { describe, expect, it } from 'vitest';
import { constantTimeEqual, KeyRegistry } from './key-registry.js';

describe('KeyRegistry', () => {
  it('finds a key by its exact value only', () => {
    const keys = new KeyRegistry();
    keys.set('demo-pro', 'pro', { perMinute: 300, perDay: 10_000 });
    expect(keys.find('demo-pro')).toMatchObject({ plan: 'pro', masked: 'de…(8)' });
    expect(keys.find('demo-pr')).toBeUndefined();
    expect(keys.find('demo-pro ')).toBeUndefined();
    expect(keys.find('DEMO-PRO')).toBeUndefined();
  });

  it('changes the plan of a key set twice, and never exposes the key itself', () => {
    const keys = new KeyRegistry();
    expect(keys.set('k-123456789', 'free', { perMinute: 1, perDay: 1 }).created).toBe(true);
    expect(keys.set('k-123456789', 'pro', { perMinute: 2, perDay: 2 }).created).toBe(false);
    expect(keys.size).toBe(1);
    expect(JSON.stringify(keys.list())).not.toContain('k-123456789');
    expect(keys.find('k-123456789')?.plan).toBe('pro');
  });

  it('gives each key a stable id that is not the key', () => {
    const keys = new KeyRegistry();
    const { entry } = keys.set('secret-value', 'free', { perMinute: 1, perDay: 1 });
    expect(entry.id).toMatch(/^[0-9a-f]{32}$/);
    expect(keys.find('secret-value')?.id).toBe(entry.id);
  });
});

describe('constantTimeEqual', () => {
  it('compares byte arrays', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 2]))).toBe(false);
  });
});
