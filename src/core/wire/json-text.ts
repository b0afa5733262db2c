import { integerText } from './number-text.js';
import { utf8Length } from './utf8.js';

/** JSON text and its UTF-8 byte count. */
export interface JsonText {
  json: string;
  bytes: number;
}

/**
 * `JSON.stringify({ id, ...fields })` and its UTF-8 byte count, for a record of primitive values (a
 * category: the spec's fields of a created one are strings). Every POST makes one, and on Node 20
 * JSON.stringify of a three-field category costs about 4,700 instructions (a toJSON lookup, then a
 * handle for every key and value); concatenation costs about a third of that (decision 015). A
 * record this does not cover (a value that is an object, an array, undefined; an `id` or an
 * integer-like key among the fields) goes to JSON.stringify whole, so the text is always
 * JSON.stringify's.
 *
 * With `fieldsJson` (a body read as it came, flat-json.ts), the id goes in front of that text and
 * `fields` is not read: the caller vouches that the text is `JSON.stringify(fields)`, with its UTF-8
 * bytes, and that `fields` has no `id` or integer-like key.
 *
 * @example recordWithIdJson(4, { name: 'bench', description: 'x' }) // { json: '{"id":4,"name":"bench","description":"x"}', bytes: 41 }
 */
export function recordWithIdJson(id: number, fields: Readonly<Record<string, unknown>>, fieldsJson?: JsonText): JsonText {
  if (fieldsJson !== undefined) return withIdInFront(integerText(id), fieldsJson);
  let json = `{"id":${integerText(id)}`;
  let bytes = json.length;
  // Own enumerable keys in JSON.stringify's order, as the spread copies them (a for-in would also walk
  // inherited ones, of a polluted Object.prototype).
  const names = Object.keys(fields);
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index]!;
    // An "id" field takes the id's value; a key that may be an integer comes before "id" in
    // JSON.stringify's order (integer keys first). Both are rare: JSON.stringify does them.
    const first = name.charCodeAt(0);
    if (name === 'id' || (first >= 0x30 && first <= 0x39)) return stringified(id, fields);
    const value = fields[name];
    const member = memberPrefixOf(name);
    if (typeof value === 'string' && isPlainAscii(value)) {
      // The common case in three concatenations: the prefix carries the opening quote.
      json = json + member.quoted + value + '"';
      bytes += member.bytes + value.length + 2;
      continue;
    }
    let valueJson: string;
    let valueBytes: number;
    if (typeof value === 'string') {
      valueJson = JSON.stringify(value);
      valueBytes = utf8Length(valueJson);
    } else if (typeof value === 'number') {
      valueJson = numberJson(value);
      valueBytes = valueJson.length;
    } else if (typeof value === 'boolean' || value === null) {
      valueJson = String(value);
      valueBytes = valueJson.length;
    } else {
      return stringified(id, fields);
    }
    json += member.json + valueJson;
    bytes += member.bytes + valueBytes;
  }
  return { json: flattened(json + '}'), bytes: bytes + 1 };
}

function withIdInFront(idText: string, fieldsJson: JsonText): JsonText {
  const fields = fieldsJson.json;
  const empty = fields === '{}';
  // '{"id":' and the id, then a comma and the fields' text after its brace, or just the brace.
  const json = empty ? `{"id":${idText}}` : `{"id":${idText},${fields.slice(1)}`;
  // Flattened too: one string kept, not a concatenation holding a slice of the body's text.
  return { json: flattened(json), bytes: 6 + idText.length + (empty ? 1 : fieldsJson.bytes) };
}

/**
 * The record's JSON as one flat string. Reading a character makes V8 copy the concatenated pieces
 * into one flat string in place. The store keeps this text as long as the category lives, and a
 * tree of pieces is about eight objects for the garbage collector to carry instead of one:
 * measured, the read costs ~350 instructions a POST and saves ~1,100 on the collector's threads
 * (decision 015). The comparison keeps the read from being optimized away; it holds for every text
 * made here.
 */
function flattened(json: string): string {
  if (json.charCodeAt(0) !== 0x7b) throw new Error(`Failed to write a record's JSON: ${json.slice(0, 20)}`);
  return json;
}

function stringified(id: number, fields: Readonly<Record<string, unknown>>): JsonText {
  const json = JSON.stringify({ id, ...fields });
  return { json, bytes: utf8Length(json) };
}

/** A number as JSON.stringify writes it (not finite: null). A template, not String(): no constructor call. */
function numberJson(value: number): string {
  return Number.isFinite(value) ? `${value}` : 'null';
}

/**
 * Printable ASCII without `"` or `\`: JSON.stringify writes such a string between quotes as it is,
 * and its UTF-8 bytes are its length. A loop, not a regular expression: field values are short,
 * and for them the call into the regular expression engine costs more than the scan.
 */
function isPlainAscii(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** `,"name":` (and with the opening quote of a string value) and its UTF-8 bytes. */
interface MemberPrefix extends JsonText {
  quoted: string;
}

/** The prefix of each field name met (names come from the spec: a few, so the cache stays small; bounded anyway). */
const memberPrefixes = new Map<string, MemberPrefix>();

function memberPrefixOf(name: string): MemberPrefix {
  let prefix = memberPrefixes.get(name);
  if (prefix === undefined) {
    const json = `,${JSON.stringify(name)}:`;
    prefix = { json, quoted: `${json}"`, bytes: utf8Length(json) };
    if (memberPrefixes.size >= 256) memberPrefixes.clear();
    memberPrefixes.set(name, prefix);
  }
  return prefix;
}
