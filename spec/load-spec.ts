import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { upgradeFromTwoToThree } from '@scalar/openapi-upgrader/2.0-to-3.0';
import { readBoundedText } from './bounded-file.js';
import './linear-patterns.js';
import { type BundleOptions, bundleExternalRefs } from './bundle-refs.js';
import { readYamlDocumentText } from './document-yaml.js';
import { normaliseOpenApi } from './normalise-openapi.js';
import type { OpenApiDocument } from './openapi-types.js';
import { applyOwnProduces, ownProducesOf } from './swagger-produces.js';

/** Path of the spec shipped with the kit. */
export const defaultSpecPath = fileURLToPath(new URL('./petstore.openapi.yaml', import.meta.url));

export type LoadSpecOptions = BundleOptions;

/**
 * The largest document read: a document at the node bound (`defaultMaxSpecNodes`, 2,000,000) is about
 * 40 MiB of JSON. Counted while reading, so a link to a device or a growing file is refused, not read.
 */
export const maxSpecFileBytes = 64 * 1024 * 1024;

/**
 * Reads an OpenAPI document from disk as the kit serves it: YAML or JSON; OpenAPI 3.1, 3.0 or
 * Swagger 2.0, read as 3.1 (`normaliseOpenApi`); references to other files brought in
 * (`bundleExternalRefs`: relative files, URLs only with `allowRemoteRefs`). Node only; in a
 * browser, pass a parsed 3.1 document instead.
 *
 * @example const doc = await readSpecFile('spec/petstore.openapi.yaml');
 * @example const doc = await readSpecFile('api/openapi-3.0.yaml'); // doc.openapi === '3.1.1'
 */
export async function readSpecFile(
  path: string = defaultSpecPath,
  options: LoadSpecOptions = {},
): Promise<OpenApiDocument> {
  let text: string;
  try {
    text = await readBoundedText(path, { maxBytes: maxSpecFileBytes, expected: 'an OpenAPI document (YAML or JSON)' });
  } catch (error) {
    throw new Error(`Failed to load spec ${path}: ${(error as Error).message}`);
  }
  const parsed = parseDocument(text, path);
  return upgradeDocument(await bundleExternalRefs(parsed, pathToFileURL(resolve(path)), options), path);
}

/**
 * Parses spec text (YAML is a superset of JSON) and reads it as OpenAPI 3.1, as `readSpecFile`
 * does; references to other files are refused when the document is compiled (there is no file to
 * resolve them from).
 */
export function parseSpecText(text: string, source = 'spec'): OpenApiDocument {
  return upgradeDocument(parseDocument(text, source), source);
}

function parseDocument(text: string, source: string): Record<string, unknown> {
  let document: unknown;
  try {
    // JSON is YAML too, but JSON.parse reads it many times faster (the built bins ship JSON).
    document = text.trimStart().startsWith('{') ? parseJsonOrUndefined(text) : undefined;
    document ??= readYamlDocumentText(text);
  } catch (error) {
    throw new Error(`Failed to load spec ${source}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error(`Failed to load spec ${source}: the document is not an object`);
  }
  return document as Record<string, unknown>;
}

/**
 * A parsed document as OpenAPI 3.1: Swagger 2.0 converted to 3.0 (Scalar's upgrader), 3.0 read as
 * 3.1 (`normaliseOpenApi`). Anything else is refused naming what was found.
 *
 * @example upgradeDocument({ swagger: '2.0', info, paths }, 'api.yaml').openapi; // '3.1.1'
 */
function upgradeDocument(document: Record<string, unknown>, source = 'spec'): OpenApiDocument {
  let current = document;
  if (current.swagger !== undefined) {
    if (current.swagger !== '2.0')
      throw new Error(
        `Failed to load spec ${source}: expected "swagger: 2.0", found ${JSON.stringify(current.swagger)?.slice(0, 40)}`,
      );
    const ownProduces = ownProducesOf(current);
    current = upgradeFromTwoToThree(current as never) as unknown as Record<string, unknown>;
    applyOwnProduces(current, ownProduces);
  }
  const openapi = current.openapi;
  if (typeof openapi !== 'string' || !/^3\.[01]\.\d+/.test(openapi)) {
    throw new Error(
      `Failed to load spec ${source}: expected "openapi: 3.1.x" or "3.0.x" (or "swagger: 2.0"), found ${JSON.stringify(openapi)?.slice(0, 40)}`,
    );
  }
  return normaliseOpenApi(current as unknown as OpenApiDocument);
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A YAML flow mapping starts with "{" too: let the YAML parser have it.
    return undefined;
  }
}
