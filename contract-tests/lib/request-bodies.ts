import { readSpecFile } from '../../spec/load-spec.js';
import { httpMethods, type JsonSchema } from '../../spec/openapi-types.js';
import { resolveRefs } from '../../spec/resolve-refs.js';

/** An operation that takes a JSON request body, as the coverage phase needs it. */
export interface BodyOperation {
  operationId: string;
  method: string;
  /** The path; only operations without path parameters are exercised. */
  path: string;
  required: boolean;
  /** The `application/json` schema, `$ref`s resolved. */
  schema: JsonSchema;
}

const cache = new Map<string, Promise<BodyOperation[]>>();

/**
 * Every operation of the spec that declares an `application/json` request body, with its
 * schema: the input of the deterministic coverage phase (`coverage-cases.ts`). Read from the same
 * spec file as the validators, through the shared `spec/` loader.
 *
 * @example (await bodyOperations('spec/petstore.openapi.yaml'))[0] // { operationId: 'createCategory', method: 'POST', path: '/categories', required: true, schema: {...} }
 */
export function bodyOperations(specPath: string): Promise<BodyOperation[]> {
  let found = cache.get(specPath);
  if (!found) {
    found = readSpecFile(specPath).then((raw) => {
      const document = resolveRefs(raw);
      const out: BodyOperation[] = [];
      for (const [path, item] of Object.entries(document.paths ?? {})) {
        if (path.includes('{')) continue;
        for (const method of httpMethods) {
          const operation = item[method];
          const schema = operation?.requestBody?.content?.['application/json']?.schema;
          if (!operation || schema === undefined) continue;
          out.push({
            operationId: operation.operationId ?? `${method.toUpperCase()} ${path}`,
            method: method.toUpperCase(),
            path,
            required: operation.requestBody?.required === true,
            schema,
          });
        }
      }
      return out;
    });
    cache.set(specPath, found);
  }
  return found;
}
