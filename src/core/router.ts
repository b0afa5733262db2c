import type { CompiledOperation } from './compiled-spec.js';

export type RouteMatch =
  | { kind: 'operation'; operation: CompiledOperation; pathParams: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/**
 * Finds the operation for a method and a path relative to the base path. Literal paths win over
 * templated ones (`/pets/mine` before `/pets/{petId}`), as OpenAPI asks.
 */
export function createRouter(operations: CompiledOperation[]): (method: string, path: string) => RouteMatch {
  const templated = (template: string) => (template.includes('{') ? 1 : 0);
  const ordered = [...operations].sort((a, b) => templated(a.pathTemplate) - templated(b.pathTemplate));
  const literal = new Map<string, CompiledOperation>();
  for (const operation of ordered) if (!operation.pathTemplate.includes('{')) literal.set(`${operation.method} ${operation.pathTemplate}`, operation);

  return (method, path) => {
    const exact = literal.get(`${method} ${path}`);
    if (exact) return { kind: 'operation', operation: exact, pathParams: {} };
    const allow = new Set<string>();
    let matchedTemplate: string | undefined;
    for (const operation of ordered) {
      if (matchedTemplate !== undefined && operation.pathTemplate !== matchedTemplate) continue;
      const match = operation.pattern.exec(path);
      if (!match) continue;
      matchedTemplate = operation.pathTemplate;
      if (operation.method === method) {
        const pathParams: Record<string, string> = {};
        operation.parameterNames.forEach((name, index) => {
          pathParams[name] = safeDecode(match[index + 1]!);
        });
        return { kind: 'operation', operation, pathParams };
      }
      allow.add(operation.method);
    }
    return allow.size > 0 ? { kind: 'method-not-allowed', allow: [...allow].sort() } : { kind: 'not-found' };
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
