import { HttpError } from '../errors.js';
import type { MockRequest } from '../types.js';
import { decodeJsonBody, decodeUtf8, isJsonMediaType } from '../wire/request-body.js';

// The bodies the controls take: JSON, and for a scenario YAML text too. Every problem is the
// controls' own 400 (invalid_control_request), or 415 for a type they do not read.

const yamlTypes = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

/** `POST /__mock/scenario`: YAML text (application/yaml, text/yaml) is handed on as text; JSON is decoded. */
export function decodeScenarioBody(request: MockRequest): unknown {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (yamlTypes.has(type)) {
    if (request.body === null || request.body.byteLength === 0)
      throw new HttpError('invalid_control_request', 'A scenario body is required (YAML or JSON)');
    try {
      return decodeUtf8(request.body);
    } catch {
      throw new HttpError('invalid_control_request', 'Invalid scenario: the body is not UTF-8 text');
    }
  }
  if (type !== undefined && !isJsonMediaType(type))
    throw new HttpError(
      'unsupported_media_type',
      `A scenario is sent as application/yaml, text/yaml or application/json, not ${type.slice(0, 60)}`,
    );
  const value = decodeControlBody(request);
  // A JSON string is not YAML text in disguise: only a YAML content type carries text.
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new HttpError(
      'invalid_control_request',
      'Invalid scenario: (root): expected a JSON object of scenario fields (presets, keys, anonymous, clock, categories, sunset)',
    );
  return value;
}

export function decodeControlBody(request: MockRequest): unknown {
  let decoded;
  try {
    decoded = decodeJsonBody(request.body, request.headers['content-type'], true);
  } catch (error) {
    if (error instanceof HttpError && error.status === 400)
      throw new HttpError('invalid_control_request', error.message);
    throw error;
  }
  if (!decoded.present) throw new HttpError('invalid_control_request', 'A JSON body is required');
  return decoded.value;
}
