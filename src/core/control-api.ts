import * as z from 'zod';
import { sha256 } from '@noble/hashes/sha2.js';
import { HttpError } from './errors.js';
import { constantTimeEqual } from './key-registry.js';
import type { MockControls } from './mock-app.js';
import type { MockConfig } from './mock-config.js';
import { decodeJsonBody } from './request-body.js';
import type { MockRequest, MockResponse } from './types.js';

interface ControlDependencies {
  controls: MockControls;
  config: MockConfig;
  finish(status: number, body: unknown, headers: Record<string, string>): MockResponse;
  errorResponse(error: unknown, headers: Record<string, string>): MockResponse;
}

const AdvanceClockSchema = z.strictObject({ advanceSeconds: z.number().finite().min(0).max(10 * 365 * 86_400) });
const AddKeySchema = z.strictObject({
  key: z.string().min(1).max(512).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  plan: z.string().min(1).max(64).optional(),
  limits: z.strictObject({ perMinute: z.int().positive(), perDay: z.int().positive() }).optional(),
});

const encoder = new TextEncoder();

/**
 * The control API under `/__mock`: reset, virtual clock, keys, request log, health. Never counted
 * against rate limits; refused to non-loopback clients unless allowed, and guarded by a token when
 * one is configured.
 */
export function handleControlRequest(request: MockRequest, path: string, deps: ControlDependencies): MockResponse {
  const { controls, config, finish } = deps;
  try {
    assertControlAccess(request, config);
    if (request.bodyTooLarge) throw new HttpError('payload_too_large', `Request body exceeds ${config.maxBodyBytes} bytes`);
    const route = `${request.method} ${path}`;
    switch (route) {
      case 'GET /__mock/health':
        return finish(200, { status: 'ok' }, {});
      case 'POST /__mock/reset':
        controls.reset();
        return finish(200, { reset: true, categories: controls.categories().length }, {});
      case 'GET /__mock/clock':
        return finish(200, controls.clock(), {});
      case 'POST /__mock/clock': {
        const input = decodeControlBody(request, AdvanceClockSchema);
        return finish(200, controls.advanceClock(input.advanceSeconds), {});
      }
      case 'GET /__mock/keys':
        return finish(200, controls.keys().map(({ masked, plan, limits }) => ({ key: masked, plan, limits })), {});
      case 'POST /__mock/keys': {
        const input = decodeControlBody(request, AddKeySchema);
        const { entry, created } = controls.addKey(input);
        return finish(created ? 201 : 200, { key: entry.masked, plan: entry.plan, limits: entry.limits }, {});
      }
      case 'GET /__mock/requests':
        return finish(200, controls.requests(), {});
      default: {
        const allowed = controlRoutes.filter((entry) => entry.endsWith(` ${path}`)).map((entry) => entry.split(' ')[0]!);
        if (allowed.length > 0) {
          throw new HttpError('method_not_allowed', `${request.method.slice(0, 20)} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
        }
        throw new HttpError('not_found', `No control at ${path.slice(0, 200)}; controls: ${controlRoutes.join(', ')}`);
      }
    }
  } catch (error) {
    return deps.errorResponse(error, {});
  }
}

const controlRoutes = ['GET /__mock/health', 'POST /__mock/reset', 'GET /__mock/clock', 'POST /__mock/clock', 'GET /__mock/keys', 'POST /__mock/keys', 'GET /__mock/requests'];

function assertControlAccess(request: MockRequest, config: MockConfig): void {
  if (!config.allowRemoteControl && request.clientAddress !== undefined) {
    if (!isLoopback(request.clientAddress)) {
      throw new HttpError('control_forbidden', 'The control API only answers loopback clients (start the mock with --allow-remote-control to change that)');
    }
    // A page on any website can make the developer's own browser send a simple POST to loopback:
    // a request that names a foreign Origin is refused (the controls also send no CORS headers).
    const origin = request.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      throw new HttpError('control_forbidden', `The control API refuses requests from web pages of other origins (${origin.slice(0, 100)})`);
    }
  }
  if (config.controlToken !== undefined) {
    const sent = request.headers['x-mock-control-token'];
    // Digests have one length, so the comparison does not even reveal the token's length.
    if (sent === undefined || !constantTimeEqual(sha256(encoder.encode(sent)), sha256(encoder.encode(config.controlToken)))) {
      throw new HttpError('control_forbidden', 'The control API needs X-Mock-Control-Token with the configured token');
    }
  }
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const { hostname } = new URL(origin);
    return hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.');
  } catch {
    return false;
  }
}

export function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.') || address === 'localhost';
}

function decodeControlBody<T>(request: MockRequest, schema: z.ZodType<T>): T {
  let decoded;
  try {
    decoded = decodeJsonBody(request.body, request.headers['content-type'], true);
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) throw new HttpError('invalid_control_request', error.message);
    throw error;
  }
  if (!decoded.present) throw new HttpError('invalid_control_request', 'A JSON body is required');
  const result = schema.safeParse(decoded.value);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
    throw new HttpError('invalid_control_request', `Invalid control request: ${detail}`);
  }
  return result.data;
}
