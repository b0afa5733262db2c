import { type ExactId, idOf } from './exact-ids.js';
import type { ObservedExchange, RuleViolation } from './observed.js';
import type { SequenceRule } from './sequence-rules.js';

/**
 * The sequence rules of a resource: interface section 4 across the exchanges of a run, whichever
 * key sent them. A created category (the 201 of createCategory) is one of "all available
 * categories": every list a key fetches after that 201 holds it once, with the id, name and
 * description the 201 returned. The kit feeds every exchange of a run through `ResourceSequences`
 * (contract-tests/lib/run-judge.ts), whatever check sent it; "after" is by events (the list's
 * request left once the 201 had arrived), so it holds on a clock that stands still.
 */
export const resourceRules = [
  {
    id: 'data.round-trip',
    rule: '§4 listCategories',
    title:
      'every category the run created (201) is in every later list of either key, unchanged and once: same id, name and description',
    what: 'later lists that did not show a created category as its 201 returned it',
  },
] as const satisfies readonly SequenceRule[];

type ResourceRuleId = (typeof resourceRules)[number]['id'];

/** A created category: what its 201 returned, and the exchange that shows it. */
export interface CreatedCategory<T extends ObservedExchange> {
  id: ExactId;
  name: unknown;
  description: unknown;
  created: T;
}

/** One list that did not show a created category as its 201 returned it. */
interface RoundTripViolation<T extends ObservedExchange> extends RuleViolation {
  /** The 201 of the category the list shows wrongly. */
  created: T;
}

/** What the resource rules found on one answer: the rule judged it (a list with something to compare), and how. */
export interface ResourceFindings<T extends ObservedExchange> {
  verdicts: { id: ResourceRuleId; violations: RoundTripViolation<T>[]; comparisons: number }[];
}

/** Where a request stood among the run's creations when it left. */
export interface ResourceTicket {
  readonly createdBefore: number;
}

type Item = { id?: unknown; name?: unknown; description?: unknown };

/**
 * The created categories of a run and every later list: bounded (the first `maxCreated` creations
 * are followed, a later one is counted in `createdNotFollowed`), bodies of lists not kept.
 *
 * @example
 * const resources = new ResourceSequences();
 * resources.answered(resources.sent(), created201, true); // follows the category
 * resources.answered(resources.sent(), laterList, true).verdicts[0].violations; // [] when it is listed as created
 */
export class ResourceSequences<T extends ObservedExchange = ObservedExchange> {
  readonly #created: CreatedCategory<T>[] = [];
  readonly #maxCreated: number;
  #createdNotFollowed = 0;

  constructor(maxCreated = 10_000) {
    this.#maxCreated = maxCreated;
  }

  /** A request left: the categories created before it are those a list it fetches must hold. */
  sent(): ResourceTicket {
    return { createdBefore: this.#created.length };
  }

  /**
   * Its answer came. `byKey`: the request carried a key the server answered (lists without one, or
   * answered by an intermediary, are not the interface's view of the data).
   */
  answered(ticket: ResourceTicket, answer: T, byKey: boolean): ResourceFindings<T> {
    if (!byKey) return { verdicts: [] };
    const created = createdCategory(answer);
    if (created !== undefined) {
      if (this.#created.length < this.#maxCreated) this.#created.push(created);
      else this.#createdNotFollowed += 1;
      return { verdicts: [] };
    }
    const items = listedItems(answer);
    const due = this.#created.slice(0, ticket.createdBefore);
    if (items === undefined || due.length === 0) return { verdicts: [] };
    const byId = new Map<unknown, Item[]>();
    for (const item of items)
      if (item !== null && typeof item === 'object') byId.set(idOf(item), [...(byId.get(idOf(item)) ?? []), item]);
    const violations: RoundTripViolation<T>[] = [];
    for (const category of due) {
      const problem = listingProblem(byId.get(category.id) ?? [], category);
      if (problem === undefined) continue;
      const stored = JSON.stringify({ name: category.name, description: category.description });
      violations.push({
        created: category.created,
        detail: `category ${category.id}, created as ${stored}, ${problem} in a list fetched after its 201 (${items.length} items)`,
        field: 'id',
      });
    }
    return { verdicts: [{ id: 'data.round-trip', violations, comparisons: due.length }] };
  }

  /** Categories followed so far (their 201s). */
  get createdFollowed(): number {
    return this.#created.length;
  }

  get createdNotFollowed(): number {
    return this.#createdNotFollowed;
  }
}

/** A 201 of createCategory with a Category body: the category as the server stored it. */
function createdCategory<T extends ObservedExchange>(answer: T): CreatedCategory<T> | undefined {
  const response = answer.response;
  if (answer.operationId !== 'createCategory' || answer.request.method.toUpperCase() !== 'POST') return undefined;
  if (response.status !== 201 || !response.hasJson || response.truncatedAtBytes !== undefined) return undefined;
  const body = response.json as Item | null;
  if (body === null || typeof body !== 'object' || typeof body.id !== 'number') return undefined;
  // Held without its body: a run may create thousands, and the report shows the exchange it was given.
  const held = { ...answer, response: { ...response, bodyText: '', json: undefined } };
  return { id: idOf(body) as ExactId, name: body.name, description: body.description, created: held };
}

/** The items of a 200 of listCategories read whole, or undefined. */
function listedItems(answer: ObservedExchange): Item[] | undefined {
  const response = answer.response;
  if (answer.operationId !== 'listCategories' || answer.request.method.toUpperCase() !== 'GET') return undefined;
  if (response.status !== 200 || response.truncatedAtBytes !== undefined || !Array.isArray(response.json))
    return undefined;
  return response.json as Item[];
}

/**
 * What is wrong with how a list shows one created category (`found`: the list's items with its
 * id), or undefined: it must be there once, with the name and description its 201 returned.
 *
 * @example listingProblem([], { name: 'dog', description: undefined }) // 'is missing'
 */
export function listingProblem(
  found: readonly { name?: unknown; description?: unknown }[],
  stored: { name: unknown; description: unknown },
): string | undefined {
  if (found.length === 0) return 'is missing';
  if (found.length > 1) return `is listed ${found.length} times`;
  const [item] = found;
  return item!.name !== stored.name || item!.description !== stored.description
    ? `is listed as ${JSON.stringify({ name: item!.name, description: item!.description })}`
    : undefined;
}
