import type { JsonSchema } from '../../spec/openapi-types.js';
import { type RawJsonContext, rawJsonCases } from './coverage-raw-json.js';
import {
  allowedTypes,
  type BodyCase,
  boundaryValues,
  isAllowed,
  type JsonType,
  sampleOfType,
  validValue,
} from './coverage-values.js';

export type { BodyCase, CaseFamily } from './coverage-values.js';

/** What every family of cases is built from: the schema's properties, its required list, and the valid base body. */
interface CaseContext extends RawJsonContext {
  validString: (label: string) => string;
}

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
  const context: CaseContext = { properties, required, base, validString };
  const cases: BodyCase[] = [];
  for (const name of Object.keys(properties)) cases.push(...propertyCases(context, name));
  cases.push(...bodyShapeCases(base));
  cases.push(...nearJsonCases(base));
  cases.push(...rawJsonCases(context));
  cases.push(...mediaTypeCases(base));
  return cases;
}

function json(value: unknown): { kind: 'json'; value: unknown } {
  return { kind: 'json' as const, value };
}

/** One property: absent, null and every JSON type it is not, and the valid values at the edges of its own. */
function propertyCases({ properties, required, base, validString }: CaseContext, name: string): BodyCase[] {
  const property = properties[name]!;
  const allowed = allowedTypes(property);
  const cases: BodyCase[] = [];
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
  return cases;
}

/** The body as a whole: absent, empty, malformed, every JSON value that is not an object. */
function bodyShapeCases(base: (label: string) => Record<string, unknown>): BodyCase[] {
  const valid = base('media');
  const cases: BodyCase[] = [
    {
      label: 'body: absent (no body, no Content-Type)',
      family: 'body-shape',
      body: { kind: 'none' },
      contentType: undefined,
      expect: 'reject',
    },
    {
      label: 'body: empty (0 bytes, application/json)',
      family: 'body-shape',
      body: { kind: 'raw', text: '' },
      contentType: 'application/json',
      expect: 'reject',
    },
    {
      label: 'body: malformed JSON',
      family: 'body-shape',
      body: { kind: 'raw', text: `${JSON.stringify(valid).slice(0, -1)},` },
      contentType: 'application/json',
      expect: 'reject',
    },
  ];
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
  return cases;
}

/** Near-JSON that lenient parsers (JSON5, YAML, eval) take: not JSON, so not a NewCategory. */
function nearJsonCases(base: (label: string) => Record<string, unknown>): BodyCase[] {
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
  return relaxed.map(([label, raw]) => ({
    label: `body: near-JSON, ${label}`,
    family: 'body-shape',
    body: { kind: 'raw', text: raw },
    contentType: 'application/json',
    expect: 'reject',
  }));
}

/**
 * The media types a JSON body is sent with, in the order sent: names are case-insensitive (RFC 9110
 * section 8.3.1) and parameters may be spelled several ways. Each valid body carries its own name
 * (`base`); what is not refused must echo it.
 */
const mediaTypes: { base: string; label: string; contentType: string | undefined; expect: BodyCase['expect'] }[] = [
  {
    base: 'charset',
    label: 'application/json; charset=utf-8',
    contentType: 'application/json; charset=utf-8',
    expect: 'accept',
  },
  { base: 'media-case', label: 'Application/JSON (letter case)', contentType: 'Application/JSON', expect: 'accept' },
  {
    base: 'charset-tight',
    label: 'application/json;charset=UTF-8 (no space, upper case)',
    contentType: 'application/json;charset=UTF-8',
    expect: 'accept',
  },
  {
    base: 'charset-spaced',
    label: 'application/json ; charset=utf-8 (whitespace before the parameter)',
    contentType: 'application/json ; charset=utf-8',
    expect: 'accept',
  },
  {
    base: 'charset-quoted',
    label: 'application/json; charset="utf-8" (quoted)',
    contentType: 'application/json; charset="utf-8"',
    expect: 'accept',
  },
  {
    base: 'text-plain',
    label: 'text/plain (a JSON text, but not declared as JSON)',
    contentType: 'text/plain',
    expect: 'reject',
  },
  {
    base: 'form',
    label: 'application/x-www-form-urlencoded (the fields as a form)',
    contentType: 'application/x-www-form-urlencoded',
    expect: 'reject',
  },
  {
    base: 'media-vendor',
    label: 'application/vnd.api+json (a JSON-based type, not application/json)',
    contentType: 'application/vnd.api+json',
    expect: 'open',
  },
  { base: 'media-none', label: 'none (a JSON body without Content-Type)', contentType: undefined, expect: 'open' },
];

function mediaTypeCases(base: (label: string) => Record<string, unknown>): BodyCase[] {
  return mediaTypes.map(({ base: label, contentType, expect, ...entry }) => {
    const valid = base(label);
    // The form sends the same fields as application/x-www-form-urlencoded text.
    const body: BodyCase['body'] =
      contentType === 'application/x-www-form-urlencoded'
        ? {
            kind: 'raw',
            text: new URLSearchParams(Object.entries(valid).map(([name, value]) => [name, String(value)])).toString(),
          }
        : json(valid);
    return {
      label: `media type: ${entry.label}`,
      family: 'media-types',
      body,
      contentType,
      expect,
      ...(expect === 'reject' ? {} : { echo: valid }),
    };
  });
}
