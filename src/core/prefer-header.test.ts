import { describe, expect, it } from 'vitest';
import { HttpError } from './errors.js';
import { parsePrefer } from './prefer-header.js';

describe('parsePrefer', () => {
  it.each([
    [undefined, {}],
    ['', {}],
    ['code=429', { code: 429 }],
    ['code=400, example=missingName', { code: 400, example: 'missingName' }],
    ['example="empty"; dynamic=false', { example: 'empty', dynamic: false }],
    ['  CODE = 201 ', { code: 201 }],
  ])('reads %j', (header, expected) => {
    expect(parsePrefer(header)).toEqual(expected);
  });

  it.each(['code=4290', 'code=', 'code=099', 'example=', 'dynamic=yes', 'wait=10', 'handling=lenient', 'garbage'])('refuses %j with invalid_prefer', (header) => {
    expect(() => parsePrefer(header)).toThrow(HttpError);
    try {
      parsePrefer(header);
    } catch (error) {
      expect((error as HttpError).code).toBe('invalid_prefer');
    }
  });
});
