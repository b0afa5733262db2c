import {
  type CredentialPlaces,
  createRedactor,
  looksLikeCredentialHeader,
  type Redactor,
} from '../../spec/credential-masking.js';
import type { WaitNotice } from '../lib/rate-budget.js';
import { waitLine } from '../report/progress-text.js';
import type { ResolvedContractOptions } from './contract-options.js';

/**
 * A run's log: every line masked of the run's secrets, kept for the report and printed. The secrets
 * grow once the document is read (a -H header it names `apiKey in: header` is a secret too).
 */
export class RunLog {
  /** The lines as the report keeps them, masked. */
  readonly lines: string[] = [];
  readonly #settings: ResolvedContractOptions;
  readonly #print: (line: string) => void;
  #redact: Redactor;

  constructor(settings: ResolvedContractOptions, print: (line: string) => void) {
    this.#settings = settings;
    this.#print = print;
    this.#redact = createRedactor(this.#secrets());
  }

  /** Masks with the credential places the document names as well as the kit's own. */
  learnCredentialPlaces(places: CredentialPlaces): void {
    this.#redact = createRedactor(this.#secrets(places));
  }

  /** The masking as it stands now (with its `label` form, for redactDeep). */
  get redactor(): Redactor {
    return this.#redact;
  }

  redact = (text: string): string => this.#redact(text);

  line = (line: string): void => {
    const safe = this.#redact(line);
    this.lines.push(safe);
    this.#print(safe);
  };

  /** A wait: the report keeps the line; the CLI shows it as it likes (a countdown on a terminal). */
  waitNotice(notice: WaitNotice, onWait: ((notice: WaitNotice) => void) | undefined): void {
    this.lines.push(this.#redact(waitLine(notice)));
    if (onWait) onWait(notice);
    else this.#print(this.#redact(waitLine(notice)));
  }

  #secrets(places?: CredentialPlaces): string[] {
    const settings = this.#settings;
    return [
      settings.apiKey,
      ...(settings.rateLimitKey === undefined ? [] : [settings.rateLimitKey]),
      ...Object.entries(settings.extraHeaders)
        .filter(([name]) => looksLikeCredentialHeader(name, places))
        .map(([, value]) => value),
    ];
  }
}
