import type { JsonSchema } from '../../../spec/openapi-types.js';

/**
 * How a value sent as text (a form field, a multipart text part, a parameter) is read as the JSON
 * value its schema describes. The schema is read whole: its `type` (a name or a list; OpenAPI 3.0's
 * `nullable: true` arrives here as `[T, 'null']`, spec/normalise-openapi.ts), its `const` and
 * `enum` values, every `allOf` member (all must hold: the types they share) and every `anyOf` or
 * `oneOf` member (one must: the types of any of them), `$ref`'d members included (references are
 * resolved into shared objects, so a recursive schema is an object cycle, walked once).
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
  // Read per request too (a deepObject's or a form's names): each schema is walked once, not once a name.
  let known = typesOfSchema.get(schema);
  if (known === undefined) {
    const types = typesWithin(schema, newWalk());
    known = types === undefined ? noTypes : [...types];
    typesOfSchema.set(schema, known);
  }
  return known;
}

/** The types of each combined schema read so far (schemas are the compiled document's, never changed). */
const typesOfSchema = new WeakMap<object, readonly string[]>();

const noTypes: readonly string[] = Object.freeze([]);

/** A set of JSON types, or undefined: any type (the schema does not constrain it). */
type Types = ReadonlySet<string> | undefined;

const noneOfThem: Types = new Set();

/**
 * One walk of `typesWithin`. A schema read while a cycle was cut (an ancestor still open counted as
 * nothing) holds only while that ancestor's visit is open: read again after it closed (`allOf: [Root, Z]`,
 * Z inside Root's cycle) it is walked again, never taken from the cut reading.
 */
interface TypesWalk {
  /** Each schema read: its types and the open visit its reading depends on (-1: none). */
  memo: Map<object, { types: Types; anchor: number }>;
  /** The schemas being read, each with its visit's number. */
  open: Map<object, number>;
  openVisits: Set<number>;
  visits: number;
  /** The latest open visit the reading in progress depends on (-1: none). */
  cut: number;
}

const newWalk = (): TypesWalk => ({ memo: new Map(), open: new Map(), openVisits: new Set(), visits: 0, cut: -1 });

function typesWithin(schema: unknown, walk: TypesWalk): Types {
  if (!isSchemaObject(schema)) return undefined;
  // A schema met again inside itself adds nothing of its own (`Expr: oneOf [Literal, allOf [Expr, ...]]` is a Literal).
  const openVisit = walk.open.get(schema);
  if (openVisit !== undefined) {
    walk.cut = Math.max(walk.cut, openVisit);
    return noneOfThem;
  }
  const known = walk.memo.get(schema);
  if (known !== undefined && (known.anchor === -1 || walk.openVisits.has(known.anchor))) {
    walk.cut = Math.max(walk.cut, known.anchor);
    return known.types;
  }
  const visit = walk.visits++;
  const outerCut = walk.cut;
  walk.cut = -1;
  walk.open.set(schema, visit);
  walk.openVisits.add(visit);
  let types = both(declaredTypes(schema.type), valuesTypes(schema));
  for (const member of membersOf(schema, 'allOf')) types = both(types, typesWithin(member, walk));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = membersOf(schema, keyword);
    if (members.length > 0) types = both(types, either(members.map((member) => typesWithin(member, walk))));
  }
  walk.open.delete(schema);
  walk.openVisits.delete(visit);
  // A cycle closed at this schema is its own; one closed at an ancestor makes this reading the ancestor's.
  const anchor = walk.cut >= visit ? -1 : walk.cut;
  walk.memo.set(schema, { types, anchor });
  walk.cut = Math.max(outerCut, anchor);
  return types;
}

function declaredTypes(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type];
  if (!Array.isArray(type)) return undefined;
  return type.every((name) => typeof name === 'string') ? type : type.filter((name) => typeof name === 'string');
}

/** The types of the values `const` and `enum` allow (undefined without either). */
function valuesTypes(schema: SchemaObject): Types {
  let types: Types;
  if ('const' in schema) types = new Set([jsonTypeOf(schema.const)]);
  if (Array.isArray(schema.enum)) types = both(types, new Set(schema.enum.map(jsonTypeOf)));
  return types;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The types both allow: `integer` where one says `number` and the other `integer`. */
function both(a: Types | readonly string[], b: Types | readonly string[]): Types {
  if (a === undefined) return b === undefined ? undefined : new Set(b);
  if (b === undefined) return new Set(a);
  const other = new Set(b);
  const shared = new Set<string>();
  for (const type of a) {
    if (other.has(type)) shared.add(type);
    else if (type === 'integer' && other.has('number')) shared.add('integer');
    else if (type === 'number' && other.has('integer')) shared.add('integer');
  }
  return shared;
}

/** The types any of them allows; any type when one of them does not constrain it. */
function either(list: Types[]): Types {
  const union = new Set<string>();
  for (const types of list) {
    if (types === undefined) return undefined;
    for (const type of types) union.add(type);
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
 * A value sent as text as the type its schema asks for (`types`, from `valueTypes`): a number, a
 * boolean, null (an empty text, or `null` where a string is not allowed: forms have no null of
 * their own, and clients send either), JSON for an object or an array; the text itself when it
 * does not parse as one of them, or when the schema gives no type (validation then says why).
 *
 * @example scalar('3', ['integer', 'null']) // 3
 * @example scalar('null', ['integer', 'null']) // null
 * @example scalar('{"a":1}', ['object']) // { a: 1 }
 */
export function scalar(text: string, types: readonly string[]): unknown {
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text))
    return Number(text);
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
