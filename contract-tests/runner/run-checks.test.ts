import { describe, expect, it } from 'vitest';
import { buildSpecModel } from '../../spec/interface/spec-model.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { defineArea } from '../lib/check.js';
import { CheckFailure } from '../lib/check-errors.js';
import type { ContractTarget } from '../lib/contract-target.js';
import type { Exchange } from '../lib/exchange.js';
import type { ContractHttpClient } from '../lib/http-client.js';
import { createRunState } from '../lib/run-state.js';
import type { CheckResult } from '../report/report-model.js';
import { runChecks } from './run-checks.js';

const target = {
  concurrency: 2,
  readOnly: false,
  strict: false,
  apiKey: 'k-123456',
  namePrefix: 'contract-test-x',
} as ContractTarget;
const spec = buildSpecModel(await readSpecFile());
/** A request that cannot create anything. */
const get = { operationId: 'listCategories', method: 'GET', path: '/categories', identity: 'main' } as const;
const answered = {
  response: { status: 200, headers: {}, bodyText: '', hasJson: false, json: undefined },
} as unknown as Exchange;

function context(
  options: {
    signal?: AbortSignal;
    readOnly?: boolean;
    onResult?: (result: CheckResult) => void;
    send?: () => Promise<Exchange>;
  } = {},
) {
  const client = { send: options.send ?? (async () => answered) } as unknown as ContractHttpClient;
  return {
    target: { ...target, readOnly: options.readOnly ?? false },
    spec,
    state: createRunState(),
    client,
    signal: options.signal ?? new AbortController().signal,
    checkDeadlineMs: 5_000,
    startedAtMs: Date.now(),
    ...(options.onResult ? { onResult: options.onResult } : {}),
  };
}

describe('runChecks', () => {
  it('runs areas in order, at most --concurrency checks of a concurrent area at once, and streams each result', async () => {
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    const slow = (id: string) => async (run: { send: (request: typeof get) => Promise<Exchange> }) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await run.send(get);
      inFlight -= 1;
      order.push(id);
    };
    const first = defineArea('first', 'concurrent', (check) => {
      for (const id of ['a', 'b', 'c', 'd', 'e']) check({ id, rule: '§1', title: id }, slow(id));
    });
    const second = defineArea('second', 'sequential', (check) => check({ id: 'z', rule: '§2', title: 'z' }, slow('z')));
    const streamed: string[] = [];
    const results = await runChecks([first, second], context({ onResult: (result) => streamed.push(result.id) }));
    expect(most).toBe(2);
    expect(order.at(-1)).toBe('z');
    expect(results.map((result) => [result.id, result.status])).toEqual([
      ['a', 'PASS'],
      ['b', 'PASS'],
      ['c', 'PASS'],
      ['d', 'PASS'],
      ['e', 'PASS'],
      ['z', 'PASS'],
    ]);
    expect(streamed.sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'z']);
  });

  it('never passes a check that saw no evidence, fails with evidence, skips writes under --read-only', async () => {
    const area = defineArea('area', 'concurrent', (check) => {
      check({ id: 'empty', rule: '§1', title: 'judges nothing' }, async () => {});
      check({ id: 'broken', rule: '§1', title: 'fails' }, async () => {
        throw new CheckFailure('expected 401, got 200', [{ request: 'GET /x', detail: 'got 200' }]);
      });
      check({ id: 'post', rule: '§4', title: 'creates', writes: true }, async (run) => void (await run.send(get)));
    });
    const run = context({ readOnly: true });
    const results = await runChecks([area], run);
    expect(results.map((result) => [result.id, result.status, result.inconclusive ?? false])).toEqual([
      ['empty', 'SKIP', true],
      ['broken', 'FAIL', false],
      ['post', 'SKIP', false],
    ]);
    expect(results[0]!.message).toBe('no evidence: no response was judged');
    expect(results[1]!.evidence).toHaveLength(1);
    expect([...run.state.stoppers]).toEqual(['no evidence']);
  });

  it('at the deadline, unfinished and unstarted checks are INCONCLUSIVE and the results come back', async () => {
    const deadline = new AbortController();
    const area = defineArea('area', 'sequential', (check) => {
      check({ id: 'quick', rule: '§1', title: 'quick' }, async (run) => void (await run.send(get)));
      check(
        { id: 'hangs', rule: '§1', title: 'hangs' },
        () => new Promise(() => setTimeout(() => deadline.abort('the run deadline was reached (--deadline 1 s)'), 10)),
      );
      check({ id: 'never', rule: '§1', title: 'never started' }, async (run) => void (await run.send(get)));
    });
    const run = context({ signal: deadline.signal });
    const results = await runChecks([area], run);
    expect(results.map((result) => [result.id, result.status, result.inconclusive ?? false])).toEqual([
      ['quick', 'PASS', false],
      ['hangs', 'SKIP', true],
      ['never', 'SKIP', true],
    ]);
    expect([...run.state.stoppers]).toEqual(['the run deadline was reached (--deadline 1 s)']);
  });

  it('holds each check to the requests that could create data it declared (maxCreates), and to none under --read-only', async () => {
    const post = {
      operationId: 'createCategory',
      method: 'POST',
      path: '/categories',
      identity: 'main',
      json: { name: 'x' },
    } as const;
    const area = defineArea('area', 'sequential', (check) => {
      check({ id: 'declared', rule: '§4', title: 'two posts, two declared', maxCreates: () => 2 }, async (run) => {
        await run.send(post);
        await run.send(post);
      });
      check(
        { id: 'one-too-many', rule: '§4', title: 'two posts, one declared', maxCreates: async () => 1 },
        async (run) => {
          await run.send(post);
          await run.send({ ...post, method: 'PATCH' });
        },
      );
      check(
        { id: 'undeclared', rule: '§4', title: 'a body, nothing declared' },
        async (run) => void (await run.send({ ...get, rawBody: '{}' })),
      );
      check(
        { id: 'reads', rule: '§4', title: 'a GET needs no declaration' },
        async (run) => void (await run.send(get)),
      );
    });
    const results = await runChecks([area], context());
    expect(results.map((result) => [result.id, result.status, result.inconclusive ?? false])).toEqual([
      ['declared', 'PASS', false],
      ['one-too-many', 'SKIP', true],
      ['undeclared', 'SKIP', true],
      ['reads', 'PASS', false],
    ]);
    expect(results[1]!.message).toBe(
      'not sent: PATCH /categories could create data, and this check declared at most 1 such requests (maxCreates): the bound printed at the start of the run must hold',
    );
    const readOnly = await runChecks([area], context({ readOnly: true }));
    expect(readOnly[0]!.message).toContain('declared at most 0 such requests (read-only run)');
  });
});
