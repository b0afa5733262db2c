import type { JsonSchema } from '../../spec/openapi-types.js';

/** The case families of the deterministic coverage phase (each one check, one row of the README). */
export type CaseFamily = 'required' | 'types' | 'valid-values' | 'body-shape' | 'media-types';

/** One request body the coverage phase sends, and what the interface says the answer must be. */
export interface BodyCase {
  /** Stable, readable: `name: null`, `description: emoji`, `body: malformed JSON`. */
  label: string;
  family: CaseFamily;
  body: { kind: 'none' } | { kind: 'raw'; text: string } | { kind: 'json'; value: unknown };
  /** Content-Type to send; undefined sends none. */
  contentType: string | undefined;
  /**
   * `accept`: a valid body, must be created (2xx); `reject`: must be a 4xx Error; `open`: the
   * interface leaves it open (a size limit is "not shown"), so a 2xx or a 400 Error are both fine.
   */
  expect: 'accept' | 'reject' | 'open';
  /** For accepted bodies: the values the created resource must echo. */
  echo?: Record<string, unknown>;
}

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';

/** One value of every JSON type (a non-integer number for "number"). */
const sampleOfType: Record<JsonType, unknown> = {
  string: 'contract-test-text',
  integer: 42,
  number: 4.5,
  boolean: true,
  array: [],
  object: {},
  null: null,
};

/** Length of the "very long string" case: long enough to catch small fixed buffers, small enough for any body limit. */
export const longStringLength = 1_000;

/**
 * Derives the finite, named list of cases the coverage phase sends for one JSON request body
 * schema, generically (any properties, types and required lists; `enum`, `const`, `minLength`,
 * `maxLength`, `pattern`, `minimum` and `maximum` respected where they bound the valid values):
 *
 * - each property: absent (required -> reject, optional -> accept), `null`, and a value of every
 *   JSON type it does not allow (reject); boundary values of its own type that are valid
 *   (empty, very long, non-ASCII, emoji, right-to-left, control characters for strings; 0,
 *   negative, large for numbers) -> accept (the very long string is `open`: the interface shows
 *   no size limits);
 * - the body as a whole: absent, empty, malformed JSON, every non-object JSON value -> reject;
 * - media types: `application/json; charset=utf-8` -> accept, `text/plain` -> reject.
 *
 * `validString(label)` makes the valid string values that carry the run's name prefix, so what a
 * run creates can be found.
 *
 * @example deriveBodyCases(newCategorySchema, (label) => `contract-test-ab12-${label}`).length // 41
 */
export function deriveBodyCases(schema: JsonSchema, validString: (label: string) => string): BodyCase[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  // Every required property, and every string property (so that a body whose name is an empty
  // string still carries the run's prefix somewhere and can be found on the server).
  const base = (label: string): Record<string, unknown> => {
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      if (required.has(name) || allowedTypes(property)?.has('string')) body[name] = validValue(property, validString(`${label}-${name}`));
    }
    return body;
  };
  const cases: BodyCase[] = [];
  const json = (value: unknown) => ({ kind: 'json' as const, value });

  for (const [name, property] of Object.entries(properties)) {
    const allowed = allowedTypes(property);
    // Absent.
    if (required.has(name)) {
      const body = base(`no-${name}`);
      delete body[name];
      cases.push({ label: `${name}: absent (required)`, family: 'required', body: json(body), contentType: 'application/json', expect: 'reject' });
    } else {
      const body = base(`no-${name}`);
      cases.push({ label: `${name}: absent (optional)`, family: 'valid-values', body: json(body), contentType: 'application/json', expect: 'accept', echo: body });
    }
    // null and every JSON type it is not.
    for (const type of ['null', 'string', 'integer', 'number', 'boolean', 'array', 'object'] as JsonType[]) {
      if (isAllowed(type, allowed)) continue;
      const body = { ...base(`${name}-${type}`), [name]: sampleOfType[type] };
      cases.push({ label: `${name}: ${type === 'number' ? 'non-integer number' : type}`, family: 'types', body: json(body), contentType: 'application/json', expect: 'reject' });
    }
    // Valid boundary values of its own type.
    for (const { label, value, open } of boundaryValues(property, validString(`${name}-boundary`))) {
      const body = { ...base(`${name}-${label}`), [name]: value };
      cases.push({ label: `${name}: ${label}`, family: 'valid-values', body: json(body), contentType: 'application/json', expect: open ? 'open' : 'accept', echo: body });
    }
  }

  // The body as a whole.
  const valid = base('media');
  cases.push({ label: 'body: absent (no body, no Content-Type)', family: 'body-shape', body: { kind: 'none' }, contentType: undefined, expect: 'reject' });
  cases.push({ label: 'body: empty (0 bytes, application/json)', family: 'body-shape', body: { kind: 'raw', text: '' }, contentType: 'application/json', expect: 'reject' });
  cases.push({ label: 'body: malformed JSON', family: 'body-shape', body: { kind: 'raw', text: `${JSON.stringify(valid).slice(0, -1)},` }, contentType: 'application/json', expect: 'reject' });
  for (const type of ['null', 'string', 'integer', 'number', 'boolean', 'array'] as JsonType[]) {
    cases.push({ label: `body: ${type === 'number' ? 'non-integer number' : type} instead of an object`, family: 'body-shape', body: json(sampleOfType[type]), contentType: 'application/json', expect: 'reject' });
  }
  cases.push({ label: 'body: an array holding a valid object', family: 'body-shape', body: json([valid]), contentType: 'application/json', expect: 'reject' });

  // Media types.
  const charset = base('charset');
  cases.push({ label: 'media type: application/json; charset=utf-8', family: 'media-types', body: json(charset), contentType: 'application/json; charset=utf-8', expect: 'accept', echo: charset });
  cases.push({ label: 'media type: text/plain (a JSON text, but not declared as JSON)', family: 'media-types', body: json(base('text-plain')), contentType: 'text/plain', expect: 'reject' });
  return cases;
}

function allowedTypes(schema: JsonSchema): Set<JsonType> | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const type = schema.type;
  const list = Array.isArray(type) ? (type as JsonType[]) : typeof type === 'string' ? [type as JsonType] : undefined;
  if (list === undefined) return undefined;
  const set = new Set(list);
  if (schema.nullable === true) set.add('null');
  return set;
}

function isAllowed(type: JsonType, allowed: Set<JsonType> | undefined): boolean {
  if (allowed === undefined) return true; // no type constraint: every type is valid, nothing to reject
  if (allowed.has(type)) return true;
  return type === 'integer' && allowed.has('number');
}

/** A valid value of a property (for the required fields of otherwise valid bodies). */
function validValue(schema: JsonSchema, text: string): unknown {
  if (typeof schema !== 'object' || schema === null) return text;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = [...(allowedTypes(schema) ?? new Set<JsonType>(['string']))][0];
  switch (type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'null':
      return null;
    default: {
      const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
      return text.length <= max ? text : text.slice(0, max);
    }
  }
}

/** Valid values at the edges of a property's own type. */
function boundaryValues(schema: JsonSchema, prefix: string): { label: string; value: unknown; open?: boolean }[] {
  if (typeof schema !== 'object' || schema === null) return [];
  if (Array.isArray(schema.enum) || 'const' in schema || typeof schema.pattern === 'string' || typeof schema.format === 'string') return [];
  const types = allowedTypes(schema);
  if (types?.has('string')) {
    const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
    const fits = (value: string) => [...value].length >= min && (max === undefined || [...value].length <= max);
    const candidates: { label: string; value: string; open?: boolean }[] = [
      { label: 'empty string', value: '' },
      { label: `very long string (${max ?? longStringLength} characters)`, value: `${prefix}-${'x'.repeat(Math.max(0, (max ?? longStringLength) - prefix.length - 1))}`, open: max === undefined },
      { label: 'non-ASCII (accents, CJK)', value: `${prefix}-Café Müller 猫` },
      { label: 'emoji (surrogate pairs, ZWJ sequence)', value: `${prefix}-🐶🐱 🏳️‍🌈` },
      { label: 'right-to-left text', value: `${prefix}-قطط وكلاب` },
      { label: 'control characters (tab, newline, U+0001)', value: `${prefix}-a\tb\nc\u0001` },
    ];
    return candidates.filter((candidate) => fits(candidate.value));
  }
  if (types?.has('integer') || types?.has('number')) {
    const minimum = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
    const maximum = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
    return [
      { label: 'zero', value: 0 },
      { label: 'negative', value: -1 },
      { label: 'large (2^53 - 1)', value: Number.MAX_SAFE_INTEGER },
    ].filter((candidate) => candidate.value >= minimum && candidate.value <= maximum);
  }
  if (types?.has('boolean')) return [{ label: 'false', value: false }];
  return [];
}
