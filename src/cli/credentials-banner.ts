import type { SchemeCheck } from '../../spec/security-schemes.js';
import type { CompiledSpec } from '../core/spec/compiled-spec.js';

/**
 * The banner's line above the keys: how the document's operations take them, by the security
 * schemes they use (the Petstore's: `Authorization: Bearer <key>`). A document without security
 * says its keys are not asked for; one with an API key in a header says that header, not Bearer.
 *
 * @example credentialsLine(spec) // 'API keys (send X-Gotify-Key: <key>, or Authorization: Bearer <key>):'
 */
export function credentialsLine(spec: CompiledSpec): string {
  const ways = new Set<string>();
  for (const operation of spec.operations)
    for (const alternative of operation.security.alternatives) for (const check of alternative) ways.add(wayOf(check));
  if (ways.size === 0) return 'API keys (the document asks for none; sent anyway, they choose the plan):';
  const listed = [...ways].slice(0, 4);
  const more = ways.size > listed.length ? `, or ${ways.size - listed.length} more ways` : '';
  return `API keys (send ${listed.join(', or ')}${more}):`;
}

function wayOf(check: SchemeCheck): string {
  switch (check.kind) {
    case 'bearer':
      return 'Authorization: Bearer <key>';
    case 'basic':
      return 'Authorization: Basic base64(<key>:)';
    default:
      if (check.in === 'query') return `?${check.parameter}=<key>`;
      if (check.in === 'cookie') return `Cookie: ${check.parameter}=<key>`;
      return `${check.parameter}: <key>`;
  }
}
