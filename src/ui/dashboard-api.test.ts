import { afterEach, expect, it, vi } from 'vitest';
import { DashboardCallError, getDashboard, postControl } from './dashboard-api.js';

// The page's calls turn a non-2xx answer into one line on its error line: the mock's Error body when
// it sent one, cut short when a broken server sends megabytes.

const context = { base: '/__mock/', session: () => null, token: () => null };

function answering(status: number, body: string): void {
  vi.stubGlobal('fetch', async () => new Response(body, { status, statusText: 'Bad' }));
}

afterEach(() => {
  vi.unstubAllGlobals();
});

async function failure(call: () => Promise<unknown>): Promise<DashboardCallError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(DashboardCallError);
    return error as DashboardCallError;
  }
  throw new Error('the call did not fail');
}

it("says the mock's Error body in one line, keeping its code", async () => {
  answering(403, JSON.stringify({ code: 'control_forbidden', message: 'The control token is wrong', status: 403 }));
  const error = await failure(() => getDashboard(context, 10, null));
  expect(error.message).toBe('The mock answered 403 control_forbidden: The control token is wrong');
  expect(error.code).toBe('control_forbidden');
  answering(500, '<html>');
  expect((await failure(() => postControl(context, 'reset'))).message).toBe('The mock answered 500: Bad');
});

it('cuts a huge code or message short, the code still compared whole', async () => {
  const code = `c${'o'.repeat(1_000_000)}`;
  answering(400, JSON.stringify({ code, message: 'm'.repeat(10_000_000), status: 400 }));
  const error = await failure(() => postControl(context, 'clock', { advanceSeconds: 1 }));
  expect(error.message).toMatch(/^The mock answered 400 co{59}… \(1000001 chars\): m{300}… \(10000000 chars\)$/);
  expect(error.code).toBe(code);
});
