import { describe, expect, it } from 'vitest';
import { hasNoContentByDefinition, isJsonMediaType } from './media-types.js';

describe('isJsonMediaType', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    ' application/json ;charset="UTF-8"',
    'application/problem+json',
    'application/vnd.api+json',
    'application/merge-patch+json; charset=utf-8',
  ])('%s is JSON', (value) => expect(isJsonMediaType(value)).toBe(true));

  it.each([
    undefined,
    '',
    'text/plain',
    'text/html; charset=utf-8',
    'application/json-seq',
    'application/x-ndjson',
    'application/jsonp',
    'application/xml',
    'json',
    'application/',
    '/json',
    'application/json, text/plain',
  ])('%s is not', (value) => expect(isJsonMediaType(value)).toBe(false));
});

describe('hasNoContentByDefinition', () => {
  it.each([
    ['HEAD', 200],
    ['head', 404],
    ['GET', 204],
    ['POST', 205],
    ['GET', 304],
    ['GET', 103],
  ])('%s answered %i has no content', (method, status) => expect(hasNoContentByDefinition(method, status)).toBe(true));

  it.each([
    ['GET', 200],
    ['POST', 201],
    ['GET', 206],
    ['GET', 301],
    ['GET', 404],
    ['DELETE', 429],
    ['GET', 500],
  ])('%s answered %i may have', (method, status) => expect(hasNoContentByDefinition(method, status)).toBe(false));
});
