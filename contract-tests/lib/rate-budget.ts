import { parseNonNegativeInteger, parseRetryAfter } from '../../spec/interface/rate-limit-headers.js';
import { InconclusiveError } from './check-errors.js';

/**
 * The total time a run may spend waiting for rate-limit windows (`--max-wait`), shared by every
 * budget so the run as a whole stays bounded.
 *
 * @example const waits = new WaitAllowance(120_000); waits.take(30_000); // true
 */
export class WaitAllowance {
  #spentMs = 0;

  constructor(readonly maxMs: number) {}

  /** Books `ms` of waiting if it still fits; false (nothing booked) when it does not. */
  take(ms: number): boolean {
    if (this.#spentMs + ms > this.maxMs) return false;
    this.#spentMs += ms;
    return true;
  }

  get spentMs(): number {
    return this.#spentMs;
  }
}

export interface RateBudgetOptions {
  /** Who owns the budget, for messages: "the main key", "unauthenticated requests". */
  label: string;
  /** Requests kept in hand: when Remaining minus requests in flight falls to this, the kit waits. */
  reserve: number;
  allowance: WaitAllowance;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  log?: (message: string) => void;
  /** Told of each wait as it starts (the CLI's progress line); without it, the wait is a `log` line. */
  onWait?: (notice: WaitNotice) => void;
}

/**
 * A wait the run is about to sit through: what it waits for, and until when.
 *
 * @example { waitingFor: 'X-RateLimit-Reset of the main key (Remaining 2, reserve 2)', ms: 37_000, untilMs: 1_795_310_113_000 }
 */
export interface WaitNotice {
  waitingFor: string;
  ms: number;
  untilMs: number;
}

/** What a response said, as far as pacing cares. */
export interface BudgetObservation {
  status: number;
  headers: Readonly<Record<string, string>>;
  receivedAtMs: number;
}

/** Extra wait after a reset instant: servers round Reset either way to whole seconds. */
const afterResetMs = 1_000;
/** How long to hold off after an unexplained 429 that names no Retry-After or usable Reset. */
const defaultBackoffMs = 60_000;

/**
 * Paces the requests of one identity by the headers its responses carry, so the kit never
 * provokes a 429 it did not mean to: when X-RateLimit-Remaining (minus requests in flight) falls
 * to the reserve, `acquire` waits until X-RateLimit-Reset; after an unprovoked 429 it waits for
 * Retry-After. Waits come out of the run's `WaitAllowance`; a wait that does not fit throws
 * `InconclusiveError`, which the check reports as inconclusive.
 *
 * A Reset that is not a sane Unix timestamp in seconds cannot be waited for; the budget then
 * stops pacing (the header checks report the Reset itself).
 *
 * @example
 * const budget = new RateBudget({ label: 'the main key', reserve: 2, allowance: new WaitAllowance(120_000) });
 * await budget.acquire();
 * try { response = await send(); budget.observe(response); } finally { budget.release(); }
 */
export class RateBudget {
  readonly #options: Required<Omit<RateBudgetOptions, 'onWait'>> & Pick<RateBudgetOptions, 'onWait'>;
  #remaining: number | undefined;
  #resetAtMs: number | undefined;
  #inFlight = 0;
  #blockedUntilMs = 0;
  #pendingWait: { untilMs: number; done: Promise<void> } | undefined;

  constructor(options: RateBudgetOptions) {
    this.#options = {
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      log: () => {},
      ...options,
    };
  }

  /** Resolves when one more request may go out; throws InconclusiveError when the wait would not fit. */
  async acquire(): Promise<void> {
    for (;;) {
      const now = this.#options.now();
      const wait = this.#waitNeeded(now);
      if (wait === undefined) break;
      await this.#wait(wait, now);
    }
    this.#inFlight += 1;
  }

  /** Marks a request acquired with `acquire` as finished (answered or not). */
  release(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
  }

  /** Learns from a response's rate-limit headers and, for a 429, from Retry-After. */
  observe(observation: BudgetObservation): void {
    const { headers, receivedAtMs } = observation;
    const remaining = parseNonNegativeInteger(headers['x-ratelimit-remaining']);
    const resetAtMs = saneResetMs(headers['x-ratelimit-reset'], receivedAtMs);
    if (remaining !== undefined) {
      const newWindow =
        resetAtMs !== undefined && (this.#resetAtMs === undefined || resetAtMs > this.#resetAtMs + 1_000);
      if (newWindow || this.#remaining === undefined) {
        this.#remaining = remaining;
        this.#resetAtMs = resetAtMs ?? this.#resetAtMs;
      } else {
        // Responses overtake each other when requests run in parallel: the lowest count is the latest.
        this.#remaining = Math.min(this.#remaining, remaining);
      }
    }
    if (observation.status === 429) {
      const retryAfter = parseRetryAfter(headers['retry-after'], receivedAtMs);
      const untilMs = retryAfter.ok
        ? receivedAtMs + retryAfter.delayMs
        : (resetAtMs ?? receivedAtMs + defaultBackoffMs);
      this.#blockedUntilMs = Math.max(this.#blockedUntilMs, untilMs);
    }
  }

  /** Remaining as last seen, for tests and messages. */
  get remaining(): number | undefined {
    return this.#remaining;
  }

  #waitNeeded(now: number): { untilMs: number; reason: string; waitingFor: string } | undefined {
    if (this.#blockedUntilMs > now) {
      return {
        untilMs: this.#blockedUntilMs,
        reason: `${this.#options.label} was answered 429; waiting for Retry-After`,
        waitingFor: `Retry-After of ${this.#options.label} (answered 429)`,
      };
    }
    if (this.#remaining === undefined || this.#resetAtMs === undefined) return undefined;
    if (now >= this.#resetAtMs + afterResetMs) {
      // The window the numbers belong to is over; the next response tells the new ones.
      this.#remaining = undefined;
      return undefined;
    }
    if (this.#remaining - this.#inFlight > this.#options.reserve) return undefined;
    return {
      untilMs: this.#resetAtMs + afterResetMs,
      reason: `X-RateLimit-Remaining of ${this.#options.label} is ${this.#remaining} (reserve ${this.#options.reserve}); waiting for X-RateLimit-Reset (${new Date(this.#resetAtMs).toISOString()})`,
      waitingFor: `X-RateLimit-Reset of ${this.#options.label} (Remaining ${this.#remaining}, reserve ${this.#options.reserve})`,
    };
  }

  async #wait(
    { untilMs, reason, waitingFor }: { untilMs: number; reason: string; waitingFor: string },
    now: number,
  ): Promise<void> {
    const pending = this.#pendingWait;
    if (pending && pending.untilMs >= untilMs) {
      // Another request of this identity already waits for the same instant: wait with it, book nothing twice.
      await pending.done;
      return;
    }
    const ms = Math.max(0, untilMs - now);
    if (!this.#options.allowance.take(ms)) {
      const spent = Math.round(this.#options.allowance.spentMs / 1000);
      throw new InconclusiveError(
        `rate budget exhausted: ${reason}, ${Math.ceil(ms / 1000)} s, would exceed --max-wait ${Math.round(this.#options.allowance.maxMs / 1000)} s (${spent} s already waited)`,
      );
    }
    if (this.#options.onWait) this.#options.onWait({ waitingFor, ms, untilMs });
    else this.#options.log(`${reason}: ${Math.ceil(ms / 1000)} s`);
    const done = this.#options.sleep(ms);
    this.#pendingWait = { untilMs, done };
    try {
      await done;
    } finally {
      if (this.#pendingWait?.done === done) this.#pendingWait = undefined;
    }
  }
}

/** Reset as epoch milliseconds when it is a believable Unix timestamp in seconds, else undefined. */
function saneResetMs(text: string | undefined, receivedAtMs: number): number | undefined {
  const seconds = parseNonNegativeInteger(text);
  if (seconds === undefined) return undefined;
  const ms = seconds * 1000;
  const twoDaysMs = 2 * 86_400_000;
  return ms >= receivedAtMs - 300_000 && ms <= receivedAtMs + twoDaysMs ? ms : undefined;
}
