import { createRedactor } from '../../spec/credential-masking.js';
import { toExportLine } from '../lab/replay-input.js';
import type { ClientSide, PendingExchange } from './proxy-exchange.js';

/**
 * The judging proxy's traffic as the JSON lines `petstore-mock replay` reads (keys as pseudonyms, a
 * body's credentials masked), the newest `maxLines` kept: the oldest dropped, and counted.
 *
 * @example
 * const log = new ExportLog(10_000);
 * log.add(pending, { status: 200, code: null, side });
 * log.lines(); // ['{"timeMs":...}']
 */
export class ExportLog {
  /** The lines kept, from `start` on (what is before `start` was dropped, and is compacted away now and then). */
  readonly #lines: string[] = [];
  #start = 0;
  /** Lines dropped to stay within `maxLines`. */
  #dropped = 0;
  /** A client sends the same key request after request: its redactor (some dozen encoded forms of it) is made once. */
  #lastRedactor: { secrets: string; redact: (text: string) => string } | undefined;

  constructor(private readonly maxLines: number) {}

  /** One exchange's line; `side` is undefined when the client side did not see it. */
  add(pending: PendingExchange, answer: { status: number; code: string | null; side: ClientSide | undefined }): void {
    const { side } = answer;
    const line = toExportLine({
      timeMs: pending.sentAtMs,
      method: pending.method,
      url: pending.url,
      keyDigest: pending.keyDigest,
      clientAddress: pending.clientAddress,
      auth: pending.keyDigest === null ? 'none' : side?.isKey === false ? 'invalid' : 'key',
      plan: side?.plan ?? 'unknown',
      limits: side?.limits ?? { perMinute: 0, perDay: 0 },
      status: answer.status,
      code: answer.code,
      operationId: pending.operationId,
      prefer: pending.prefer,
      contentType: pending.contentType,
      body:
        pending.body === null || pending.secrets.length === 0
          ? pending.body
          : this.#redactorOf(pending.secrets)(pending.body),
    });
    const lines = this.#lines;
    if (lines.length - this.#start >= this.maxLines) {
      lines[this.#start] = '';
      this.#start += 1;
      this.#dropped += 1;
      // Compact now and then so the array never holds more than twice the bound.
      if (this.#start >= this.maxLines) {
        lines.splice(0, this.#start);
        this.#start = 0;
      }
    }
    lines.push(line);
  }

  lines(): string[] {
    return this.#lines.slice(this.#start);
  }

  get dropped(): number {
    return this.#dropped;
  }

  #redactorOf(secrets: readonly string[]): (text: string) => string {
    const joined = JSON.stringify(secrets);
    if (this.#lastRedactor?.secrets !== joined)
      this.#lastRedactor = { secrets: joined, redact: createRedactor(secrets) };
    return this.#lastRedactor.redact;
  }
}
