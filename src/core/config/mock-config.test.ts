import { describe, expect, it } from 'vitest';
import { defaultPlans, demoKeys, mockConfigSchema, parseMockConfig } from './mock-config.js';

describe('demoKeys', () => {
  it('has one demo-<plan> key per plan of the interface, each naming a plan the config knows', () => {
    expect(demoKeys).toEqual([
      { key: 'demo-free', plan: 'free' },
      { key: 'demo-pro', plan: 'pro' },
      { key: 'demo-business', plan: 'business' },
      { key: 'demo-enterprise', plan: 'enterprise' },
    ]);
    for (const { plan } of demoKeys) expect(defaultPlans).toHaveProperty(plan!);
  });
});

describe('parseMockConfig', () => {
  it('defaults everything, with the plans of the interface', () => {
    const config = parseMockConfig({});
    expect(config.plans).toEqual({
      free: { perMinute: 60, perDay: 1_000 },
      pro: { perMinute: 300, perDay: 10_000 },
      business: { perMinute: 1_000, perDay: 100_000 },
      enterprise: { perMinute: 1_000_000, perDay: 100_000_000 },
    });
    expect(config.ban).toEqual({ enabled: true, threshold: 10, durationSeconds: 900 });
    expect(config.maxBodyBytes).toBe(1_048_576);
  });

  it('knows the default config without decoding it: exactly what the schema decodes from {}', () => {
    const decoded = { ...mockConfigSchema().parse({}), plans: defaultPlans };
    for (const input of [undefined, null, {}]) expect(parseMockConfig(input)).toStrictEqual(decoded);
    // Each call has its own copy: a caller changing one changes no other.
    const first = parseMockConfig(undefined);
    first.ban.threshold = 1;
    first.keys.push({ key: 'k', plan: 'free' });
    const viaDecoder = parseMockConfig({ cors: true });
    viaDecoder.ban.threshold = 2;
    viaDecoder.allowedHosts = ['x.test'];
    viaDecoder.anonymous.perMinute = 3;
    expect(parseMockConfig(undefined)).toStrictEqual(decoded);
    expect(parseMockConfig({ cors: true })).toStrictEqual(decoded);
  });

  it('decodes what is not a plain empty object, so a bad one is refused', () => {
    expect(() => parseMockConfig([])).toThrow(/^Failed to load config: /);
    expect(() => parseMockConfig('')).toThrow(/^Failed to load config: /);
    expect(parseMockConfig(Object.create(null))).toStrictEqual(parseMockConfig({}));
  });

  it('lets a plan be changed and new ones added', () => {
    const config = parseMockConfig({
      plans: { enterprise: { perMinute: 5_000, perDay: 1_000_000 }, gold: { perMinute: 2, perDay: 3 } },
      keys: [{ key: 'g', plan: 'gold' }],
    });
    expect(config.plans.enterprise).toEqual({ perMinute: 5_000, perDay: 1_000_000 });
    expect(config.plans.gold).toEqual({ perMinute: 2, perDay: 3 });
  });

  it.each([
    [{ plans: { pro: { perMinute: 0, perDay: 1 } } }, /plans\.pro\.perMinute: must be a positive integer/],
    [{ keys: [{ key: 'k', plan: 'platinum' }] }, /keys\.0\.plan: unknown plan "platinum"/],
    [{ keys: [{ key: 'k' }] }, /keys\.0.*needs a plan or limits/],
    [{ keys: [{ key: 'has space', plan: 'free' }] }, /keys\.0\.key: must be printable ASCII/],
    [{ ban: { threshold: 'ten' } }, /ban\.threshold/],
    [{ colour: 'red' }, /Unrecognized key.*colour/],
    [{ deprecation: { getPetById: { sunset: 'soon' } } }, /deprecation\.getPetById\.sunset: must be an ISO 8601 date/],
  ])('refuses %j naming the field', (input, message) => {
    expect(() => parseMockConfig(input, 'config petstore.yaml')).toThrow(/^Failed to load config petstore\.yaml: /);
    expect(() => parseMockConfig(input)).toThrow(message);
  });
});
