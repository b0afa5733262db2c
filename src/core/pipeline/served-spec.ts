import type { MockConfig } from '../config/mock-config.js';
import type { CompiledOperation, CompiledSpec } from '../spec/compiled-spec.js';
import { createRouter, type RouteMatch } from '../spec/router.js';

/**
 * Everything the spec decides for the request path, made once per spec: `replaceSpec` swaps it
 * whole (`petstore-mock --watch`), so a request reads one version from start to end.
 */
export interface ServedSpec {
  readonly spec: CompiledSpec;
  readonly basePath: string;
  /** `${basePath}/`, made once rather than on every request. */
  readonly basePathSlash: string;
  route(method: string, path: string): RouteMatch;
  /** The X-Stability, Deprecation and Sunset headers of each operation that has any, by operationId. */
  readonly operationHeaders: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** The sunset (ISO, or null when none is set) of each deprecated operation, for the lab and the scenarios. */
  readonly sunsets: ReadonlyMap<string, string | null>;
  /** The same dates in milliseconds, for the per-request check (only operations with a sunset). */
  readonly sunsetMs: ReadonlyMap<string, number>;
}

/**
 * Compiles what the request path needs of a spec. Throws (one line) when the config's `deprecation`
 * names an operation the spec does not have or does not deprecate, so a reload changes nothing then.
 *
 * @example const served = serveSpec(compileSpec(document), config, Date.now());
 */
export function serveSpec(spec: CompiledSpec, config: MockConfig, startedAtMs: number): ServedSpec {
  for (const operationId of Object.keys(config.deprecation)) {
    const operation = spec.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation?.deprecated) {
      throw new Error(`Failed to load config: deprecation.${operationId}: ${operation ? 'that operation is not deprecated in the spec' : 'no operation has that operationId'}`);
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
  return { spec, basePath: spec.basePath, basePathSlash: `${spec.basePath}/`, route: createRouter(spec.operations), operationHeaders, sunsets, sunsetMs };
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
