import type { WaitNotice } from '../lib/rate-budget.js';
import { waitLine, waitStatus } from '../report/progress-text.js';

/** The stream the live output goes to (stderr), as far as the console needs it. */
export interface LiveStream {
  write(text: string): unknown;
  columns?: number;
}

export interface LiveConsoleOptions {
  /** A terminal: waits show as one line counting down, rewritten in place. Otherwise one line per wait. */
  interactive: boolean;
  now?: () => number;
  /** How often the countdown is redrawn. Default 1 s. */
  tickMs?: number;
}

/**
 * The CLI's live output on stderr: a line per finished check (and per message of the run), and
 * the waits for rate-limit windows. On a terminal a wait is a single status line that counts
 * down and is cleared before any other line is written, so the lines above it stay intact; in a
 * log (not a terminal) each wait is one line, printed once as it starts.
 *
 * @example
 * const live = new LiveConsole(process.stderr, { interactive: process.stderr.isTTY === true });
 * live.line('  PASS  §5.3  missing Authorization -> 401 + Error [GET /categories]');
 * live.wait({ waitingFor: 'Retry-After of the main key (answered 429)', ms: 30_000, untilMs: Date.now() + 30_000 });
 * live.close();
 */
export class LiveConsole {
  readonly #stream: LiveStream;
  readonly #interactive: boolean;
  readonly #now: () => number;
  readonly #tickMs: number;
  #waits: WaitNotice[] = [];
  #status = '';
  #ticker: NodeJS.Timeout | undefined;

  constructor(stream: LiveStream, options: LiveConsoleOptions) {
    this.#stream = stream;
    this.#interactive = options.interactive;
    this.#now = options.now ?? Date.now;
    this.#tickMs = options.tickMs ?? 1_000;
  }

  /** Writes a line (no newline in `text`), keeping the status line below it on a terminal. */
  line(text: string): void {
    this.#clearStatus();
    this.#stream.write(`${text}\n`);
    this.#drawStatus();
  }

  /** A wait starts: a line in a log, the countdown on a terminal. */
  wait(notice: WaitNotice): void {
    if (!this.#interactive) {
      this.line(waitLine(notice));
      return;
    }
    this.#waits.push(notice);
    this.#clearStatus();
    this.#drawStatus();
    this.#ticker ??= setInterval(() => {
      this.#clearStatus();
      this.#drawStatus();
    }, this.#tickMs).unref();
  }

  /** Clears the status line and stops the countdown (at the end of the run). */
  close(): void {
    this.#clearStatus();
    this.#waits = [];
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #clearStatus(): void {
    if (this.#status === '') return;
    this.#stream.write('\r\u001b[2K');
    this.#status = '';
  }

  #drawStatus(): void {
    const now = this.#now();
    this.#waits = this.#waits.filter((wait) => wait.untilMs > now);
    if (this.#waits.length === 0) {
      if (this.#ticker !== undefined) clearInterval(this.#ticker);
      this.#ticker = undefined;
      return;
    }
    // Never wider than the terminal: a wrapped line could not be cleared with one carriage return.
    // A terminal that reports no size (0, as under `script`) is taken as 80 columns.
    const width = Math.max(20, (this.#stream.columns || 80) - 1);
    const text = waitStatus(this.#waits, now);
    this.#status = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    this.#stream.write(this.#status);
  }
}
