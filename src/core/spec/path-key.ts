/**
 * What a path key of a document says beyond its path: OpenAPI's keys are paths, but real documents
 * write a `#fragment` (Box: operations told apart on one URL) or a `?query` (OpenAI: the beta of an
 * operation, `/responses?beta=true`) after it. The router matches a request's path on the path
 * alone and its query on the key's query (docs/decisions/040).
 */

/** The query of a path key (`/responses?beta=true`): each name with the value it must have (undefined: any). */
export type QueryCondition = readonly (readonly [name: string, value: string | undefined])[];

/**
 * The part of a path key a request's path is matched on: without its `#fragment` and its `?query`.
 * A `#fragment` (Box's `/shared_items#folders`) names an alternative operation on the same URL: a
 * client never sends it, so the key is routed without it, as wiretap and swagger-ui do
 * (docs/decisions/037). A `?query` (OpenAI's `/responses?beta=true`) is a condition on the
 * request's query (`queryConditionOf`). Of several operations on one path and method, the query chooses (router.ts, `alternativeFor`).
 *
 * @example routedPath('/responses/{id}?beta=true') // '/responses/{id}'
 */
export function routedPath(template: string): string {
  const hash = template.indexOf('#');
  const path = hash === -1 ? template : template.slice(0, hash);
  const question = path.indexOf('?');
  return question === -1 ? path : path.slice(0, question);
}

/** The query a path key writes (`?beta=true&mode`, `?q={q}`), as names and the values they must have (undefined: any). */
export function queryConditionOf(template: string): QueryCondition {
  const path = template.split('#', 1)[0]!;
  const question = path.indexOf('?');
  if (question === -1 || question === path.length - 1) return noCondition;
  return path
    .slice(question + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return [formDecode(pair), undefined] as const;
      const value = formDecode(pair.slice(equals + 1));
      // `?q={q}` names a parameter, not a text: any value of it holds.
      return [formDecode(pair.slice(0, equals)), /^\{[^{}]+\}$/.test(value) ? undefined : value] as const;
    });
}

const noCondition: QueryCondition = Object.freeze([]);

/** A query's name or value as URLSearchParams reads it (`+` a space, percent-decoded). */
function formDecode(text: string): string {
  return new URLSearchParams(`a=${text}`).get('a') ?? text;
}

/** A request's query read once: each name's values as sets (URLSearchParams' `getAll` scans every pair, each call). */
export type QueryValues = ReadonlyMap<string, ReadonlySet<string>>;

export function queryValuesOf(query: string): QueryValues {
  const values = new Map<string, Set<string>>();
  for (const [name, value] of new URLSearchParams(query)) {
    const set = values.get(name);
    if (set === undefined) values.set(name, new Set([value]));
    else set.add(value);
  }
  return values;
}

/**
 * Does a request's query meet a key's: each name present, with the value the key gives (if it gives
 * one)? In time of the key's pairs, whatever the query's length (thousands of keys on one path, each
 * checked against a query of 8,000 pairs, cost keys x pairs before).
 */
export function conditionHolds(condition: QueryCondition, present: QueryValues): boolean {
  return condition.every(([name, value]) => {
    const values = present.get(name);
    return values !== undefined && (value === undefined || values.has(value));
  });
}
