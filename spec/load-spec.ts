import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenApiDocument } from './openapi-types.js';

/** Path of the spec shipped with the kit. */
export const defaultSpecPath = fileURLToPath(new URL('./petstore.openapi.yaml', import.meta.url));

/**
 * Reads and parses an OpenAPI document (YAML or JSON) from disk. Node only; in a browser, pass the
 * parsed document instead.
 *
 * @example const doc = await readSpecFile('spec/petstore.openapi.yaml');
 */
export async function readSpecFile(path: string = defaultSpecPath): Promise<OpenApiDocument> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`Failed to load spec ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  return parseSpecText(text, path);
}

/** Parses spec text (YAML is a superset of JSON) and checks that it looks like OpenAPI 3.1. */
export function parseSpecText(text: string, source = 'spec'): OpenApiDocument {
  let document: unknown;
  try {
    // JSON is YAML too, but JSON.parse reads it many times faster (the built bins ship JSON).
    document = text.trimStart().startsWith('{') ? parseJsonOrUndefined(text) : undefined;
    document ??= parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new Error(`Failed to load spec ${source}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error(`Failed to load spec ${source}: the document is not an object`);
  }
  const openapi = (document as Record<string, unknown>).openapi;
  if (typeof openapi !== 'string' || !openapi.startsWith('3.1')) {
    throw new Error(`Failed to load spec ${source}: expected "openapi: 3.1.x", found ${JSON.stringify(openapi)}`);
  }
  if (typeof (document as Record<string, unknown>).paths !== 'object') {
    throw new Error(`Failed to load spec ${source}: it has no "paths"`);
  }
  return document as OpenApiDocument;
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A YAML flow mapping starts with "{" too: let the YAML parser have it.
    return undefined;
  }
}
