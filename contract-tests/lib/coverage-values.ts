import type { JsonSchema } from '../../spec/openapi-types.js';

// What a case of the coverage phase is, and the values its bodies are built from: the JSON types a
// schema allows, a valid value of each property, and the valid values at the edges of its type.

/** The case families of the deterministic coverage phase (each one check, one row of the README). */
export type CaseFamily = 'required' | 'types' | 'valid-values' | 'body-shape' | 'media-types' | 'raw-json';

/** One request body the coverage phase sends, and what the interface says the answer must be. */
export interface BodyCase {
  /** Stable, readable: `name: null`, `description: emoji`, `body: malformed JSON`. */
  label: string;
  family: CaseFamily;
  body:
    | { kind: 'none' }
    | { kind: 'raw'; text: string }
    | { kind: 'bytes'; bytes: Uint8Array }
    | { kind: 'json'; value: unknown };
  /** Content-Type to send; undefined sends none. */
  contentType: string | undefined;
  /**
   * `accept`: a valid body, must be created (2xx); `reject`: must be a 4xx Error; `open`: the
   * interface leaves it open (a size limit is "not shown"), so a 2xx or a 4xx Error are both fine.
   */
  expect: 'accept' | 'reject' | 'open';
  /** For accepted bodies: the values the created resource must echo. */
  echo?: Record<string, unknown>;
  /** For accepted bodies: a property whose echo may be any one of these values (a key sent twice). */
  echoOneOf?: { property: string; values: unknown[] };
}

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';

/** One value of every JSON type (a non-integer number for "number"). */
export const sampleOfType: Record<JsonType, unknown> = {
  string: 'contract-test-text',
  integer: 42,
  number: 4.5,
  boolean: true,
  array: [],
  object: {},
  null: null,
};

/** Length of the "very long string" case: long enough to catch small fixed buffers, small enough for any body limit. */
const longStringLength = 1_000;

export function allowedTypes(schema: JsonSchema): Set<JsonType> | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const type = schema.type;
  const list = Array.isArray(type) ? (type as JsonType[]) : typeof type === 'string' ? [type as JsonType] : undefined;
  if (list === undefined) return undefined;
  const set = new Set(list);
  if (schema.nullable === true) set.add('null');
  return set;
}

export function isAllowed(type: JsonType, allowed: Set<JsonType> | undefined): boolean {
  if (allowed === undefined) return true; // no type constraint: every type is valid, nothing to reject
  if (allowed.has(type)) return true;
  return type === 'integer' && allowed.has('number');
}

/** A valid value of a property (for the required fields of otherwise valid bodies). */
export function validValue(schema: JsonSchema, text: string): unknown {
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
export function boundaryValues(
  schema: JsonSchema,
  prefix: string,
): { label: string; value: unknown; open?: boolean }[] {
  if (typeof schema !== 'object' || schema === null) return [];
  if (
    Array.isArray(schema.enum) ||
    'const' in schema ||
    typeof schema.pattern === 'string' ||
    typeof schema.format === 'string'
  )
    return [];
  const types = allowedTypes(schema);
  if (types?.has('string')) {
    const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
    const fits = (value: string) => [...value].length >= min && (max === undefined || [...value].length <= max);
    const candidates: { label: string; value: string; open?: boolean }[] = [
      // Whether a blank value is valid is not shown: refusing it (400 + Error) is as right as storing it.
      { label: 'empty string', value: '', open: true },
      {
        label: `very long string (${max ?? longStringLength} characters)`,
        value: `${prefix}-${'x'.repeat(Math.max(0, (max ?? longStringLength) - prefix.length - 1))}`,
        open: max === undefined,
      },
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
