import { describe, expect, it } from 'vitest';
import { RequestLog, type RequestLogEntry } from './request-log.js';

const entry = (status: number): RequestLogEntry => ({ time: 't', method: 'GET', path: '/', operationId: null, plan: 'free', key: null, status, code: null });

describe('RequestLog', () => {
  it('keeps the newest entries, oldest first, never more than its capacity', () => {
    const log = new RequestLog(3);
    for (const status of [1, 2, 3, 4, 5]) log.add(entry(status));
    expect(log.entries().map((item) => item.status)).toEqual([3, 4, 5]);
    log.clear();
    expect(log.entries()).toEqual([]);
  });
});
