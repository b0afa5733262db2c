import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitLine, waitStatus } from '../report/progress-text.js';
import { LiveConsole } from './live-console.js';

const start = Date.parse('2026-11-25T12:00:00Z');
const reset = {
  waitingFor: 'X-RateLimit-Reset of the main key (Remaining 2, reserve 2)',
  ms: 36_200,
  untilMs: start + 36_200,
};

function stream(columns = 200) {
  const writes: string[] = [];
  return { writes, columns, write: (text: string) => void writes.push(text), text: () => writes.join('') };
}

describe('progress while the run waits', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('words a wait the same way every release: what for, how long, until when (UTC)', () => {
    expect(waitLine(reset)).toBe(
      'petstore-contract: waiting 37 s for X-RateLimit-Reset of the main key (Remaining 2, reserve 2), until 12:00:36 UTC',
    );
    expect(waitStatus([reset], start + 20_000)).toBe(
      'petstore-contract: 17 s left of a 37 s wait for X-RateLimit-Reset of the main key (Remaining 2, reserve 2)',
    );
    const other = {
      waitingFor: 'Retry-After of unauthenticated requests (answered 429)',
      ms: 5_000,
      untilMs: start + 5_000,
    };
    expect(waitStatus([other, reset], start)).toBe(
      'petstore-contract: 37 s left of a 37 s wait for X-RateLimit-Reset of the main key (Remaining 2, reserve 2) (and 1 more wait)',
    );
  });

  it('in a log: one line per wait, printed once as it starts, nothing rewritten', () => {
    const out = stream();
    const live = new LiveConsole(out, { interactive: false, now: () => start });
    live.line('  PASS  §5.3  missing Authorization -> 401 + Error [GET /categories]');
    live.wait(reset);
    live.close();
    expect(out.text()).toBe(
      `  PASS  §5.3  missing Authorization -> 401 + Error [GET /categories]\n${waitLine(reset)}\n`,
    );
  });

  it('on a terminal: one status line that counts down, cleared before other lines and at the end', () => {
    vi.useFakeTimers({ now: start });
    const out = stream();
    const live = new LiveConsole(out, { interactive: true });
    live.wait(reset);
    expect(out.text()).toBe(waitStatus([reset], start));
    vi.advanceTimersByTime(1_000);
    expect(out.writes.slice(-2)).toEqual(['\r\u001b[2K', waitStatus([reset], start + 1_000)]);
    expect(out.writes.at(-1)).toContain('36 s left of a 37 s wait');
    live.line('  PASS  §8  X-RateLimit-Remaining decreases');
    expect(out.writes.slice(-3)).toEqual([
      '\r\u001b[2K',
      '  PASS  §8  X-RateLimit-Remaining decreases\n',
      waitStatus([reset], start + 1_000),
    ]);
    vi.advanceTimersByTime(40_000);
    // The wait is over: the line is gone and the countdown stops.
    expect(out.writes.at(-1)).toBe('\r\u001b[2K');
    const writes = out.writes.length;
    vi.advanceTimersByTime(5_000);
    expect(out.writes.length).toBe(writes);
    live.wait({ ...reset, untilMs: start + 60_000 });
    live.close();
    expect(out.writes.at(-1)).toBe('\r\u001b[2K');
  });

  it('never draws a status line wider than the terminal (it could not be cleared)', () => {
    vi.useFakeTimers({ now: start });
    const out = stream(40);
    const live = new LiveConsole(out, { interactive: true });
    live.wait(reset);
    expect(out.writes[0]!.length).toBe(39);
    expect(out.writes[0]!.endsWith('…')).toBe(true);
    live.close();
    const unsized = stream(0);
    new LiveConsole(unsized, { interactive: true }).wait(reset);
    expect(unsized.writes[0]).toBe(`${waitStatus([reset], start).slice(0, 78)}…`);
    expect(unsized.writes[0]).toMatch(/^petstore-contract: 37 s left of a 37 s wait for /);
  });
});
