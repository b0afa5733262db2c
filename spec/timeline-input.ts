/**
 * What the timeline picture draws (spec/timeline-svg.ts): the lab's recorded traffic, a replay, and
 * the contract kit's requests per key. Here, below all three, so the mock's lab and the kit draw
 * with one renderer (docs/decisions/045-self-contained-html-report.md).
 */
export interface TimelineInput {
  /** Virtual ms. */
  from: number;
  to: number;
  clients: {
    /** As recorded: a demo key's name, a masked key, a replay pseudonym or "anonymous <address>". */
    client: string;
    /** The name people know the client by (a `--key` label) when `client` is a pseudonym. */
    label?: string;
    plan: string;
    /** The budget drawn as a line (per minute) and named in the label; 0 when unknown (a day of 0 is not named). */
    limits: { perMinute: number; perDay: number };
    /**
     * Any number (dense stretches are merged per pixel column). `code` tells a `rate_limited` 429 from a
     * `key_banned` one (without it, a 429 inside a ban is taken as the ban's); `retryAfterSeconds` is the
     * wait a 429 asked for; `fault` the fault the request met (decision 042), drawn apart when it left the
     * client without a usable answer.
     */
    requests: { atMs: number; status: number; code?: string | null; retryAfterSeconds?: number; fault?: string }[];
    bans: { fromMs: number; toMs: number }[];
    /**
     * What the client had already spent of its minute when a scenario (or a recording's starting state)
     * set it at `atMs`: `count` requests in the minute window that began at `minuteStartMs`. Requests
     * from `atMs` to that window's end are drawn as high as the limiter counted them.
     */
    spentBefore?: { atMs: number; minuteStartMs: number; count: number };
  }[];
  title?: string;
}
