import { describe, expect, it } from 'vitest';
import { exactMember, idOf, parseJson, stringifyJson } from './exact-ids.js';

describe('ids told apart exactly beyond 2^53 (interface section 2: id is int64)', () => {
  it('reads two int64 ids that JSON.parse makes equal as two different ids', () => {
    const items = parseJson('[{"id":1152921504606846001},{"id":1152921504606846002}]') as object[];
    expect(JSON.parse('[{"id":1152921504606846001},{"id":1152921504606846002}]')).toEqual(items);
    expect(idOf(items[0]!)).toBe(1152921504606846001n);
    expect(idOf(items[1]!)).toBe(1152921504606846002n);
    expect(idOf(items[0]!)).not.toBe(idOf(items[1]!));
  });

  it('keeps every value as JSON.parse gives it (validators and reports see the same numbers)', () => {
    const text = '{"id":-9223372036854775808,"n":12345678901234567.5,"e":1e300,"s":"1152921504606846001","ok":42}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
    expect(exactMember(parseJson(text) as object, 'id')).toBe(-9223372036854775808n);
  });

  it('leaves safe integers, digits inside strings and other members alone', () => {
    const value = parseJson('{"id":9007199254740991,"name":"\\"1152921504606846001\\"","n":[1152921504606846001]}');
    expect(idOf(value as object)).toBe(9007199254740991);
    expect(exactMember(value as object, 'name')).toBe('"1152921504606846001"');
    expect(exactMember((value as { n: object }).n, '0')).toBe(1152921504606846001n);
    expect(idOf({ id: 'a-string-id' })).toBe('a-string-id');
  });

  it('refuses what JSON.parse refuses, with its own message', () => {
    for (const text of ['{"id":01152921504606846001}', '{"id":1152921504606846001', '[1152921504606846001,]'])
      expect(() => parseJson(text)).toThrow(
        (() => {
          try {
            JSON.parse(text);
          } catch (error) {
            return (error as Error).message;
          }
          return 'parsed';
        })(),
      );
  });

  it('writes a bigint as its exact digits, so a request can send back an id it was given', () => {
    expect(stringifyJson({ name: 'x', id: 1152921504606846001n })).toBe('{"name":"x","id":1152921504606846001}');
    expect(stringifyJson({ id: 7, name: '\u0000text' })).toBe(JSON.stringify({ id: 7, name: '\u0000text' }));
  });
});
