import type { CheckRun } from '../lib/check.js';

/**
 * What the interface leaves open about a stored string (section 8: "limits on field sizes: not
 * shown"; nothing says whether names are trimmed or brought to one Unicode normal form): a
 * server may store `name` as sent, or trimmed, or in NFC, NFD, NFKC or NFKD. Such a server
 * conforms; the kit names its choice as INFO. Anything else (a character lost, escaped, cut,
 * upper-cased) is an altered value and fails the round trip.
 */

/** The transformations a conforming server may apply to a stored string, by the name the report gives them. */
const openTransforms: readonly { choice: string; apply: (text: string) => string }[] = [
  { choice: 'trims surrounding whitespace', apply: (text) => text.trim() },
  // Java's String.trim(): every character up to U+0020 (controls included), but not NBSP.
  {
    choice: 'trims surrounding characters up to U+0020',
    apply: (text) => text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, ''),
  },
  ...(['NFC', 'NFD', 'NFKC', 'NFKD'] as const).flatMap((form) => [
    { choice: `stores text in Unicode ${form}`, apply: (text: string) => text.normalize(form) },
    {
      choice: `trims surrounding whitespace and stores text in Unicode ${form}`,
      apply: (text: string) => text.normalize(form).trim(),
    },
  ]),
];

/** How a stored string compares with what was sent. */
export type EchoVerdict =
  | { kind: 'same' }
  /** Equal after a transformation the interface leaves open: `choice` names it for the INFO line. */
  | { kind: 'open'; choice: string }
  | { kind: 'altered' };

/**
 * Compares a string the server returned with the one the client sent, allowing only the open
 * transformations (trimming, Unicode normalisation) and naming the one that explains it.
 *
 * @example judgeEcho('Cafe\u0301', 'Café') // { kind: 'open', choice: 'stores text in Unicode NFC' }
 * @example judgeEcho('dog', 'Dog') // { kind: 'altered' }
 */
export function judgeEcho(sent: string, got: unknown): EchoVerdict {
  if (got === sent) return { kind: 'same' };
  if (typeof got !== 'string') return { kind: 'altered' };
  const explained = openTransforms.find(({ apply }) => apply(sent) === got);
  return explained === undefined ? { kind: 'altered' } : { kind: 'open', choice: explained.choice };
}

/** What the run learned of the server's length limits (generate/length-probe.ts), by field. */
export type LengthLimits = ReadonlyMap<string, { acceptedBytes: number; refusedBytes: number | undefined }>;

/**
 * Why a 400 + Error answer to an otherwise valid body is a choice the interface leaves open, or
 * undefined when it is not (then refusing the body breaks createCategory rule 2): a blank value
 * (whether one is valid is not shown), or a value longer, in UTF-8 bytes, than the longest plain
 * ASCII value the server accepted in that field (a limit by characters, UTF-16 units or bytes
 * refuses it as well). Without a finding for the field, a long value refused is no open choice.
 *
 * @example openRefusal({ name: '' }, new Map()) // { field: 'name', choice: 'refuses a blank value (400)' }
 */
export function openRefusal(
  fields: Record<string, unknown>,
  limits: LengthLimits,
): { field: string; choice: string; kind: 'blank' | 'length' } | undefined {
  const strings = Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  // Blank: nothing but white space and zero-width characters.
  const blank = strings.find(([, value]) => value.replace(/[\s\u200b-\u200d\u2060\ufeff]/g, '') === '');
  if (blank !== undefined) return { field: blank[0], choice: 'refuses a blank value (400)', kind: 'blank' };
  const long = strings.find(([field, value]) => {
    const limit = limits.get(field);
    return limit?.refusedBytes !== undefined && Buffer.byteLength(value) > limit.acceptedBytes;
  });
  if (long === undefined) return undefined;
  const limit = limits.get(long[0])!;
  return {
    field: long[0],
    choice: `has a length limit (accepts ${limit.acceptedBytes} ASCII characters, refuses ${limit.refusedBytes})`,
    kind: 'length',
  };
}

/**
 * Ends a check that met open choices as INFO naming them (a check that met none keeps its PASS).
 *
 * @example reportOpenChoices(run, seen, 'created categories')
 */
export function reportOpenChoices(run: Pick<CheckRun, 'info'>, seen: OpenChoices, what: string): void {
  if (seen.size === 0) return;
  run.info(`the interface leaves this open; this server, for ${what}: ${seen.summary()}`);
}

/**
 * Collects the open choices a check met, once each, for one INFO line at its end.
 *
 * @example const seen = new OpenChoices(); seen.add('name', 'trims surrounding whitespace'); seen.summary() // 'name: trims surrounding whitespace'
 */
export class OpenChoices {
  readonly #seen = new Map<string, Set<string>>();

  add(field: string, choice: string): void {
    const set = this.#seen.get(field) ?? new Set<string>();
    set.add(choice);
    this.#seen.set(field, set);
  }

  get size(): number {
    return this.#seen.size;
  }

  /** One line: `name: refuses a blank value (400); description: stores text in Unicode NFD`. */
  summary(): string {
    return [...this.#seen].map(([field, choices]) => `${field}: ${[...choices].join(', ')}`).join('; ');
  }
}
