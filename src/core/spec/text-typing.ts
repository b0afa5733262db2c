import type { JsonSchema } from '../../../spec/openapi-types.js';

/**
 * How a value sent as text (a form field, a multipart text part, a parameter) is read as the JSON
 * value its schema describes. The schema is read whole: its `type` (a name or a list; OpenAPI 3.0's
 * `nullable: true` arrives here as `[T, 'null']`, spec/normalise-openapi.ts), its `const` and
 * `enum` values, every `allOf` member (all must hold: the values they share) and every `anyOf` or
 * `oneOf` member (one must: the values of any of them), `$ref`'d members included (references are
 * resolved into shared objects, so a recursive schema is an object cycle, walked once). A text is
 * accepted when any reading the schema allows is valid: the string it is or the value it spells
 * (`textValue`), one rule for parameters, form fields and multipart parts.
 */

type SchemaObject = Exclude<JsonSchema, boolean>;

const isSchemaObject = (schema: unknown): schema is SchemaObject =>
  schema !== null && typeof schema === 'object' && !Array.isArray(schema);

const membersOf = (schema: SchemaObject, keyword: 'allOf' | 'anyOf' | 'oneOf'): unknown[] => {
  const members = schema[keyword];
  return Array.isArray(members) ? members : [];
};

/** Nothing to combine: a plain `{type: ...}`, the common case, read without a walk. */
const isPlain = (schema: SchemaObject): boolean =>
  schema.allOf === undefined &&
  schema.anyOf === undefined &&
  schema.oneOf === undefined &&
  schema.enum === undefined &&
  schema.const === undefined;

/**
 * The JSON types a value of the schema may have (`integer` for a number that must be whole), read
 * from the whole schema; empty when the schema does not say (no type anywhere, or types that
 * contradict each other): such a text is kept as text, and validation says whether it may be.
 *
 * @example valueTypes({ allOf: [{ $ref: '#/components/schemas/Session' }] }) // ['object'], where Session is an object
 * @example valueTypes({ type: ['integer', 'null'] }) // ['integer', 'null']
 * @example valueTypes({ enum: [1, 2, 3] }) // ['integer']
 */
export function valueTypes(schema: JsonSchema | undefined): readonly string[] {
  if (!isSchemaObject(schema)) return noTypes;
  if (isPlain(schema)) return declaredTypes(schema.type) ?? noTypes;
  return readingOf(schema).types;
}

/** What a combined schema allows, read once: its types, and the values each type is limited to. */
interface Reading {
  types: readonly string[];
  /** undefined: any value (no type given, or types that contradict each other: `types` is empty). */
  domain: Domain;
}

/** The reading of a combined schema (not plain), walked on its first use. */
function readingOf(schema: SchemaObject): Reading {
  // Read per request too (a deepObject's or a form's names): each schema is walked once, not once a name.
  let known = readingOfSchema.get(schema);
  if (known === undefined) {
    const domain = domainWithin(schema, newWalk());
    known = { types: domain === undefined ? noTypes : [...domain.keys()], domain };
    readingOfSchema.set(schema, known);
  }
  return known;
}

/** The reading of each combined schema read so far (schemas are the compiled document's, never changed). */
const readingOfSchema = new WeakMap<object, Reading>();

const noTypes: readonly string[] = Object.freeze([]);

/** The values of one JSON type a schema allows: any (`true`), or only those its `const` or `enum` name. */
type Allowed = true | ReadonlySet<unknown>;

/**
 * The values a schema allows, by JSON type, in the order the schema names the types (a type absent:
 * none of its values); undefined: any value. Literals are kept for the scalars a text can spell
 * (strings, numbers, booleans, null); an object or array literal allows any object or array here
 * (a text read as JSON is checked by validation). `number` holds only literals that are not whole,
 * `integer` the whole ones (as `jsonTypeOf` files them).
 */
type Domain = ReadonlyMap<string, Allowed> | undefined;

const nothing: Domain = new Map();

/**
 * One walk of `domainWithin`. A schema read while a cycle was cut (an ancestor still open counted as
 * nothing) holds only while that ancestor's visit is open: read again after it closed (`allOf: [Root, Z]`,
 * Z inside Root's cycle) it is walked again, never taken from the cut reading.
 */
interface DomainWalk {
  /** Each schema read: its domain and the open visit its reading depends on (-1: none). */
  memo: Map<object, { domain: Domain; anchor: number }>;
  /** The schemas being read, each with its visit's number. */
  open: Map<object, number>;
  openVisits: Set<number>;
  visits: number;
  /** The latest open visit the reading in progress depends on (-1: none). */
  cut: number;
}

const newWalk = (): DomainWalk => ({ memo: new Map(), open: new Map(), openVisits: new Set(), visits: 0, cut: -1 });

function domainWithin(schema: unknown, walk: DomainWalk): Domain {
  if (!isSchemaObject(schema)) return undefined;
  // A schema met again inside itself adds nothing of its own (`Expr: oneOf [Literal, allOf [Expr, ...]]` is a Literal).
  const openVisit = walk.open.get(schema);
  if (openVisit !== undefined) {
    walk.cut = Math.max(walk.cut, openVisit);
    return nothing;
  }
  const known = walk.memo.get(schema);
  if (known !== undefined && (known.anchor === -1 || walk.openVisits.has(known.anchor))) {
    walk.cut = Math.max(walk.cut, known.anchor);
    return known.domain;
  }
  const visit = walk.visits++;
  const outerCut = walk.cut;
  walk.cut = -1;
  walk.open.set(schema, visit);
  walk.openVisits.add(visit);
  let domain = both(typeDomain(declaredTypes(schema.type)), literalsDomain(schema));
  for (const member of membersOf(schema, 'allOf')) domain = both(domain, domainWithin(member, walk));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = membersOf(schema, keyword);
    if (members.length > 0) domain = both(domain, either(members.map((member) => domainWithin(member, walk))));
  }
  walk.open.delete(schema);
  walk.openVisits.delete(visit);
  // A cycle closed at this schema is its own; one closed at an ancestor makes this reading the ancestor's.
  const anchor = walk.cut >= visit ? -1 : walk.cut;
  walk.memo.set(schema, { domain, anchor });
  walk.cut = Math.max(outerCut, anchor);
  return domain;
}

function declaredTypes(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type];
  if (!Array.isArray(type)) return undefined;
  return type.every((name) => typeof name === 'string') ? type : type.filter((name) => typeof name === 'string');
}

/** Any value of each type named (undefined: no type named). */
const typeDomain = (types: readonly string[] | undefined): Domain =>
  types === undefined ? undefined : new Map(types.map((type) => [type, true]));

/** The values `const` and `enum` allow, by type (undefined without either); linear in the enum's size. */
function literalsDomain(schema: SchemaObject): Domain {
  let domain: Domain;
  if ('const' in schema) domain = literalDomain([schema.const]);
  if (Array.isArray(schema.enum)) domain = both(domain, literalDomain(schema.enum));
  return domain;
}

function literalDomain(values: readonly unknown[]): Domain {
  const domain = new Map<string, true | Set<unknown>>();
  for (const value of values) {
    const type = jsonTypeOf(value);
    const allowed = domain.get(type);
    if (type === 'object' || type === 'array') domain.set(type, true);
    else if (allowed === undefined) domain.set(type, new Set([value]));
    else if (allowed !== true) allowed.add(value);
  }
  return domain;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The values both allow: whole numbers where one says `number` and the other `integer`. */
function both(a: Domain, b: Domain): Domain {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const shared = new Map<string, Allowed>();
  const add = (type: string, allowed: Allowed | undefined) => {
    const had = shared.get(type);
    if (allowed !== undefined) shared.set(type, had === undefined ? allowed : joined(had, allowed));
  };
  for (const [type, allowed] of a) {
    const other = b.get(type);
    if (other !== undefined) add(type, met(allowed, other));
    // A `number` literal is never whole: only `number: any` meets the other side's integers.
    if (type === 'integer' && b.get('number') === true) add('integer', allowed);
    if (type === 'number' && allowed === true && b.has('integer')) add('integer', b.get('integer'));
  }
  return shared;
}

/** The values both allow of one type; undefined when none. */
function met(a: Allowed, b: Allowed): Allowed | undefined {
  if (a === true) return b;
  if (b === true) return a;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const shared = new Set<unknown>();
  for (const value of small) if (large.has(value)) shared.add(value);
  return shared.size === 0 ? undefined : shared;
}

const joined = (a: Allowed, b: Allowed): Allowed => (a === true || b === true ? true : new Set([...a, ...b]));

/** The values any of them allows; any value when one of them does not constrain it. */
function either(list: Domain[]): Domain {
  // Sets made here, grown in place: 20,000 `oneOf` members of one `const` each stay linear.
  const union = new Map<string, true | Set<unknown>>();
  for (const domain of list) {
    if (domain === undefined) return undefined;
    for (const [type, allowed] of domain) {
      const had = union.get(type);
      if (had === true) continue;
      if (allowed === true) union.set(type, true);
      else if (had === undefined) union.set(type, new Set(allowed));
      else for (const value of allowed) had.add(value);
    }
  }
  return union;
}

/**
 * The schema of each property a value of the schema may have, gathered through `allOf` (a property
 * declared by several members must meet each: an `allOf` of its schemas) and `anyOf`/`oneOf` (a
 * property of several branches: an `anyOf` of the schemas of the branches that declare it).
 *
 * @example propertySchemas({ allOf: [{ properties: { n: { type: 'integer' } } }] }).get('n') // { type: 'integer' }
 */
export function propertySchemas(schema: JsonSchema | undefined): ReadonlyMap<string, JsonSchema> {
  return gathered(schema, (part) =>
    isSchemaObject(part.properties) ? Object.entries(part.properties as Record<string, JsonSchema>) : [],
  );
}

/**
 * The schema of an array's items, gathered through `allOf`, `anyOf` and `oneOf` as properties are;
 * undefined when no part of the schema says.
 *
 * @example itemSchema({ anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] }) // { type: 'integer' }
 */
export function itemSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (isSchemaObject(schema) && isPlain(schema)) return schema.items;
  return gathered(schema, (part) => (part.items === undefined ? [] : [['items', part.items]])).get('items');
}

type Pick = (schema: SchemaObject) => [string, JsonSchema][];

function gathered(schema: JsonSchema | undefined, pick: Pick): ReadonlyMap<string, JsonSchema> {
  return gatheredWithin(schema, pick, new Map(), new Set()) ?? noSchemas;
}

const noSchemas: ReadonlyMap<string, JsonSchema> = new Map();

function gatheredWithin(
  schema: unknown,
  pick: Pick,
  memo: Map<object, Map<string, JsonSchema> | undefined>,
  visiting: Set<object>,
): Map<string, JsonSchema> | undefined {
  if (!isSchemaObject(schema) || visiting.has(schema)) return undefined;
  if (memo.has(schema)) return memo.get(schema);
  visiting.add(schema);
  // Every schema a name must meet (its own, each allOf member's, each group of branches').
  const conjoined = new Map<string, JsonSchema[]>();
  // Appended in place: a copy per part made a name declared by 40,000 members cost 15 s.
  const append = (lists: Map<string, JsonSchema[]>, name: string, part: JsonSchema) => {
    const list = lists.get(name);
    if (list === undefined) lists.set(name, [part]);
    else list.push(part);
  };
  const add = (name: string, part: JsonSchema) => append(conjoined, name, part);
  for (const [name, part] of pick(schema)) add(name, part);
  for (const member of membersOf(schema, 'allOf'))
    for (const [name, part] of gatheredWithin(member, pick, memo, visiting) ?? []) add(name, part);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = new Map<string, JsonSchema[]>();
    for (const member of membersOf(schema, keyword))
      for (const [name, part] of gatheredWithin(member, pick, memo, visiting) ?? []) append(branches, name, part);
    for (const [name, parts] of branches) add(name, parts.length === 1 ? parts[0]! : { anyOf: parts });
  }
  visiting.delete(schema);
  const out =
    conjoined.size === 0
      ? undefined
      : new Map([...conjoined].map(([name, parts]) => [name, parts.length === 1 ? parts[0]! : { allOf: parts }]));
  memo.set(schema, out);
  return out;
}

/**
 * A value sent as text (a form field, a multipart text part, a query, path, header or cookie
 * parameter) as the value its schema allows: any reading the schema admits, its type, `const`,
 * `enum`, `allOf`/`anyOf`/`oneOf` members, type lists and nullable all read. When several readings
 * are allowed, the first of these wins:
 *
 * 1. the text itself, when a `const` or `enum` names that string (`'1'` of `enum: ['1', 2]`): the
 *    client sent a value the document spells out, and only this reading keeps it;
 * 2. the number, boolean, null (an empty text) or JSON object or array it spells, when the schema
 *    allows that value: `2` of the same enum, `3` of `type: [string, integer]` (the typed value, as
 *    parameter deserialisation gives it, where the schema allows either);
 * 3. the text itself, when the schema allows any string (`1.5` of `type: [string, integer]`);
 * 4. null from the text `null`, when the schema allows null and not that string (forms have no
 *    null of their own, and clients send either);
 * 5. none allowed: the reading its types ask for first, so validation names the type it wanted.
 *
 * The schema is read once (memo by schema object) and a text costs a lookup per reading: linear in
 * neither the enum's size nor the members'. A schema of no type keeps the text as it is.
 *
 * @example textValue('1', { enum: ['1', 2] }) // '1'
 * @example textValue('2', { enum: ['1', 2] }) // 2
 * @example textValue('null', { type: ['integer', 'null'] }) // null
 * @example textValue('{"a":1}', { type: 'object' }) // { a: 1 }
 */
export function textValue(text: string, schema: JsonSchema | undefined): unknown {
  if (!isSchemaObject(schema)) return text;
  if (isPlain(schema)) return typedText(text, declaredTypes(schema.type) ?? noTypes, undefined);
  const { types, domain } = readingOf(schema);
  return typedText(text, types, domain);
}

/** The values of a type the schema allows: from its domain, or any value of each declared type (a plain schema). */
function allowedOf(types: readonly string[], domain: Domain, type: string): Allowed | undefined {
  if (domain !== undefined) return domain.get(type);
  return types.includes(type) ? true : undefined;
}

const allows = (allowed: Allowed | undefined, value: unknown): boolean =>
  allowed === true || allowed?.has(value) === true;

const numberText = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

function typedText(text: string, types: readonly string[], domain: Domain): unknown {
  if (types.length === 0) return text;
  const strings = allowedOf(types, domain, 'string');
  if (strings !== undefined && strings !== true && strings.has(text)) return text;
  const value = typedReading(text, types, domain);
  if (value !== undefined) return value;
  if (strings === true) return text;
  if (text === 'null' && allowedOf(types, domain, 'null') !== undefined) return null;
  return byType(text, types);
}

/** The number, boolean, null or JSON the text spells, when the schema allows it; undefined when none is. */
function typedReading(text: string, types: readonly string[], domain: Domain): unknown {
  if (numberText.test(text)) {
    const number = Number(text);
    if (
      allows(allowedOf(types, domain, 'number'), number) ||
      (Number.isInteger(number) && allows(allowedOf(types, domain, 'integer'), number))
    )
      return number;
  }
  if (text === 'true' || text === 'false') {
    const boolean = text === 'true';
    if (allows(allowedOf(types, domain, 'boolean'), boolean)) return boolean;
  }
  if (text === '' && allowedOf(types, domain, 'null') !== undefined) return null;
  const json = text.startsWith('{') ? 'object' : text.startsWith('[') ? 'array' : undefined;
  if (json !== undefined && allowedOf(types, domain, json) !== undefined) {
    const parsed = byType(text, [json]);
    if (typeof parsed === 'object') return parsed;
  }
  return undefined;
}

/**
 * The text as the first of the types that it parses as (the reading before schemas were read whole,
 * kept for a text no reading fits): a number, a boolean, null (an empty text, or `null` where a
 * string is not allowed), JSON for an object or an array; else the text.
 */
function byType(text: string, types: readonly string[]): unknown {
  if ((types.includes('integer') || types.includes('number')) && numberText.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.includes('null') && (text === '' || (text === 'null' && !types.includes('string')))) return null;
  if (types.includes('object') || (types.includes('array') && text.startsWith('['))) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
