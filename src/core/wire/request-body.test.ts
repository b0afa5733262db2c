import { describe, expect, it } from 'vitest';
import type { HttpError } from '../errors.js';
import { decodeJsonBody, decodeUtf8, isJsonContentType } from './request-body.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as HttpError).code;
  }
  return 'no error';
};

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/problem+json', true],
    ['application/json; charset="UTF-8"', true],
    ['application/json; charset=latin1', false],
    ['text/json', false],
    ['application/jsonx', false],
    ['multipart/form-data', false],
  ])('%s -> %s', (type, expected) => {
    expect(isJsonContentType(type)).toBe(expected);
  });
});

describe('decodeJsonBody', () => {
  it('decodes JSON, keeping __proto__ as a plain key', () => {
    const decoded = decodeJsonBody(bytes('{"__proto__":{"x":1},"a":1}'), 'application/json', true);
    expect(decoded).toEqual({
      present: true,
      value: expect.objectContaining({ a: 1 }),
      text: '{"__proto__":{"x":1},"a":1}',
    });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("is JSON.parse's value of the text, a leading BOM dropped from the text", () => {
    expect(
      decodeJsonBody(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"name":"dog"}')]), 'application/json', true),
    ).toStrictEqual({ present: true, value: { name: 'dog' }, text: '{"name":"dog"}' });
    for (const other of [
      '{"name":"dog","description":"x"}',
      '{ "name": "dog" }',
      '{"description":"x","name":"dog"}',
      '{"name":"d\\u00e9"}',
      '{"name":"dog","extra":1}',
      '{"name":"é"}',
    ]) {
      expect(decodeJsonBody(bytes(other), 'application/json', true)).toStrictEqual({
        present: true,
        value: JSON.parse(other),
        text: other,
      });
    }
  });

  it('lets an optional body be absent', () => {
    expect(decodeJsonBody(null, undefined, false)).toEqual({ present: false });
  });

  it.each([
    ['no body', null, 'application/json', 'body_required'],
    ['a missing content type', bytes('{}'), undefined, 'unsupported_media_type'],
    ['XML', bytes('<a/>'), 'application/xml', 'unsupported_media_type'],
    ['a BOM-less invalid byte', new Uint8Array([0x22, 0xc3, 0x28, 0x22]), 'application/json', 'malformed_json'],
    ['truncated JSON', bytes('{"a":'), 'application/json', 'malformed_json'],
    ['a huge nesting', bytes('['.repeat(1_000_000)), 'application/json', 'malformed_json'],
  ])('refuses %s', (_, body, type, code) => {
    expect(codeOf(() => decodeJsonBody(body, type, true))).toBe(code);
  });
});

describe('decodeUtf8', () => {
  it.each([
    ['ASCII', '{"name":"dog"}'],
    ['accents and emoji', '{"name":"chien \u00e9t\u00e9 \ud83d\udc15"}'],
    ['long ASCII (600 bytes)', `{"name":"${'a'.repeat(600)}"}`],
    ['long non-ASCII (600 characters)', `{"name":"${'\u00e9'.repeat(600)}"}`],
    ['an empty body', ''],
  ])('reads %s as the strict decoder does', (_, text) => {
    expect(decodeUtf8(bytes(text))).toBe(text);
  });

  it('drops a leading BOM and refuses invalid bytes, short or long', () => {
    expect(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('{}');
    expect(() => decodeUtf8(new Uint8Array([0x22, 0xff, 0x22]))).toThrow(TypeError);
    expect(() => decodeUtf8(new Uint8Array([...bytes('a'.repeat(600)), 0xc3]))).toThrow(TypeError);
  });
});
