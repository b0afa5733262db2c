import { subschemaKeywords } from './schema-walk.js';

/**
 * Where a node of an OpenAPI document stands, read from OpenAPI's structure (2.0, 3.0 and 3.1 alike),
 * not guessed from key names: what each key of a kind of node holds. The bundler of multi-file
 * documents (bundle-refs.ts) reads it to know where a schema from another file is and where a
 * `$ref` is data.
 */
export type Kind =
  | 'document'
  | 'pathItem'
  | 'operation'
  | 'parameter'
  | 'header'
  | 'requestBody'
  | 'response'
  | 'mediaType'
  | 'encoding'
  | 'callback'
  | 'components'
  | 'schema'
  | 'other';

/** Per kind: what each key holds, as [kind, shape]: one value, a map of names, or a list. */
export type Shape = 'one' | 'map' | 'list';
export const structure: Partial<Record<Kind, Record<string, [Kind, Shape]>>> = {
  document: {
    paths: ['pathItem', 'map'],
    webhooks: ['pathItem', 'map'],
    components: ['components', 'one'],
    definitions: ['schema', 'map'],
    parameters: ['parameter', 'map'],
    responses: ['response', 'map'],
  },
  components: {
    schemas: ['schema', 'map'],
    responses: ['response', 'map'],
    parameters: ['parameter', 'map'],
    requestBodies: ['requestBody', 'map'],
    headers: ['header', 'map'],
    pathItems: ['pathItem', 'map'],
    callbacks: ['callback', 'map'],
    securitySchemes: ['other', 'map'],
    examples: ['other', 'map'],
    links: ['other', 'map'],
  },
  pathItem: {
    get: ['operation', 'one'],
    put: ['operation', 'one'],
    post: ['operation', 'one'],
    delete: ['operation', 'one'],
    options: ['operation', 'one'],
    head: ['operation', 'one'],
    patch: ['operation', 'one'],
    trace: ['operation', 'one'],
    parameters: ['parameter', 'list'],
  },
  operation: {
    parameters: ['parameter', 'list'],
    requestBody: ['requestBody', 'one'],
    responses: ['response', 'map'],
    callbacks: ['callback', 'map'],
  },
  callback: {},
  parameter: { schema: ['schema', 'one'], content: ['mediaType', 'map'], examples: ['other', 'map'] },
  header: { schema: ['schema', 'one'], content: ['mediaType', 'map'], examples: ['other', 'map'] },
  requestBody: { content: ['mediaType', 'map'] },
  response: {
    headers: ['header', 'map'],
    content: ['mediaType', 'map'],
    links: ['other', 'map'],
    schema: ['schema', 'one'],
  },
  mediaType: { schema: ['schema', 'one'], examples: ['other', 'map'], encoding: ['encoding', 'map'] },
  encoding: { headers: ['header', 'map'] },
};
/** What a key of a node of `kind` holds; undefined for data and for what the kit does not read. */
export function childOf(kind: Kind, key: string, value: unknown): [Kind, Shape] | undefined {
  if (
    key.startsWith('x-') ||
    key === 'example' ||
    key === 'enum' ||
    key === 'const' ||
    key === 'default' ||
    key === 'value'
  )
    return undefined;
  if (kind === 'callback') return ['pathItem', 'one'];
  if (kind === 'schema') {
    const shape = subschemaKeywords.get(key);
    if (shape === undefined) return undefined;
    // A list where one schema belongs (draft 4's `items: [...]`) is read as a list.
    return ['schema', shape === 'one' && Array.isArray(value) ? 'list' : shape];
  }
  if (kind === 'other') return key === 'examples' ? undefined : ['other', 'one'];
  return structure[kind]?.[key] ?? ['other', 'one'];
}
