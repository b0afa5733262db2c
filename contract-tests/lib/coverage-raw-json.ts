import type { JsonSchema } from '../../spec/openapi-types.js';
import { allowedTypes, type BodyCase, boundaryValues } from './coverage-values.js';

/** What the raw-JSON cases are built from: the schema's properties, its required list, and the valid base body. */
export interface RawJsonContext {
  properties: Record<string, JsonSchema>;
  required: Set<string>;
  /** The valid body named `label`: every required and every string property, carrying the run's prefix. */
  base: (label: string) => Record<string, unknown>;
}

/** The property the raw bodies are written around, and how to write a body with its value as raw JSON text. */
interface RawBody {
  key: string;
  base: (label: string) => Record<string, unknown>;
  /** The body `base(label)` as JSON text, with the key's value written as `valueText` (raw JSON). */
  withValue: (label: string, valueText: string, keyText?: string) => string;
}

const family = 'raw-json' as const;
const contentType = 'application/json';

/**
 * Bodies no JSON writer produces but a client can send (what JSON.stringify cannot write): a
 * property name spelled with escapes or in another letter case, a property twice, a byte order
 * mark, bytes that are not UTF-8, a lone surrogate, a NUL, whitespace everywhere, deep nesting,
 * an unknown property. Built around the first required string property.
 */
export function rawJsonCases({ properties, required, base }: RawJsonContext): BodyCase[] {
  const key = Object.keys(properties).find(
    (name) =>
      required.has(name) &&
      allowedTypes(properties[name]!)?.has('string') &&
      boundaryValues(properties[name]!, '').length > 0,
  );
  if (key === undefined) return [];
  const withValue = (label: string, valueText: string, keyText = JSON.stringify(key)) => {
    const rest = base(label);
    delete rest[key];
    const others = Object.entries(rest).map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
    return `{${[`${keyText}:${valueText}`, ...others].join(',')}}`;
  };
  const raw: RawBody = { key, base, withValue };
  return [...spellingCases(raw), ...textCases(raw), ...valueCases(raw)];
}

function escapeAll(text: string): string {
  return [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

/** The key's name and value spelled as no writer spells them: escaped, in another letter case, twice. */
function spellingCases({ key, base, withValue }: RawBody): BodyCase[] {
  const cases: BodyCase[] = [];
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
  return cases;
}

/** The text around the JSON: a byte order mark before it, whitespace around and between every token. */
function textCases({ base }: RawBody): BodyCase[] {
  const bom = base('bom');
  const spaced = base('whitespace');
  return [
    {
      label: 'body: a byte order mark before the JSON',
      family,
      body: { kind: 'raw', text: `\uFEFF${JSON.stringify(bom)}` },
      contentType,
      expect: 'open',
      echo: bom,
    },
    {
      label: 'body: whitespace around and between every token',
      family,
      body: {
        kind: 'raw',
        text: ` \r\n\t${JSON.stringify(spaced, null, '\t').replace(/:/g, ' \t: ').replace(/,/g, ' ,\r\n')}\n `,
      },
      contentType,
      expect: 'accept',
      echo: spaced,
    },
  ];
}

/** Values no writer sends: bytes that are not UTF-8, a lone surrogate, a NUL, deep nesting; and an unknown property. */
function valueCases({ key, base, withValue }: RawBody): BodyCase[] {
  const cases: BodyCase[] = [];
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
