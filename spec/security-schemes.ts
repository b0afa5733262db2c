import type { OpenApiDocument, SecurityRequirement } from './openapi-types.js';

/** How one security scheme of the document is checked on a request. */
export type SchemeCheck =
  /** HTTP bearer, OAuth2 and OpenID Connect: `Authorization: Bearer <key>`; `scopes` are what the requirement asks. */
  | { name: string; kind: 'bearer'; scopes: readonly string[] }
  /** HTTP basic: `Authorization: Basic base64(user:password)`. */
  | { name: string; kind: 'basic' }
  /** An API key in a header, a query parameter or a cookie, under the name the scheme gives. */
  | { name: string; kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; parameter: string };

/**
 * The effective security of one operation: the operation's `security`, else the document's. Any
 * one alternative satisfied lets the request in (OR); within one, every scheme must be (AND).
 */
export interface CompiledSecurity {
  /** Alternatives that need credentials; empty when the operation needs none. */
  alternatives: readonly (readonly SchemeCheck[])[];
  /** An empty alternative (`{}`) is listed: a request without credentials is let in too. */
  anonymousAllowed: boolean;
  /** Every alternative is one bearer-like scheme without scopes (the Petstore's case): read from `Authorization` alone. */
  bearerOnly: boolean;
  /** The `WWW-Authenticate` value of a 401 (RFC 9110 11.6.1): one challenge per scheme the operation accepts. */
  challenge: string;
}

const noSecurity: CompiledSecurity = Object.freeze({
  alternatives: [],
  anonymousAllowed: true,
  bearerOnly: false,
  challenge: '',
});

interface SchemeObject {
  type?: unknown;
  scheme?: unknown;
  in?: unknown;
  name?: unknown;
}

/**
 * Compiles the security requirements of an operation against the document's security schemes.
 * Throws (one line naming the operation and the scheme) for what the mock cannot check: mutual
 * TLS, HTTP schemes other than bearer and basic, a requirement naming no declared scheme.
 *
 * @example compileSecurity([{ bearerAuth: [] }, { apiKey: [] }], document, 'listPets').challenge; // 'Bearer realm="Pets", ApiKey realm="Pets", in="header", name="X-API-Key"'
 */
export function compileSecurity(
  requirements: readonly SecurityRequirement[],
  document: OpenApiDocument,
  operationId: string,
): CompiledSecurity {
  if (!Array.isArray(requirements) || requirements.length === 0) return noSecurity;
  const schemes = (document.components?.securitySchemes ?? {}) as Record<string, SchemeObject | undefined>;
  const realm = quoted(String(document.info?.title ?? 'API').slice(0, 100));
  const alternatives: SchemeCheck[][] = [];
  let anonymousAllowed = false;
  for (const requirement of requirements) {
    const names = requirement !== null && typeof requirement === 'object' ? Object.keys(requirement) : [];
    if (names.length === 0) {
      anonymousAllowed = true;
      continue;
    }
    alternatives.push(names.map((name) => schemeCheck(name, schemes[name], requirement[name], operationId)));
  }
  const challenges = new Set<string>();
  for (const alternative of alternatives) for (const check of alternative) challenges.add(challengeOf(check, realm));
  return {
    alternatives,
    anonymousAllowed,
    bearerOnly:
      alternatives.length > 0 &&
      alternatives.every(
        (alternative) =>
          alternative.length === 1 && alternative[0]!.kind === 'bearer' && alternative[0]!.scopes.length === 0,
      ),
    challenge: [...challenges].join(', '),
  };
}

function schemeCheck(
  name: string,
  scheme: SchemeObject | undefined,
  scopes: unknown,
  operationId: string,
): SchemeCheck {
  const refuse = (why: string): never => {
    throw new Error(
      `Failed to compile spec: ${operationId} requires security scheme ${JSON.stringify(name.slice(0, 60))}, ${why}`,
    );
  };
  if (scheme === undefined || scheme === null || typeof scheme !== 'object')
    return refuse('which components.securitySchemes does not declare');
  const scopeList = Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === 'string') : [];
  switch (scheme.type) {
    case 'http': {
      const httpScheme = typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : '';
      if (httpScheme === 'bearer') return { name, kind: 'bearer', scopes: [] };
      if (httpScheme === 'basic') return { name, kind: 'basic' };
      return refuse(
        `an HTTP ${JSON.stringify(String(scheme.scheme).slice(0, 30))} scheme, which the mock cannot check (it checks bearer and basic)`,
      );
    }
    case 'oauth2':
    case 'openIdConnect':
      return { name, kind: 'bearer', scopes: scopeList };
    case 'apiKey': {
      if (scheme.in !== 'header' && scheme.in !== 'query' && scheme.in !== 'cookie')
        return refuse(`an API key "in" ${JSON.stringify(scheme.in)}; expected header, query or cookie`);
      if (typeof scheme.name !== 'string' || scheme.name === '') return refuse('an API key without a name');
      return { name, kind: 'apiKey', in: scheme.in, parameter: scheme.name };
    }
    case 'mutualTLS':
      return refuse(
        'mutual TLS, which the mock cannot check (it sees no client certificates); serve the operation without it',
      );
    default:
      return refuse(`of type ${JSON.stringify(scheme.type)?.slice(0, 30)}, which the mock does not know`);
  }
}

function challengeOf(check: SchemeCheck, realm: string): string {
  if (check.kind === 'basic') return `Basic realm=${realm}, charset="UTF-8"`;
  if (check.kind === 'bearer')
    return check.scopes.length > 0
      ? `Bearer realm=${realm}, scope=${quoted(check.scopes.join(' '))}`
      : `Bearer realm=${realm}`;
  // API keys have no registered scheme (RFC 9110 asks for a challenge all the same): say where the key goes.
  return `ApiKey realm=${realm}, in="${check.in}", name=${quoted(check.parameter)}`;
}

/** A quoted-string of RFC 9110 5.6.4 (printable ASCII only: a header value must be). */
function quoted(text: string): string {
  return `"${text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`;
}
