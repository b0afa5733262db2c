import { type CredentialPlaces, credentialPlacesOf } from '../../../spec/credential-masking.js';
import type { DataGenerator } from '../../../spec/data-generator.js';
import type { MockConfig } from '../config/mock-config.js';
import type { CompiledOperation, CompiledSpec } from '../spec/compiled-spec.js';
import { createRouter, type RouteMatch } from '../spec/router.js';
import type { RateLimitFields } from '../wire/rate-limit-headers.js';
import type { ErrorShape } from '../wire/response-shaping.js';
import { errorShapeOf } from './error-shapes.js';

/**
 * Everything the spec decides for the request path, made once per spec: `replaceSpec` swaps it
 * whole (`petstore-mock --watch`), so a request reads one version from start to end.
 */
export interface ServedSpec {
  readonly spec: CompiledSpec;
  readonly basePath: string;
  /** `${basePath}/`, made once rather than on every request. */
  readonly basePathSlash: string;
  /** The operation of a request; the query picks among operations written on one path with `#fragment`s. */
  route(method: string, path: string, query?: string): RouteMatch;
  /** The X-Stability, Deprecation and Sunset headers of each operation that has any, by operationId. */
  readonly operationHeaders: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** The sunset (ISO, or null when none is set) of each deprecated operation, for the lab and the scenarios. */
  readonly sunsets: ReadonlyMap<string, string | null>;
  /** The same dates in milliseconds, for the per-request check (only operations with a sunset). */
  readonly sunsetMs: ReadonlyMap<string, number>;
  /** Whether requests with a valid key are limited (429, bans), and the rate-limit fields their answers carry. */
  readonly keyedLimits: ClientLimits;
  /** The same for requests without a valid key (counted per client address against `anonymous`). */
  readonly anonymousLimits: ClientLimits;
  /** The error shape of each operation that declares one of its own (by operationId); none for the API's own Error shape. */
  /** The error shape of an operation, made at its first error (a map and two closures each: 100,000 operations). */
  readonly errorShapes: { get(operationId: string): ErrorShape | undefined };
  /** The error shape of answers no operation gives (404 for a path no operation has): the first the spec declares. */
  readonly routelessErrorShape: ErrorShape | undefined;
  /** Where this document's requests carry keys (its `apiKey` schemes and the common names): masked in the export. */
  readonly credentialPlaces: CredentialPlaces;
}

/** Whether a kind of client is rate limited (429, bans), and the rate-limit fields its answers carry. */
export interface ClientLimits {
  readonly limited: boolean;
  readonly fields: RateLimitFields;
}

const unlimited: ClientLimits = { limited: false, fields: { xRateLimit: false, ietf: false, retryAfter: false } };

/** The limits of a request's client: keyed or anonymous. */
export function limitsOf(served: ServedSpec, hasKey: boolean): ClientLimits {
  return hasKey ? served.keyedLimits : served.anonymousLimits;
}

/**
 * Compiles what the request path needs of a spec. Throws (one line) when the config's `deprecation`
 * names an operation the spec does not have or does not deprecate, so a reload changes nothing then.
 *
 * @example const served = serveSpec(compileSpec(document), config, Date.now());
 */
export function serveSpec(
  spec: CompiledSpec,
  config: MockConfig,
  startedAtMs: number,
  data: DataGenerator,
): ServedSpec {
  for (const operationId of Object.keys(config.deprecation)) {
    const operation = spec.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation?.deprecated) {
      throw new Error(
        `Failed to load config: deprecation.${operationId}: ${operation ? 'that operation is not deprecated in the spec' : 'no operation has that operationId'}`,
      );
    }
  }
  const operationHeaders = new Map<string, Record<string, string>>();
  const sunsets = new Map<string, string | null>();
  const sunsetMs = new Map<string, number>();
  for (const operation of spec.operations) {
    const headers = headersOf(operation, config, startedAtMs);
    if (Object.keys(headers).length > 0) operationHeaders.set(operation.operationId, headers);
    if (!operation.deprecated) continue;
    const sunset = config.deprecation[operation.operationId]?.sunset ?? operation.deprecation?.sunset;
    sunsets.set(operation.operationId, sunset === undefined ? null : new Date(Date.parse(sunset)).toISOString());
    if (sunset !== undefined) sunsetMs.set(operation.operationId, Date.parse(sunset));
  }
  const operationsById = new Map(spec.operations.map((operation) => [operation.operationId, operation]));
  const routelessErrorShape = spec.operations.length === 0 ? undefined : errorShapeOf(spec.operations, data);
  const shapesMade = new Map<string, ErrorShape>();
  const errorShapes = {
    get(operationId: string): ErrorShape | undefined {
      let shape = shapesMade.get(operationId);
      const operation = operationsById.get(operationId);
      if (shape === undefined && operation !== undefined) {
        shape = errorShapeOf([operation], data, routelessErrorShape);
        shapesMade.set(operationId, shape);
      }
      return shape;
    },
  };
  const keyedLimits = keyedLimitsOf(spec, config);
  return {
    spec,
    basePath: spec.basePath,
    basePathSlash: `${spec.basePath}/`,
    route: createRouter(spec.operations),
    operationHeaders,
    sunsets,
    sunsetMs,
    keyedLimits,
    anonymousLimits: anonymousLimitsOf(spec, config, keyedLimits),
    errorShapes,
    routelessErrorShape,
    credentialPlaces: credentialPlacesOf(spec.document),
  };
}

/**
 * The limits of requests with a valid key: the rate-limit fields the spec's responses declare
 * (X-RateLimit-*, the IETF RateLimit and RateLimit-Policy, Retry-After), or the ones the config
 * names; limits are applied when there are any, or when the spec declares a 429.
 */
function keyedLimitsOf(spec: CompiledSpec, config: MockConfig): ClientLimits {
  const asked = config.rateLimitHeaders;
  if (asked !== undefined)
    return {
      fields: { xRateLimit: asked.includes('x-ratelimit'), ietf: asked.includes('ietf'), retryAfter: true },
      limited: true,
    };
  const names = new Set<string>();
  let declares429 = false;
  for (const operation of spec.operations) {
    for (const response of [...operation.responses.values(), ...operation.rangeResponses.values()]) {
      for (const name of response.headerNames) names.add(name.toLowerCase());
    }
    declares429 ||= operation.responses.has(429);
  }
  const fields = {
    xRateLimit: [...names].some((name) => name.startsWith('x-ratelimit-')),
    ietf: names.has('ratelimit') || names.has('ratelimit-policy'),
    retryAfter: names.has('retry-after'),
  };
  return { fields, limited: declares429 || fields.xRateLimit || fields.ietf || fields.retryAfter };
}

/**
 * The one decision of anonymous limits (docs/decisions/037): requests without a valid key are
 * limited where the config says so (`limitAnonymous`, or an `anonymous` budget given) and, by
 * default, on the Petstore's own document only (interface sections 5 and 8). Any other document
 * states no anonymous budget, even when it declares a 429: its keyless requests get their 401 or
 * their answer, never a 429 or a ban by a rule the document never stated.
 */
function anonymousLimitsOf(spec: CompiledSpec, config: MockConfig, keyedLimits: ClientLimits): ClientLimits {
  if (!(config.limitAnonymous ?? isPetstoreInterface(spec))) return unlimited;
  return { limited: true, fields: keyedLimits.fields };
}

/** The Petstore's own document names the interface it is the machine-readable form of. */
export function isPetstoreInterface(spec: CompiledSpec): boolean {
  const info = spec.document.info as { 'x-interface-document'?: unknown } | undefined;
  return info?.['x-interface-document'] === 'petstore-service-interface.md';
}

function headersOf(operation: CompiledOperation, config: MockConfig, startedAtMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  if (operation.stability) headers['X-Stability'] = operation.stability;
  if (operation.deprecated) {
    const dates = { ...operation.deprecation, ...config.deprecation[operation.operationId] };
    const deprecatedAt = dates.deprecatedAt ? Date.parse(dates.deprecatedAt) : startedAtMs;
    // RFC 9745: Deprecation is a structured-field date, "@" + Unix seconds.
    headers.Deprecation = `@${Math.floor(deprecatedAt / 1000)}`;
    // RFC 8594: Sunset is an HTTP-date.
    if (dates.sunset) headers.Sunset = new Date(Date.parse(dates.sunset)).toUTCString();
  }
  return headers;
}
