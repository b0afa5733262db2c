import type { ObservedExchange } from './observed.js';
import { judgeInSequence, type SequenceFindings } from './sequence-rules.js';

/**
 * The sequences of exchanges of each key, as the sequence rules read them: the one place that
 * decides whether two answers of a key were sent one after the other (nothing else of the key left
 * between the previous answer and this request, none in flight when it left). The kit feeds it every
 * exchange of a run, the judging proxy every answer it forwards; both call `sent` when a request
 * leaves and `answered` (or `failed`) when its answer comes.
 *
 * Bounded: at most `maxKeys` keys are followed (a later key is counted in `keysNotFollowed` and
 * judged by the response rules only), and only the last answer of each key is held, without its body.
 *
 * @example
 * const sequences = new KeySequences();
 * const ticket = sequences.sent('client-5e3f0c2a9b1d');
 * sequences.answered(ticket, observed).verdicts; // [{ id: 'rate.remaining-exact', violations: [] }]
 */
export class KeySequences<T extends ObservedExchange = ObservedExchange> {
  readonly #keys = new Map<string, KeyState<T>>();
  readonly #maxKeys: number;
  #keysNotFollowed = 0;

  constructor(maxKeys = 10_000) {
    this.#maxKeys = maxKeys;
  }

  /** A request of `key` left (null: a request no key's sequence holds, such as a CORS preflight). */
  sent(key: string | null): SequenceTicket<T> {
    const state = key === null ? undefined : this.#stateOf(key);
    const ticket: SequenceTicket<T> = {
      key: state === undefined ? null : key,
      previous: state?.lastAnswer,
      previousAlone: state?.lastAnswerAlone ?? false,
      sentOfKeyBefore: state?.sent ?? 0,
      inFlightOfKeyAtSend: state?.inFlight ?? 0,
    };
    if (state !== undefined) {
      state.sent += 1;
      state.inFlight += 1;
    }
    return ticket;
  }

  /** Its answer came: judged by every sequence rule against the key's answer before it. */
  answered(ticket: SequenceTicket<T>, answer: T): SequenceFindings {
    const state = ticket.key === null ? undefined : this.#keys.get(ticket.key);
    if (state === undefined) return { verdicts: [], notes: [] };
    state.inFlight = Math.max(0, state.inFlight - 1);
    // Alone: none of the key's other requests was in flight when this one left, and none left before its answer.
    const alone = ticket.inFlightOfKeyAtSend === 0 && state.sent === ticket.sentOfKeyBefore + 1;
    const sequential = ticket.previous !== undefined && alone;
    // Requests of the key around this one: in flight when it left, and sent after it before its answer.
    const othersAround = ticket.inFlightOfKeyAtSend + (state.sent - ticket.sentOfKeyBefore - 1);
    const history = { refusedInRow: state.refusedInRow, servedOnce: state.servedOnce, othersAround };
    let findings: SequenceFindings;
    try {
      findings = judgeInSequence({
        before: ticket.previous,
        after: answer,
        sequential,
        beforeAlone: ticket.previousAlone,
        history,
      });
    } catch (error) {
      // The parsers of spec/interface/ do not throw on any header value; this is the last guard of the request path.
      findings = {
        verdicts: [],
        notes: [
          {
            id: 'rate.remaining-exact',
            text: `an answer could not be judged in its key's sequence: ${(error as Error).message}`,
          },
        ],
      };
    }
    state.lastAnswer = { ...answer, response: { ...answer.response, bodyText: '', json: undefined } };
    state.lastAnswerAlone = alone;
    const answered = answer.response.status;
    if (answered === 429) state.refusedInRow += 1;
    else if (answered !== 401 && answered !== 403) state.refusedInRow = 0;
    if (answered >= 200 && answered < 300) state.servedOnce = true;
    return findings;
  }

  /** No answer came (a transport error, a cut body the caller does not judge): the key's sequence is broken there. */
  failed(ticket: SequenceTicket<T>): void {
    const state = ticket.key === null ? undefined : this.#keys.get(ticket.key);
    if (state === undefined) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    state.lastAnswer = undefined;
  }

  /** Keys whose last answer is a 429 that ended a row of at least `minInRow` refusals: their end is not seen. */
  unendedRefusals(minInRow = 2): UnendedRefusal<T>[] {
    return [...this.#keys.entries()].flatMap(([key, state]) =>
      state.lastAnswer?.response.status === 429 && state.refusedInRow >= minInRow
        ? [{ key, refusedInRow: state.refusedInRow, last: state.lastAnswer }]
        : [],
    );
  }

  get keysFollowed(): number {
    return this.#keys.size;
  }

  get keysNotFollowed(): number {
    return this.#keysNotFollowed;
  }

  #stateOf(key: string): KeyState<T> | undefined {
    let state = this.#keys.get(key);
    if (state === undefined) {
      if (this.#keys.size >= this.#maxKeys) {
        this.#keysNotFollowed += 1;
        return undefined;
      }
      state = {
        sent: 0,
        inFlight: 0,
        lastAnswer: undefined,
        lastAnswerAlone: false,
        refusedInRow: 0,
        servedOnce: false,
      };
      this.#keys.set(key, state);
    }
    return state;
  }
}

/**
 * A browser's CORS preflight (OPTIONS with Access-Control-Request-Method, Fetch standard): not a
 * request of the API, so in no key's sequence (a server need not count it, and may answer it with
 * the budget it has not touched).
 *
 * @example isCorsPreflight('OPTIONS', { 'access-control-request-method': 'POST' }) // true
 */
export function isCorsPreflight(method: string, headers: Readonly<Record<string, unknown>>): boolean {
  return method.toUpperCase() === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
}

/** A request of a key in flight: where it stood in its key's sequence when it left. */
export interface SequenceTicket<T extends ObservedExchange = ObservedExchange> {
  readonly key: string | null;
  /** The key's last answer when this request left (the `before` of the pair rules). */
  readonly previous: T | undefined;
  /** Whether that answer's request was alone in flight, from its send to its answer. */
  readonly previousAlone: boolean;
  readonly sentOfKeyBefore: number;
  readonly inFlightOfKeyAtSend: number;
}

interface KeyState<T extends ObservedExchange> {
  sent: number;
  inFlight: number;
  lastAnswer: T | undefined;
  /** Whether the request of `lastAnswer` was alone in flight of its key, from its send to its answer. */
  lastAnswerAlone: boolean;
  /** 429s received in a row (a served answer ends the row). */
  refusedInRow: number;
  servedOnce: boolean;
}

/** A key whose last answer is a 429 after it kept sending: a ban (or refusal) whose end the sequence has not seen. */
export interface UnendedRefusal<T extends ObservedExchange> {
  key: string;
  refusedInRow: number;
  last: T;
}
