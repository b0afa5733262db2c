import type { PlainRequest, PlainResponse } from './reference-petstore.js';

/**
 * What the interface leaves open about stored names and lists (section 8: "limits on field sizes
 * ... not shown"; nothing on blank names, trimming, Unicode normal forms or list order). The
 * reference stores names exactly as sent and lists oldest first; each option makes the other
 * choice, and the server stays correct.
 */
export interface OpenChoiceOptions {
  /** Refuse a name that is empty or only whitespace with 400. */
  refuseBlankName?: boolean;
  /** Store name and description in this Unicode normal form. */
  normalForm?: 'NFC' | 'NFD' | 'NFKC' | 'NFKD';
  /** Store name and description without surrounding whitespace. */
  trim?: boolean;
  /** List the newest category first. */
  newestFirst?: boolean;
  /** Refuse a name longer than this many characters (code points) with 400. */
  maxNameLength?: number;
}

/**
 * Correct servers that each make open choices differently (open-choices.test.ts runs each once, the soak of
 * support/flake-runs.ts cycles through them), with the INFO that names the choice.
 */
export const openChoiceServers: readonly { name: string; choices: OpenChoiceOptions; info: RegExp }[] = [
  { name: 'refuses a blank name (400)', choices: { refuseBlankName: true }, info: /refuses a blank value/ },
  { name: 'stores names in Unicode NFC', choices: { normalForm: 'NFC' }, info: /Unicode NFC/ },
  { name: 'stores names in Unicode NFD', choices: { normalForm: 'NFD' }, info: /Unicode NFD/ },
  { name: 'stores names in Unicode NFKC', choices: { normalForm: 'NFKC' }, info: /Unicode NFKC/ },
  { name: 'trims surrounding whitespace', choices: { trim: true }, info: /trims surrounding/ },
  { name: 'lists the newest category first', choices: { newestFirst: true }, info: /newest first/ },
  { name: 'refuses names over 50 characters', choices: { maxNameLength: 50 }, info: /length limit/ },
  {
    name: "refuses names over 40 characters, trims and stores NFD (shorter than some of the kit's own names)",
    choices: { maxNameLength: 40, trim: true, normalForm: 'NFD' },
    info: /length limit/,
  },
];

/** A body the reference refuses with 400 (name not a string): its refusal carries the right headers and order of checks. */
const refusedBody = new TextEncoder().encode('{"name":0}');

/**
 * Wraps the reference's handler (kept free of these options, so that mutation testing of the
 * reference is not diluted) into a server that makes the given open choices: it rewrites the
 * body of a createCategory on the way in and the order of a list on the way out.
 *
 * @example withOpenChoices(createReferencePetstore({ clock, keys }), { normalForm: 'NFD' })
 */
export function withOpenChoices(
  handle: (request: PlainRequest) => PlainResponse | Promise<PlainResponse>,
  choices: OpenChoiceOptions,
): (request: PlainRequest) => Promise<PlainResponse> {
  return async (request) => {
    const categories = request.target.split('?')[0] === '/v1/categories';
    if (!categories) return handle(request);
    if (request.method === 'POST') return handle({ ...request, body: storedBody(request.body, choices) });
    const answer = await handle(request);
    if (request.method !== 'GET' || answer.status !== 200 || choices.newestFirst !== true) return answer;
    return { ...answer, body: JSON.stringify((JSON.parse(answer.body) as unknown[]).reverse()) };
  };
}

/** The body as this server stores it, or one the reference refuses; bodies it cannot read go through untouched. */
function storedBody(body: Uint8Array, choices: OpenChoiceOptions): Uint8Array {
  let value: { name?: unknown; description?: unknown };
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) as typeof value;
  } catch {
    return body;
  }
  if (value === null || typeof value !== 'object' || typeof value.name !== 'string') return body;
  const store = (text: string) => {
    const normal = choices.normalForm === undefined ? text : text.normalize(choices.normalForm);
    return choices.trim === true ? normal.trim() : normal;
  };
  const name = store(value.name);
  if (choices.refuseBlankName === true && name.trim() === '') return refusedBody;
  if (choices.maxNameLength !== undefined && [...name].length > choices.maxNameLength) return refusedBody;
  const description = typeof value.description === 'string' ? store(value.description) : value.description;
  return new TextEncoder().encode(JSON.stringify({ ...value, name, description }));
}
