import { describe, expect, it } from 'vitest';
import { HttpError } from '../errors.js';
import { parsePrefer } from './prefer-header.js';

describe('parsePrefer', () => {
  it.each([
    [undefined, {}],
    ['', {}],
    ['code=429', { code: 429 }],
    ['code=400, example=missingName', { code: 400, example: 'missingName' }],
    ['example="empty"; dynamic=false', { example: 'empty', dynamic: false }],
    ['  CODE = 201 ', { code: 201 }],
    // Registered preferences that are not ours are ignored (RFC 7240 section 2), with their
    // parameters and whatever their values; ours next to them still count.
    ['return=minimal', {}],
    ['return=representation, code=201', { code: 201 }],
    ['respond-async, wait=10', {}],
    ['Respond-Async; foo=bar, code=429', { code: 429 }],
    ['handling=lenient, example=empty', { example: 'empty' }],
    ['handling=strict; code=500', {}],
    ['return = "minimal" ,dynamic=true', { dynamic: true }],
    ['safe, depth-noroot', {}],
  ])('reads %j', (header, expected) => {
    expect(parsePrefer(header)).toEqual(expected);
  });

  // Ours stay strict, including next to ignored ones, and so does anything unregistered (a typo).
  it.each([
    'code=4290',
    'code=',
    'code=099',
    'example=',
    'dynamic=yes',
    'garbage',
    'cod=429',
    'return=minimal, code=abc',
    'respond-async, examples=x',
    'returns=minimal',
    'x-wait=10',
  ])('refuses %j with invalid_prefer', (header) => {
    expect(() => parsePrefer(header)).toThrow(HttpError);
    try {
      parsePrefer(header);
    } catch (error) {
      expect((error as HttpError).code).toBe('invalid_prefer');
    }
  });
});
