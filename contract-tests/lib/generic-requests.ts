import type {
  MediaDefinition,
  OperationDefinition,
  ParameterDefinition,
  SpecDefinition,
} from '../../spec/compile-spec.js';
import type { DataGenerator } from '../../spec/data-generator.js';
import type { JsonSchema } from '../../spec/openapi-types.js';
import { type CompiledSecurity, compileSecurity, type SchemeCheck } from '../../spec/security-schemes.js';
import { type BodyCase, deriveBodyCases } from './coverage-cases.js';
import {
  bodyOf,
  cookieText,
  exampleCandidates,
  isJsonMedia,
  ownedHeaders,
  textOf,
  wrongText,
} from './generic-request-parts.js';
import { parsedPath, pathSegment, RefusedRequest } from './resource-path.js';

export { isJsonMedia } from './generic-request-parts.js';

/**
 * The generic layer's reading of one operation: what it needs (credentials, parameters, a body)
 * and whether sending it could change data the kit did not create.
 */
export interface GenericOperation {
  definition: OperationDefinition;
  /** `operationId`, else `METHOD /path` (as the shared reading names it): the check ids carry it. */
  id: string;
  /** `METHOD /path`. */
  label: string;
  /** The effective security requirement: the operation's, else the document's (`spec/security-schemes.ts`). */
  security: CompiledSecurity;
  /** Some alternative needs credentials and none lets a request in without. */
  requiresCredentials: boolean;
  /**
   * PUT, PATCH, DELETE, and POST to a path with parameters (an action on an existing resource):
   * sent only to a resource the kit created in this run, or with --allow-destructive.
   */
  changesExisting: boolean;
  /** The request carries a body or is a POST: it could create data (counted in the run's bound). */
  mayCreate: boolean;
}

/** A request as the generic layer builds it, ready for `run.send`. */
export interface GenericRequest {
  /** Path relative to the base URL, parameters filled, with its query string. */
  path: string;
  headers: Record<string, string>;
  authorization?: string;
  rawBody?: string | Uint8Array;
  contentType?: string;
}

/** What a request should carry for credentials. */
export type CredentialMode = { kind: 'valid'; key: string } | { kind: 'wrong'; key: string } | { kind: 'none' };

/** One invalid request derived from the document, and why it is invalid. */
export interface InvalidCase {
  label: string;
  request: GenericRequest;
}

/** Longest generated parameter text the kit prefers: servers refuse long URLs (414, 431) before reading them. */
const maxParameterText = 64;

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * Every operation of a compiled document, as the generic layer checks it. Throws the shared
 * module's one-line error for a security scheme no client can satisfy (mutual TLS).
 *
 * @example genericOperations(compileSpecDefinition(doc)).map((operation) => operation.id) // ['listPets', 'POST /pets', ...]
 */
export function genericOperations(spec: SpecDefinition): GenericOperation[] {
  return spec.operations.map((definition) => {
    const security = compileSecurity(definition.security, spec.document, definition.operationId);
    // A key's own query (`/search?q={q}`) names query parameters, not path ones.
    const hasPathParameters = definition.pathTemplate.split(/[?#]/, 1)[0]!.includes('{');
    return {
      definition,
      id: definition.operationId,
      label: `${definition.method} ${definition.pathTemplate}`,
      security,
      requiresCredentials: security.alternatives.length > 0 && !security.anonymousAllowed,
      changesExisting: !safeMethods.has(definition.method) && (definition.method !== 'POST' || hasPathParameters),
      mayCreate: definition.method === 'POST' || definition.requestBody !== undefined,
    };
  });
}

/**
 * The credentials of the operation's first security alternative, filled with `key` (the
 * `--api-key`): bearer, OAuth2 and OpenID Connect as `Authorization: Bearer <key>`; HTTP basic
 * as `Basic base64(<key>)` when the key is `user:password`, else `base64(<key>:)`; an API key
 * under the header, query parameter or cookie name the scheme gives.
 *
 * @example credentialsOf([{ name: 'k', kind: 'apiKey', in: 'header', parameter: 'X-API-Key' }], 'demo-pro') // { headers: { 'x-api-key': 'demo-pro' }, query: [], cookies: [] }
 */
export function credentialsOf(
  alternative: readonly SchemeCheck[],
  key: string,
): { authorization?: string; headers: Record<string, string>; query: [string, string][]; cookies: string[] } {
  const out: { authorization?: string; headers: Record<string, string>; query: [string, string][]; cookies: string[] } =
    { headers: {}, query: [], cookies: [] };
  for (const check of alternative) {
    if (check.kind === 'bearer') out.authorization = `Bearer ${key}`;
    else if (check.kind === 'basic')
      out.authorization = `Basic ${Buffer.from(key.includes(':') ? key : `${key}:`, 'utf8').toString('base64')}`;
    else if (check.in === 'query') out.query.push([check.parameter, key]);
    else if (check.in === 'cookie') out.cookies.push(`${check.parameter}=${cookieText(key)}`);
    else if (check.parameter.toLowerCase() === 'authorization') out.authorization = key;
    else out.headers[check.parameter.toLowerCase()] = key;
  }
  return out;
}

/**
 * Builds requests for one operation: parameters from their examples or generated from their
 * schemas (the mock's own generator, seeded), the body from the first declared media type's
 * example or generated, credentials as `mode` says. `pathValues` fixes path parameters (a
 * resource the kit created).
 */
export class GenericRequestBuilder {
  readonly #operation: GenericOperation;
  readonly #data: DataGenerator;
  readonly #pathValues: Record<string, string>;
  #body: ReturnType<typeof bodyOf> | undefined;

  constructor(operation: GenericOperation, data: DataGenerator, pathValues: Record<string, string> = {}) {
    this.#operation = operation;
    this.#data = data;
    this.#pathValues = { ...pathValues };
  }

  /** The path values this builder used (given, or generated), to remember what a creation was made under. */
  pathValues(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const parameter of this.#parameters('path')) out[parameter.name] = this.#pathValue(parameter);
    return out;
  }

  /** A request the document says is valid (with `body`, the one `body()` made). */
  valid(mode: CredentialMode, body?: { rawBody?: string | Uint8Array; contentType?: string }): GenericRequest {
    return this.#build(mode, body === undefined ? {} : { body });
  }

  /** The same request with a body of the first declared media type (or none). */
  body(): { rawBody?: string | Uint8Array; contentType?: string; value?: unknown; media?: MediaDefinition } {
    // Made once per builder: generating a large schema's data costs more than sending it.
    this.#body ??= bodyOf(this.#operation.definition, this.#data);
    return this.#body;
  }

  /**
   * Invalid requests derived from the document, at most `limit`, taken in turn from each kind:
   * a required query or header parameter left out, a parameter of the wrong type, and the body
   * cases of the coverage phase (required property absent, a property of the wrong type, the body
   * malformed or of the wrong shape). Each JSON body is checked against the document's own schema
   * first: only what the document rejects is sent.
   */
  invalid(key: string, limit: number): InvalidCase[] {
    const valid = this.#build({ kind: 'valid', key }, {});
    const kinds: InvalidCase[][] = [this.#parameterCases(key), ...this.#bodyCases(valid)];
    const out: InvalidCase[] = [];
    for (let round = 0; out.length < limit && kinds.some((list) => list.length > round); round += 1) {
      for (const list of kinds) if (list[round] !== undefined && out.length < limit) out.push(list[round]!);
    }
    return out;
  }

  #parameters(location: ParameterDefinition['in']): ParameterDefinition[] {
    return this.#operation.definition.parameters.filter((parameter) => parameter.in === location);
  }

  #pathValue(parameter: ParameterDefinition): string {
    const given = this.#pathValues[parameter.name];
    if (given !== undefined) return given;
    const text = textOf(this.#sample(parameter));
    // An empty segment would route elsewhere: a path parameter always has a value.
    const value = text === '' ? '1' : text;
    this.#pathValues[parameter.name] = value;
    return value;
  }

  #sample(parameter: ParameterDefinition): unknown {
    const examples = exampleCandidates(parameter);
    for (const example of examples) if (parameter.validator.isValid(example)) return example;
    if (parameter.schema === undefined) return 'contract-test';
    // Generated text can be long (no maxLength): a few tries for one that fits a URL comfortably.
    let value = this.#data.generate(parameter.schema);
    for (let attempt = 0; attempt < 3 && textOf(value).length > maxParameterText; attempt += 1)
      value = this.#data.generate(parameter.schema);
    if (
      typeof value === 'string' &&
      value.length > maxParameterText &&
      parameter.validator.isValid(value.slice(0, maxParameterText))
    )
      value = value.slice(0, maxParameterText);
    return value;
  }

  #build(
    mode: CredentialMode,
    change: {
      omit?: ParameterDefinition;
      replace?: { parameter: ParameterDefinition; text: string };
      body?: { rawBody?: string | Uint8Array; contentType?: string } | null;
    },
  ): GenericRequest {
    const definition = this.#operation.definition;
    // Sent without its `#fragment`, a request is judged by an operation the server cannot tell it was meant for.
    if (definition.pathTemplate.includes('#'))
      throw new RefusedRequest(
        `not sent: the path key ${definition.pathTemplate} tells operations on one URL apart by a #fragment, which no request carries (RFC 3986 3.5); which of them the server answers, the document cannot say`,
      );
    let path = definition.pathTemplate;
    for (const parameter of this.#parameters('path')) {
      const text = change.replace?.parameter === parameter ? change.replace.text : this.#pathValue(parameter);
      // An empty segment names another resource (`PUT /lists/` is the collection): never sent.
      if (text === '')
        throw new RefusedRequest(
          `not sent: ${definition.method} ${definition.pathTemplate} has no value for its path parameter ${parameter.name}, and an empty segment would address another resource`,
        );
      path = path.replace(`{${parameter.name}}`, pathSegment(text));
    }
    const parsed = parsedPath(path);
    if (parsed !== undefined)
      throw new RefusedRequest(
        `not sent: ${definition.method} ${path} would reach ${parsed} once a URL parser removes its dot segment, not a resource of ${definition.pathTemplate}; the kit sends a request only to the resource its path names`,
      );
    const query: [string, string][] = [];
    const headers: Record<string, string> = {};
    const cookies: string[] = [];
    for (const parameter of definition.parameters) {
      const replaced = change.replace?.parameter === parameter;
      // A key that names the parameter in its own query (`/search?q={q}`) is filled there, never sent beside it.
      if (parameter.in === 'query' && namedByKey(definition.pathTemplate, parameter.name)) {
        const text = replaced ? change.replace!.text : textOf(this.#sample(parameter));
        path = path.replace(`${parameter.name}={${parameter.name}}`, `${parameter.name}=${encodeURIComponent(text)}`);
        continue;
      }
      if (parameter.in === 'path' || (!parameter.required && !replaced) || change.omit === parameter) continue;
      const text = replaced ? change.replace!.text : textOf(this.#sample(parameter));
      if (parameter.in === 'query') query.push([parameter.name, text]);
      else if (parameter.in === 'header' && !ownedHeaders.has(parameter.name.toLowerCase()))
        headers[parameter.name.toLowerCase()] = text;
      else if (parameter.in === 'cookie') cookies.push(`${parameter.name}=${cookieText(text)}`);
    }
    const request: GenericRequest = { path, headers };
    const alternative = this.#operation.security.alternatives[0];
    if (mode.kind !== 'none' && alternative !== undefined) {
      const credentials = credentialsOf(alternative, mode.key);
      if (credentials.authorization !== undefined) request.authorization = credentials.authorization;
      Object.assign(headers, credentials.headers);
      query.push(...credentials.query);
      cookies.push(...credentials.cookies);
    }
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    const search = new URLSearchParams(query).toString();
    // A path key that carries a query of its own (OpenAI's `/responses/{id}?beta=true`) is continued with `&`.
    request.path = `${path}${search === '' ? '' : `${path.includes('?') ? '&' : '?'}${search}`}`;
    const body = change.body === undefined ? this.body() : change.body;
    if (body?.rawBody !== undefined) request.rawBody = body.rawBody;
    if (body?.contentType !== undefined) request.contentType = body.contentType;
    return request;
  }

  #parameterCases(key: string): InvalidCase[] {
    const cases: InvalidCase[] = [];
    for (const parameter of this.#operation.definition.parameters) {
      if (parameter.in === 'cookie' || (parameter.in === 'header' && ownedHeaders.has(parameter.name.toLowerCase())))
        continue;
      // Without the parameter a key names in its query, the request is for another URL (a 404 there is right).
      if (
        parameter.required &&
        parameter.in !== 'path' &&
        !namedByKey(this.#operation.definition.pathTemplate, parameter.name)
      ) {
        cases.push({
          label: `${parameter.in} parameter ${parameter.name}: absent (required)`,
          request: this.#build({ kind: 'valid', key }, { omit: parameter }),
        });
      }
      // A text the parameter's schema refuses: the kit sends text, the server reads it as the schema's type.
      const wrong = wrongText(parameter);
      if (wrong !== undefined)
        cases.push({
          label: `${parameter.in} parameter ${parameter.name}: ${wrong.why}`,
          request: this.#build({ kind: 'valid', key }, { replace: { parameter, text: wrong.text } }),
        });
    }
    return cases;
  }

  #bodyCases(valid: GenericRequest): InvalidCase[][] {
    const body = this.#operation.definition.requestBody;
    const media = body?.media.find((entry) => isJsonMedia(entry.essence));
    if (body === undefined || media === undefined || media.schema === undefined) return [];
    const contentType = media.essence.includes('*') ? 'application/json' : media.type;
    const validator = media.validator;
    const rejected = (entry: BodyCase): boolean => {
      if (
        entry.expect !== 'reject' ||
        entry.family === 'media-types' ||
        entry.family === 'valid-values' ||
        entry.family === 'raw-json'
      )
        return false;
      // No body, or an empty one, is what a request without a body sends: invalid only when the body is required.
      if (entry.body.kind === 'none' || (entry.body.kind === 'raw' && entry.body.text === '')) return body.required;
      if (entry.body.kind === 'json') return validator !== undefined && !validator.isValid(entry.body.value);
      return true; // not JSON at all (malformed, empty, near-JSON)
    };
    const families: Record<string, InvalidCase[]> = { required: [], types: [], 'body-shape': [] };
    for (const entry of deriveBodyCases(media.schema as JsonSchema, (label) => `contract-test-${label}`)) {
      if (!rejected(entry)) continue;
      const request: GenericRequest = { ...valid, headers: { ...valid.headers } };
      delete request.rawBody;
      delete request.contentType;
      if (entry.body.kind === 'json') request.rawBody = JSON.stringify(entry.body.value);
      else if (entry.body.kind === 'raw') request.rawBody = entry.body.text;
      else if (entry.body.kind === 'bytes') request.rawBody = entry.body.bytes;
      if (entry.contentType !== undefined) request.contentType = contentType;
      families[entry.family]?.push({ label: entry.label, request });
    }
    return [families.required!, families.types!, families['body-shape']!];
  }
}

/** Does a path key write the parameter in its own query (`/search?q={q}`)? Then it is part of the URL the key names. */
function namedByKey(pathTemplate: string, name: string): boolean {
  return pathTemplate.includes(`?${name}={${name}}`) || pathTemplate.includes(`&${name}={${name}}`);
}
