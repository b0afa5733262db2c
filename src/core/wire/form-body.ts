import { HttpError } from '../errors.js';
import { decodeUtf8 } from './request-body.js';

/** Turns the text values a form sent under one name into what the field's schema asks for. */
type FieldDecoder = (values: readonly string[]) => unknown;

/** The fields of a form body by name, each turned into its schema's type (text by default). */
export type FieldDecoders = ReadonlyMap<string, FieldDecoder>;

/**
 * An `application/x-www-form-urlencoded` body as an object: each field decoded as its schema says
 * (numbers, booleans, arrays of repeated fields), anything undeclared kept as text.
 *
 * @example decodeFormBody(bytes('name=Rex&age=3'), fields) // { name: 'Rex', age: 3 }
 */
export function decodeFormBody(body: Uint8Array, fields: FieldDecoders): Record<string, unknown> {
  let text: string;
  try {
    text = decodeUtf8(body);
  } catch {
    throw new HttpError('validation_failed', 'Invalid request body: it is not valid UTF-8');
  }
  const values = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(text)) {
    const list = values.get(name);
    if (list === undefined) values.set(name, [value]);
    else list.push(value);
  }
  return fieldsObject(values, fields);
}

/**
 * A `multipart/form-data` body as an object, read by the platform's own parser (`Response.formData`,
 * in browsers and in Node through undici): text parts decoded as their schema says, file parts as
 * their text. A body the parser cannot read is a 400.
 *
 * @example await decodeMultipartBody(bytes, 'multipart/form-data; boundary=x', fields) // { name: 'Rex', photo: '...' }
 */
export async function decodeMultipartBody(
  body: Uint8Array,
  contentType: string,
  fields: FieldDecoders,
): Promise<Record<string, unknown>> {
  let form: FormData;
  try {
    form = await new Response(body as BodyInit, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw new HttpError(
      'validation_failed',
      `Invalid request body: not a multipart/form-data body (${(error as Error).message.slice(0, 120)})`,
    );
  }
  const values = new Map<string, string[]>();
  for (const [name, value] of form.entries()) {
    const text = typeof value === 'string' ? value : await value.text();
    const list = values.get(name);
    if (list === undefined) values.set(name, [text]);
    else list.push(text);
  }
  return fieldsObject(values, fields);
}

function fieldsObject(values: ReadonlyMap<string, string[]>, fields: FieldDecoders): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, list] of values) {
    const decode = fields.get(name);
    const value = decode === undefined ? (list.length === 1 ? list[0] : list) : decode(list);
    // defineProperty keeps a field named "__proto__" a plain field.
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
