import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type FaultKind, faultKinds } from '../config/fault-config.js';
import { type RecordedRequest, RequestLog, type RequestLogEntry } from './request-log.js';

const entry = (status: number): RecordedRequest => ({
  timeMs: 0,
  method: 'GET',
  path: '/',
  operationId: null,
  plan: 'free',
  key: null,
  status,
  code: null,
});

const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });

const recordedRequest: fc.Arbitrary<RecordedRequest> = fc
  .record({
    timeMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    method: fc.constantFrom('GET', 'POST', 'DELETE'),
    path: fc.string(),
    operationId: nullable(fc.string()),
    plan: fc.constantFrom('free', 'pro', 'anonymous', 'control'),
    key: nullable(fc.string()),
    status: fc.integer({ min: 100, max: 599 }),
    code: nullable(fc.string()),
    replay: fc.option(
      fc.record({
        url: fc.string(),
        keyDigest: nullable(fc.string({ unit: fc.constantFrom(...'0123456789abcdef') })),
        clientAddress: nullable(fc.ipV4()),
        auth: fc.constantFrom('key' as const, 'invalid' as const, 'none' as const),
        limits: fc.record({ perMinute: fc.nat(), perDay: fc.nat() }),
        prefer: nullable(fc.string()),
        contentType: nullable(fc.string()),
        body: nullable(fc.string()),
      }),
      { nil: undefined },
    ),
  })
  .map(({ replay, ...rest }) => (replay === undefined ? rest : { ...rest, replay }));

describe('RequestLog', () => {
  it('keeps the newest entries, oldest first, never more than its capacity', () => {
    const log = new RequestLog(3);
    for (const status of [1, 2, 3, 4, 5]) log.add(entry(status));
    expect(log.entries().map((item) => item.status)).toEqual([3, 4, 5]);
    expect(log.entries()[0]!.time).toBe('1970-01-01T00:00:00.000Z');
    log.clear();
    expect(log.entries()).toEqual([]);
  });

  it("keeps every fault kind of the config's one list (faultKinds), a new kind included", () => {
    expectTypeOf<RequestLogEntry['fault']>().toEqualTypeOf<FaultKind | undefined>();
    const log = new RequestLog(faultKinds.length);
    for (const fault of faultKinds) log.add({ ...entry(200), fault });
    expect(log.entries().map((item) => item.fault)).toEqual([...faultKinds]);
  });

  it('gives back every field as recorded, the newest `capacity` entries oldest first, for any sequence of adds and clears', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.array(
          fc.oneof({ weight: 12, arbitrary: recordedRequest }, { weight: 1, arbitrary: fc.constant('clear' as const) }),
          { maxLength: 40 },
        ),
        (capacity, steps) => {
          const log = new RequestLog(capacity);
          let model: RecordedRequest[] = [];
          for (const step of steps) {
            if (step === 'clear') {
              log.clear();
              model = [];
            } else {
              log.add(step);
              model = [...model, step].slice(-capacity);
            }
            expect(log.recorded()).toEqual(model);
            expect(log.entries()).toEqual(
              model.map(({ timeMs, replay: _replay, ...rest }) => ({ time: new Date(timeMs).toISOString(), ...rest })),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tells whoever folds a dropped API request the key id it was counted under, never one of an entry before it', () => {
    const replay = (auth: 'key' | 'none', keyDigest: string | null) => ({
      url: '/v1/categories',
      keyDigest,
      auth,
      limits: { perMinute: 1, perDay: 2 },
      clientAddress: '10.0.0.1',
      prefer: null,
      contentType: null,
      body: null,
    });
    const dropped: (string | null)[] = [];
    const log = new RequestLog(1, undefined, (request) => dropped.push(request.keyId));
    const digest = 'ab'.repeat(32);
    log.add({ ...entry(200), replay: replay('key', digest) }, null, digest.slice(0, 32));
    // The slot is written over: its key id goes with the entry it belonged to.
    log.add({ ...entry(200), replay: replay('none', null) }, null);
    log.add({ ...entry(200), replay: replay('none', null) }, null);
    expect(dropped).toEqual([digest.slice(0, 32), null]);
    expect(log.recorded()[0]).not.toHaveProperty('keyId');
  });

  it('serves a log line with the fields in the order of the interface (its JSON is what GET /__mock/requests sends)', () => {
    const log = new RequestLog(2);
    log.add({
      ...entry(201),
      replay: {
        url: '/v1/categories',
        keyDigest: null,
        auth: 'none',
        limits: { perMinute: 1, perDay: 2 },
        clientAddress: null,
        prefer: null,
        contentType: null,
        body: '{}',
      },
    });
    expect(Object.keys(log.entries()[0]!)).toEqual([
      'time',
      'method',
      'path',
      'operationId',
      'plan',
      'key',
      'status',
      'code',
    ]);
  });
});
