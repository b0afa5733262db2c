import * as z from 'zod';
import { sha256 } from '@noble/hashes/sha2.js';
import { HttpError } from './errors.js';
import { hostRefusal, isLoopbackAddress, originRefusal } from './control-access.js';
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
        return finish(200, controls.health(), {});
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

/** Would the controls serve this caller (address, Host, Origin, token)? Checks only; counts nothing. */
export function controlAccessAllowed(request: MockRequest, config: MockConfig): boolean {
  try {
    assertControlAccess(request, config);
    return true;
  } catch {
    return false;
  }
}

function assertControlAccess(request: MockRequest, config: MockConfig): void {
  // `clientAddress` undefined is a caller in the same process or page (MSW, a test): trusted, and
  // with no Host to speak of (a browser's fetch never exposes it).
  if (request.clientAddress !== undefined) {
    if (!config.allowRemoteControl && !isLoopbackAddress(request.clientAddress)) {
      throw new HttpError('control_forbidden', 'The control API only answers loopback clients (start the mock with --allow-remote-control to change that)');
    }
    const badHost = hostRefusal(request.headers.host, request.serverAddress, config.allowedHosts);
    if (badHost !== undefined) throw new HttpError('control_forbidden', `The control API refuses this request: ${badHost}`);
    // A page on any website can make the developer's own browser send a simple POST to loopback:
    // a request that names a foreign Origin is refused (the controls also send no CORS headers).
    const badOrigin = originRefusal(request.headers.origin, config.allowedHosts);
    if (badOrigin !== undefined) throw new HttpError('control_forbidden', `The control API refuses this request: ${badOrigin}`);
  }
  if (config.controlToken !== undefined) {
    const sent = request.headers['x-mock-control-token'];
    // Digests have one length, so the comparison does not even reveal the token's length.
    if (sent === undefined || !constantTimeEqual(sha256(encoder.encode(sent)), sha256(encoder.encode(config.controlToken)))) {
      throw new HttpError('control_forbidden', 'The control API needs X-Mock-Control-Token with the configured token');
    }
  }
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
