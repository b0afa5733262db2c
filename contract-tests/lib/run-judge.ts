import { bearerToken } from '../../spec/interface/bearer.js';
import { judgeResponse } from '../../spec/interface/catalogue.js';
import { isCorsPreflight, KeySequences, type SequenceTicket } from '../../spec/interface/key-sequences.js';
import type { ObservedExchange, RuleViolation } from '../../spec/interface/observed.js';
import { ResourceSequences, type ResourceTicket } from '../../spec/interface/resource-sequences.js';
import type { SpecModel } from '../../spec/interface/spec-model.js';
import type { Exchange } from './exchange.js';

/** One thing a rule of the catalogue found wrong, with the exchange that shows it (and the one before, for a pair). */
export interface JudgedViolation extends RuleViolation {
  exchange: Exchange;
  /** The key's answer before `exchange`, when the rule judged the pair. */
  before?: Exchange | undefined;
  which?: 'before' | 'after';
  /** What `before` is to the report, when not the key's answer before (the 201 of a category a list shows wrongly). */
  beforeLabel?: string;
}

/** What one rule of the catalogue found over the run: the exchanges it judged, what was wrong, what was left open. */
export interface RuleRecord {
  judged: Exchange[];
  /** Comparisons made, for a rule that compares an answer with many earlier ones (data.round-trip). */
  comparisons: number;
  violations: JudgedViolation[];
  notes: string[];
}

/** An exchange as the sequence rules hold it: the observed answer, and the exchange for the report. */
type SequencedExchange = ObservedExchange & { exchange: Exchange };

/** A request in flight: its place in its key's sequence, and whether its answer is judged as one of the key's. */
export interface JudgeTicket {
  sequence: SequenceTicket<SequencedExchange>;
  judged: boolean;
  /** Where the request stood among the run's creations (data.round-trip). */
  resources: ResourceTicket;
}

/**
 * The whole rule catalogue (spec/interface/) on every exchange of a run, whatever check sent it:
 * the HTTP client calls `sent` as a request leaves and `answered` (or `failed`) as its answer comes,
 * each answer is judged by every response rule and fed to the sequence rules of its key (the key is
 * the bearer token sent; requests without one are no key's sequence). The checks over every response
 * (suite/99-every-response) report what it recorded, under the rule's id, with the exchanges as
 * evidence. Judges nothing on a document that is not the Petstore interface (its rules are not that
 * document's promises).
 *
 * @example
 * const judge = new RunJudge(spec, ['demo-pro']);
 * const ticket = judge.sent('GET', { authorization: 'Bearer demo-pro' });
 * judge.answered(ticket, exchange);
 * judge.recordOf('rate.remaining-exact').violations; // []
 */
export class RunJudge {
  readonly #spec: SpecModel | undefined;
  /** The run's keys, longest first: a request that carries one in another spelling or place touches its budget. */
  readonly #keys: readonly string[];
  readonly #sequences = new KeySequences<SequencedExchange>();
  readonly #resources = new ResourceSequences<SequencedExchange>();
  readonly #records = new Map<string, RuleRecord>();

  /**
   * `spec` undefined (or a document that is not the Petstore interface): nothing is judged. `keys`:
   * the keys the run was given (--api-key, --rate-limit-key).
   */
  constructor(spec: SpecModel | undefined, keys: readonly string[] = []) {
    this.#spec = spec;
    this.#keys = [...keys].filter((key) => key !== '').sort((a, b) => b.length - a.length);
  }

  /**
   * A request leaves. Its key is the bearer token it sends. A request that carries a key of the run
   * any other way (another spelling of the header, the query, a cookie, the key with a character
   * more) is in that key's sequence without being judged: a lenient server may count it on the
   * key's budget, so no pair is judged across it. A CORS preflight is in no key's sequence. A request
   * sent through Prism is in its key's sequence without being judged in it: Prism's own client may
   * send it upstream twice (a retry on a closed keep-alive connection), which the kit cannot see.
   */
  sent(method: string, headers: Readonly<Record<string, string>>, url = '', throughPrism = false): JudgeTicket {
    const { sequence, judged } = this.#sequenceTicket(method, headers, url, throughPrism);
    return { sequence, judged, resources: this.#resources.sent() };
  }

  #sequenceTicket(
    method: string,
    headers: Readonly<Record<string, string>>,
    url: string,
    throughPrism: boolean,
  ): Omit<JudgeTicket, 'resources'> {
    const authorization = headers.authorization;
    const token = authorization === undefined ? null : bearerToken(authorization);
    if (this.#spec === undefined || isCorsPreflight(method, headers))
      return { sequence: this.#sequences.sent(null), judged: false };
    if (throughPrism) return { sequence: this.#sequences.sent(this.#keyCarried(headers, url) ?? token), judged: false };
    if (token !== null && (this.#keys.length === 0 || this.#keys.includes(token)))
      return { sequence: this.#sequences.sent(token), judged: true };
    const carried = this.#keyCarried(headers, url);
    if (carried !== undefined) return { sequence: this.#sequences.sent(carried), judged: false };
    return { sequence: this.#sequences.sent(token), judged: true };
  }

  /** The run's key a request carries anywhere (header, URL), longest first. */
  #keyCarried(headers: Readonly<Record<string, string>>, url: string): string | undefined {
    return this.#keys.find((key) => url.includes(key) || Object.values(headers).some((value) => value.includes(key)));
  }

  /** Its answer came from the server: every rule of the catalogue judges it. */
  answered(ticket: JudgeTicket, exchange: Exchange): void {
    const spec = this.#spec;
    const response = exchange.response;
    if (spec === undefined || response === undefined) {
      this.failed(ticket);
      return;
    }
    const observed: SequencedExchange = { ...exchange, response, exchange };
    const context = { spec, anonymous: exchange.identity === 'anonymous' };
    for (const verdict of judgeResponse(observed, context)) {
      this.#record(verdict.id, exchange, verdict.violations);
      for (const note of verdict.notes) this.#note(verdict.id, note);
    }
    // The resource's rules: a key's view of the data (Prism answering in the server's place never gets here).
    const byKey = exchange.identity !== 'anonymous' && response.truncatedAtBytes === undefined;
    for (const verdict of this.#resources.answered(ticket.resources, observed, byKey).verdicts) {
      this.#record(
        verdict.id,
        exchange,
        verdict.violations.map((violation) => ({
          ...violation,
          before: violation.created.exchange,
          which: 'after' as const,
          beforeLabel: `the 201 that created it`,
        })),
      );
      this.#recordFor(verdict.id).comparisons += verdict.comparisons;
    }
    // An answer the kit did not read whole is INCONCLUSIVE for the check that sent it: no pair is judged on it either.
    if (response.truncatedAtBytes !== undefined || !ticket.judged) {
      this.failed(ticket);
      return;
    }
    const findings = this.#sequences.answered(ticket.sequence, observed);
    const before = ticket.sequence.previous?.exchange;
    for (const verdict of findings.verdicts)
      this.#record(
        verdict.id,
        exchange,
        verdict.violations.map((violation) => ({ ...violation, before })),
      );
    for (const note of findings.notes) this.#note(note.id, note.text);
  }

  /** No answer of the server's came (a transport error, Prism answering in its place): the key's sequence breaks there. */
  failed(ticket: JudgeTicket): void {
    this.#sequences.failed(ticket.sequence);
  }

  /**
   * Keys whose last answer is a 429 that came after they kept sending (a row of at least two): a
   * ban, or a refusal, whose end the run did not see (rate.ban-temporary cannot say it ends).
   */
  unendedRefusals(): { refusedInRow: number; last: Exchange }[] {
    return this.#sequences
      .unendedRefusals()
      .map((refusal) => ({ refusedInRow: refusal.refusedInRow, last: refusal.last.exchange }));
  }

  /** What a rule found over the run so far (empty when it judged nothing). */
  recordOf(id: string): RuleRecord {
    return this.#records.get(id) ?? { judged: [], comparisons: 0, violations: [], notes: [] };
  }

  #record(id: string, exchange: Exchange, violations: readonly (RuleViolation & { before?: Exchange | undefined })[]) {
    const record = this.#recordFor(id);
    record.judged.push(exchange);
    for (const violation of violations) record.violations.push({ ...violation, exchange });
  }

  #note(id: string, text: string): void {
    keepDistinct(this.#recordFor(id).notes, text);
  }

  #recordFor(id: string): RuleRecord {
    let record = this.#records.get(id);
    if (record === undefined) {
      record = { judged: [], comparisons: 0, violations: [], notes: [] };
      this.#records.set(id, record);
    }
    return record;
  }
}

/** Notes are kept distinct and few: a run of thousands of answers says each open choice once. */
function keepDistinct(notes: string[], text: string): void {
  if (notes.length < 20 && !notes.includes(text)) notes.push(text);
}
