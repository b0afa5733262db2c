import type { JsonSchema } from '../../spec/openapi-types.js';

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
const longStringLength = 1_000;

/**
 * Derives the finite, named list of cases the coverage phase sends for one JSON request body
 * schema, generically (any properties, types and required lists; `enum`, `const`, `minLength`,
 * `maxLength`, `pattern`, `minimum` and `maximum` respected where they bound the valid values):
 *
 * - each property: absent (required -> reject, optional -> accept), `null`, and a value of every
 *   JSON type it does not allow (reject); boundary values of its own type that are valid
 *   (empty, very long, non-ASCII, emoji, right-to-left, control characters for strings; 0,
 *   negative, large for numbers) -> accept (the empty and the very long string are `open`: the
 *   interface shows neither whether a blank value is valid nor size limits);
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
      if (required.has(name) || allowedTypes(property)?.has('string'))
        body[name] = validValue(property, validString(`${label}-${name}`));
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
      cases.push({
        label: `${name}: absent (required)`,
        family: 'required',
        body: json(body),
        contentType: 'application/json',
        expect: 'reject',
      });
    } else {
      const body = base(`no-${name}`);
      cases.push({
        label: `${name}: absent (optional)`,
        family: 'valid-values',
        body: json(body),
        contentType: 'application/json',
        expect: 'accept',
        echo: body,
      });
    }
    // null and every JSON type it is not.
    for (const type of ['null', 'string', 'integer', 'number', 'boolean', 'array', 'object'] as JsonType[]) {
      if (isAllowed(type, allowed)) continue;
      const body = { ...base(`${name}-${type}`), [name]: sampleOfType[type] };
      cases.push({
        label: `${name}: ${type === 'number' ? 'non-integer number' : type}`,
        family: 'types',
        body: json(body),
        contentType: 'application/json',
        expect: 'reject',
      });
    }
    // Valid boundary values of its own type.
    for (const { label, value, open } of boundaryValues(property, validString(`${name}-boundary`))) {
      const body = { ...base(`${name}-${label}`), [name]: value };
      cases.push({
        label: `${name}: ${label}`,
        family: 'valid-values',
        body: json(body),
        contentType: 'application/json',
        expect: open ? 'open' : 'accept',
        echo: body,
      });
    }
  }

  // The body as a whole.
  const valid = base('media');
  cases.push({
    label: 'body: absent (no body, no Content-Type)',
    family: 'body-shape',
    body: { kind: 'none' },
    contentType: undefined,
    expect: 'reject',
  });
  cases.push({
    label: 'body: empty (0 bytes, application/json)',
    family: 'body-shape',
    body: { kind: 'raw', text: '' },
    contentType: 'application/json',
    expect: 'reject',
  });
  cases.push({
    label: 'body: malformed JSON',
    family: 'body-shape',
    body: { kind: 'raw', text: `${JSON.stringify(valid).slice(0, -1)},` },
    contentType: 'application/json',
    expect: 'reject',
  });
  for (const type of ['null', 'string', 'integer', 'number', 'boolean', 'array'] as JsonType[]) {
    cases.push({
      label: `body: ${type === 'number' ? 'non-integer number' : type} instead of an object`,
      family: 'body-shape',
      body: json(sampleOfType[type]),
      contentType: 'application/json',
      expect: 'reject',
    });
  }
  cases.push({
    label: 'body: an array holding a valid object',
    family: 'body-shape',
    body: json([valid]),
    contentType: 'application/json',
    expect: 'reject',
  });

  // Near-JSON that lenient parsers (JSON5, YAML, eval) take: not JSON, so not a NewCategory.
  const text = JSON.stringify(base('relaxed'));
  const relaxed: [string, string][] = [
    ['a trailing comma', `${text.slice(0, -1)},}`],
    ['single-quoted strings', text.replace(/"/g, "'")],
    ['unquoted property names', text.replace(/"([A-Za-z_$][\w$]*)":/g, '$1:')],
    ['a comment', `${text.slice(0, -1)} /* a comment */}`],
    ['NaN as a value', `${text.slice(0, -1)},"contract-test-number":NaN}`],
    ['text after the JSON', `${text} trailing`],
    ['two JSON texts', `${text}${text}`],
  ];
  for (const [label, raw] of relaxed)
    cases.push({
      label: `body: near-JSON, ${label}`,
      family: 'body-shape',
      body: { kind: 'raw', text: raw },
      contentType: 'application/json',
      expect: 'reject',
    });

  cases.push(...rawJsonCases(properties, required, base));

  // Media types: names are case-insensitive (RFC 9110 section 8.3.1) and parameters may be spelled several ways.
  const charset = base('charset');
  cases.push({
    label: 'media type: application/json; charset=utf-8',
    family: 'media-types',
    body: json(charset),
    contentType: 'application/json; charset=utf-8',
    expect: 'accept',
    echo: charset,
  });
  const upper = base('media-case');
  cases.push({
    label: 'media type: Application/JSON (letter case)',
    family: 'media-types',
    body: json(upper),
    contentType: 'Application/JSON',
    expect: 'accept',
    echo: upper,
  });
  const tight = base('charset-tight');
  cases.push({
    label: 'media type: application/json;charset=UTF-8 (no space, upper case)',
    family: 'media-types',
    body: json(tight),
    contentType: 'application/json;charset=UTF-8',
    expect: 'accept',
    echo: tight,
  });
  const spaced = base('charset-spaced');
  cases.push({
    label: 'media type: application/json ; charset=utf-8 (whitespace before the parameter)',
    family: 'media-types',
    body: json(spaced),
    contentType: 'application/json ; charset=utf-8',
    expect: 'accept',
    echo: spaced,
  });
  const quoted = base('charset-quoted');
  cases.push({
    label: 'media type: application/json; charset="utf-8" (quoted)',
    family: 'media-types',
    body: json(quoted),
    contentType: 'application/json; charset="utf-8"',
    expect: 'accept',
    echo: quoted,
  });
  cases.push({
    label: 'media type: text/plain (a JSON text, but not declared as JSON)',
    family: 'media-types',
    body: json(base('text-plain')),
    contentType: 'text/plain',
    expect: 'reject',
  });
  const form = new URLSearchParams(
    Object.entries(base('form')).map(([name, value]) => [name, String(value)]),
  ).toString();
  cases.push({
    label: 'media type: application/x-www-form-urlencoded (the fields as a form)',
    family: 'media-types',
    body: { kind: 'raw', text: form },
    contentType: 'application/x-www-form-urlencoded',
    expect: 'reject',
  });
  const vendor = base('media-vendor');
  cases.push({
    label: 'media type: application/vnd.api+json (a JSON-based type, not application/json)',
    family: 'media-types',
    body: json(vendor),
    contentType: 'application/vnd.api+json',
    expect: 'open',
    echo: vendor,
  });
  const untyped = base('media-none');
  cases.push({
    label: 'media type: none (a JSON body without Content-Type)',
    family: 'media-types',
    body: json(untyped),
    contentType: undefined,
    expect: 'open',
    echo: untyped,
  });
  return cases;
}

/**
 * Bodies no JSON writer produces but a client can send (what JSON.stringify cannot write): a
 * property name spelled with escapes or in another letter case, a property twice, a byte order
 * mark, bytes that are not UTF-8, a lone surrogate, a NUL, whitespace everywhere, deep nesting,
 * an unknown property. Built around the first required string property.
 */
function rawJsonCases(
  properties: Record<string, JsonSchema>,
  required: Set<string>,
  base: (label: string) => Record<string, unknown>,
): BodyCase[] {
  const key = Object.keys(properties).find(
    (name) =>
      required.has(name) &&
      allowedTypes(properties[name]!)?.has('string') &&
      boundaryValues(properties[name]!, '').length > 0,
  );
  if (key === undefined) return [];
  const cases: BodyCase[] = [];
  const family = 'raw-json' as const;
  const contentType = 'application/json';
  /** The body `base(label)` as JSON text, with the key's value written as `valueText` (raw JSON). */
  const withValue = (label: string, valueText: string, keyText = JSON.stringify(key)) => {
    const rest = base(label);
    delete rest[key];
    const others = Object.entries(rest).map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
    return `{${[`${keyText}:${valueText}`, ...others].join(',')}}`;
  };
  const escapeAll = (text: string) =>
    [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

  const escapedKey = base('escaped-key');
  const spelled = `"${escapeAll(key.charAt(0))}${key.slice(1)}"`;
  cases.push({
    label: `${key}: property name spelled with an escape (${spelled})`,
    family,
    body: { kind: 'raw', text: withValue('escaped-key', JSON.stringify(escapedKey[key]), spelled) },
    contentType,
    expect: 'accept',
    echo: escapedKey,
  });
  const escapedValue = base('escaped-value');
  cases.push({
    label: `${key}: value written entirely in \\u escapes`,
    family,
    body: { kind: 'raw', text: withValue('escaped-value', `"${escapeAll(String(escapedValue[key]))}"`) },
    contentType,
    expect: 'accept',
    echo: escapedValue,
  });
  const otherCase =
    key.charAt(0).toUpperCase() === key.charAt(0) ? key.toLowerCase() : `${key.charAt(0).toUpperCase()}${key.slice(1)}`;
  if (otherCase !== key) {
    cases.push({
      label: `${key}: only as ${JSON.stringify(otherCase)} (another letter case: required property absent)`,
      family,
      body: {
        kind: 'raw',
        text: withValue('other-case', JSON.stringify(base('other-case')[key]), JSON.stringify(otherCase)),
      },
      contentType,
      expect: 'reject',
    });
  }
  const first = String(base('duplicate-first')[key]);
  const second = String(base('duplicate-second')[key]);
  cases.push({
    label: `${key}: the property twice, two valid values`,
    family,
    body: {
      kind: 'raw',
      text: withValue('duplicate', `${JSON.stringify(first)},${JSON.stringify(key)}:${JSON.stringify(second)}`),
    },
    contentType,
    expect: 'open',
    echoOneOf: { property: key, values: [first, second] },
  });
  const bom = base('bom');
  cases.push({
    label: 'body: a byte order mark before the JSON',
    family,
    body: { kind: 'raw', text: `\uFEFF${JSON.stringify(bom)}` },
    contentType,
    expect: 'open',
    echo: bom,
  });
  const spaced = base('whitespace');
  cases.push({
    label: 'body: whitespace around and between every token',
    family,
    body: {
      kind: 'raw',
      text: ` \r\n\t${JSON.stringify(spaced, null, '\t').replace(/:/g, ' \t: ').replace(/,/g, ' ,\r\n')}\n `,
    },
    contentType,
    expect: 'accept',
    echo: spaced,
  });
  // The value carries a marker (U+00A7, bytes C2 A7) that is then replaced by two bytes UTF-8 never has.
  const marked = Buffer.from(
    withValue('invalid-utf8', JSON.stringify(`${String(base('invalid-utf8')[key])}-\u00a7`)),
    'utf8',
  );
  const at = marked.indexOf(Buffer.from('\u00a7', 'utf8'));
  // RFC 8259 asks senders for UTF-8 and leaves readers free: refused, or each bad byte replaced by U+FFFD (as the
  // Unicode standard and every common decoder do). Dropping the bytes or reading them as Latin-1 alters the data.
  const repaired = base('invalid-utf8');
  repaired[key] = `${String(repaired[key])}-\ufffd\ufffd`;
  cases.push({
    label: `${key}: bytes that are not UTF-8 (0xFF 0xFE) in the value`,
    family,
    body: {
      kind: 'bytes',
      bytes: Buffer.concat([marked.subarray(0, at), Buffer.from([0xff, 0xfe]), marked.subarray(at + 2)]),
    },
    contentType,
    expect: 'open',
    echo: repaired,
  });
  cases.push({
    label: `${key}: a lone surrogate (\\ud800) in the value`,
    family,
    body: {
      kind: 'raw',
      text: withValue('lone-surrogate', `${JSON.stringify(String(base('lone-surrogate')[key])).slice(0, -1)}\\ud800"`),
    },
    contentType,
    expect: 'open',
  });
  const nul = base('nul');
  nul[key] = `${String(nul[key])}\u0000after-nul`;
  cases.push({
    label: `${key}: a NUL character (\\u0000) in the value`,
    family,
    body: { kind: 'json', value: nul },
    contentType,
    expect: 'open',
    echo: nul,
  });
  const deep = 10_000;
  cases.push({
    label: `${key}: an array nested ${deep} deep instead of a string`,
    family,
    body: { kind: 'raw', text: withValue('deep', `${'['.repeat(deep)}${']'.repeat(deep)}`) },
    contentType,
    expect: 'reject',
  });
  const extra = { ...base('unknown-property'), 'contract-test-unknown': true };
  const { 'contract-test-unknown': _unknown, ...extraEcho } = extra;
  cases.push({
    label: 'body: an unknown property besides the valid ones',
    family,
    body: { kind: 'json', value: extra },
    contentType,
    expect: 'open',
    echo: extraEcho,
  });
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
