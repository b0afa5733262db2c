import type { DataGenerator } from '../../spec/data-generator.js';
import type { CompiledOperation } from '../../src/core/spec/compiled-spec.js';
import type { MockRequest } from '../../src/core/types.js';

/** A key every corpus test sends where a scheme asks for one (a demo key of the mock). */
const corpusKey = 'demo-enterprise';

/**
 * A request an operation should accept: path, query and header parameters made from their
 * schemas, a body of its first declared media type, and credentials for its first security
 * alternative (`withCredentials: false` leaves them out).
 *
 * @example await app.handle(await validRequest(operation, '/v1', data))
 */
export async function validRequest(
  operation: CompiledOperation,
  basePath: string,
  data: DataGenerator,
  options: { withCredentials?: boolean; accept?: string } = {},
): Promise<MockRequest> {
  const headers: Record<string, string> = {};
  const query = new URLSearchParams();
  const definition = operation as CompiledOperation & { parameters: CompiledOperation['parameters'] };
  let path = operation.pathTemplate;
  for (const name of operation.parameterNames) {
    const parameter = definition.parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    const value =
      parameter === undefined ? 'x' : textOf(sample(parameter.validator, data, schemaOfParameter(operation, name)));
    // An empty segment would route elsewhere: a path parameter always has a value.
    path = path.replace(`{${name}}`, encodeURIComponent(value === '' ? '1' : value));
  }
  for (const parameter of definition.parameters) {
    if (parameter.in === 'query' && parameter.required)
      query.set(
        parameter.name,
        textOf(sample(parameter.validator, data, schemaOfParameter(operation, parameter.name))),
      );
  }
  if (options.withCredentials !== false) addCredentials(operation, headers, query);
  if (options.accept !== undefined) headers.accept = options.accept;
  const body = await bodyOf(operation, data, headers);
  const search = query.toString();
  return {
    method: operation.method,
    url: `${basePath}${path}${search === '' ? '' : `?${search}`}`,
    headers,
    body,
    clientAddress: '127.0.0.1',
  };
}

function schemaOfParameter(operation: CompiledOperation, name: string): unknown {
  return operation.parameters.find((candidate) => candidate.name === name)?.schema;
}

function sample(_validator: unknown, data: DataGenerator, schema: unknown): unknown {
  return schema === undefined ? 'x' : data.generate(schema as never);
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return 'x';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function addCredentials(operation: CompiledOperation, headers: Record<string, string>, query: URLSearchParams): void {
  const alternative = operation.security.alternatives[0];
  for (const check of alternative ?? []) {
    if (check.kind === 'bearer') headers.authorization = `Bearer ${corpusKey}`;
    else if (check.kind === 'basic') headers.authorization = `Basic ${btoa(`${corpusKey}:`)}`;
    else if (check.in === 'header') headers[check.parameter.toLowerCase()] = corpusKey;
    else if (check.in === 'query') query.set(check.parameter, corpusKey);
    else headers.cookie = `${check.parameter}=${corpusKey}`;
  }
}

async function bodyOf(
  operation: CompiledOperation,
  data: DataGenerator,
  headers: Record<string, string>,
): Promise<Uint8Array | null> {
  const media = operation.requestBody?.media[0];
  if (media === undefined) return null;
  const example = media.examples.values().next();
  const value = !example.done ? example.value : media.schema === undefined ? {} : data.generate(media.schema);
  if (media.kind === 'json') {
    headers['content-type'] = media.essence.includes('*') ? 'application/json' : media.type;
    return new TextEncoder().encode(JSON.stringify(value));
  }
  if (media.kind === 'form' || media.kind === 'multipart') {
    const form = new FormData();
    for (const [name, field] of Object.entries((value ?? {}) as Record<string, unknown>)) {
      for (const item of Array.isArray(field) ? field : [field])
        form.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
    const encoded =
      media.kind === 'form'
        ? new Response(new URLSearchParams([...form.entries()] as [string, string][]))
        : new Response(form);
    headers['content-type'] = encoded.headers.get('content-type')!;
    return new Uint8Array(await encoded.arrayBuffer());
  }
  headers['content-type'] = media.essence.includes('*') ? 'application/octet-stream' : media.type;
  return new TextEncoder().encode(typeof value === 'string' && value !== '' ? value : 'placeholder');
}
