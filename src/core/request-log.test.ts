import { describe, expect, it } from 'vitest';
import { RequestLog, type RecordedRequest } from './request-log.js';

const entry = (status: number): RecordedRequest => ({ timeMs: 0, method: 'GET', path: '/', operationId: null, plan: 'free', key: null, status, code: null });

describe('RequestLog', () => {
  it('keeps the newest entries, oldest first, never more than its capacity', () => {
    const log = new RequestLog(3);
    for (const status of [1, 2, 3, 4, 5]) log.add(entry(status));
    expect(log.entries().map((item) => item.status)).toEqual([3, 4, 5]);
    expect(log.entries()[0]!.time).toBe('1970-01-01T00:00:00.000Z');
    log.clear();
    expect(log.entries()).toEqual([]);
  });
});
