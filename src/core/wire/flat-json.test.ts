import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactObjectNames, parseCompactStringObject } from './flat-json.js';

const names = ['name', 'description', 'nam', 'tag'];
/** Names JSON writes as they are but a scan might trip on: structure characters, a space, a name before one it starts. */
const oddNames = ['nam', 'name', 'a b', 'x:y', 'p,q', '{', '}', ''];

/** The answer must be JSON.parse's, keys in the same order, and JSON.stringify must give the text back. */
function assertSameAsJsonParse(text: string, answer: Record<string, string> | undefined) {
  if (answer === undefined) return;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  expect(answer).toEqual(parsed);
  expect(Object.keys(answer)).toEqual(Object.keys(parsed));
  expect(Object.getPrototypeOf(answer)).toBe(Object.prototype);
  expect(JSON.stringify(answer)).toBe(text);
}

describe('parseCompactStringObject', () => {
  it.each([
    ['the names of a category', names],
    ['odd names', compactObjectNames(oddNames)],
  ])("answers JSON.parse's value for the compact JSON of any object of strings over %s, in their order", (_, names) => {
    const value = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'dog', '"', '\\', '\u007f', '\u00e9', '\ud83d\udc15', 'tab\there'));
    let answered = 0;
    fc.assert(
      fc.property(fc.subarray([...names], { minLength: 1 }), fc.array(value, { minLength: names.length, maxLength: names.length }), (keys, values) => {
        const object = Object.fromEntries(keys.map((key, index) => [key, values[index]!]));
        const text = JSON.stringify(object);
        const answer = parseCompactStringObject(text, names);
        assertSameAsJsonParse(text, answer);
        // Printable ASCII that needs no escape is always read: the scan is not a mostly-refusing one.
        const plain = Object.values(object).every((field) => /^[\x20-\x7e]*$/.test(field) && !/["\\]/.test(field));
        expect(answer !== undefined).toBe(plain);
        if (answer !== undefined) answered += 1;
      }),
      { numRuns: 1_000 },
    );
    expect(answered).toBeGreaterThan(0);
    // A thousand objects: about two seconds, more on a busy machine.
  }, 30_000);

  it("never answers other than JSON.parse, for any text, valid JSON or not", () => {
    // Texts near the accepted shape: JSON of any value, its pieces cut and joined, and the accepted shape with one character changed.
    const piece = fc.oneof(fc.string({ maxLength: 2, unit: 'binary' }), fc.constantFrom('', ' ', '"', ',', ':', '{', '}', '\\', '""', '",', '"}', '\t'));
    const near = fc.tuple(fc.constantFrom('{"name":"dog","description":"x"}', '{"tag":"a"}', '{"nam":"b","tag":"c"}'), fc.nat(), piece).map(([text, at, inserted]) => {
      const index = at % (text.length + 1);
      return text.slice(0, index) + inserted + text.slice(index + 1);
    });
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string(), near), (text) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          expect(parseCompactStringObject(text, names)).toBeUndefined();
          return;
        }
        const answer = parseCompactStringObject(text, names);
        if (answer !== undefined) expect(parsed).toBeTypeOf('object');
        assertSameAsJsonParse(text, answer);
      }),
      { numRuns: 5_000 },
    );
  });

  it('leaves to JSON.parse what is not compact, not in order, repeated, escaped, unknown or empty', () => {
    const refused = [
      '{ "name":"dog"}',
      '{"name": "dog"}',
      '{"name":"dog"} ',
      '{"name":"dog",}',
      '{"description":"x","name":"dog"}',
      '{"name":"a","name":"b"}',
      '{"name":"d\\u006fg"}',
      '{"name":"\u00e9"}',
      '{"name":"tab\there"}',
      '{"id":"1","name":"dog"}',
      '{"__proto__":"x"}',
      '{"name":1}',
      '{"name":null}',
      '{}',
      '{"name":"dog"',
      '{"name":"dog"}}',
      '{"name":"dog"}{"tag":"x"}',
      '{"name":"dog" "tag":"x"}',
      '["name"]',
      '',
    ];
    for (const text of refused) expect(parseCompactStringObject(text, names), text).toBeUndefined();
  });

  it('leaves a text over 1,024 characters to JSON.parse, which reads it faster', () => {
    const at = (length: number) => JSON.stringify({ name: 'dog', description: 'x'.repeat(length - '{"name":"dog","description":""}'.length) });
    expect(parseCompactStringObject(at(1_024), names)).toEqual(JSON.parse(at(1_024)));
    expect(parseCompactStringObject(at(1_025), names)).toBeUndefined();
  });

  it('reads a key that another name starts with, and an empty string', () => {
    expect(parseCompactStringObject('{"nam":"","tag":"t"}', names)).toEqual({ nam: '', tag: 't' });
    expect(parseCompactStringObject('{"name":"dog","nam":"x"}', names)).toEqual({ name: 'dog', nam: 'x' });
  });
});

describe('compactObjectNames', () => {
  it("keeps printable names that JSON writes as they are, in order, and drops Object.prototype's and integer-like names", () => {
    expect(compactObjectNames(['name', '__proto__', 'constructor', 'toString', '10', '01', 'a b', 'quo"te', 'back\\slash', 'new\nline', '\u00e9', '', 'description'])).toEqual(['name', 'a b', 'description']);
  });

  it('makes every name of a text the scan reads a key JSON.parse makes', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 4 }), fc.string(), (candidates, value) => {
        const kept = compactObjectNames(candidates);
        for (const name of kept) {
          const text = JSON.stringify({ [name]: value });
          assertSameAsJsonParse(text, parseCompactStringObject(text, kept));
        }
      }),
      { numRuns: 500 },
    );
  });
});
