import { targetQuery } from '../../../spec/url-parts.js';
import { parseRecentLimit } from '../../ui/dashboard-endpoint.js';
import { HttpError } from '../errors.js';
import type { MockRequest } from '../types.js';
import { assertControlAccess } from './control-access.js';
import { decodeControlBody } from './control-bodies.js';
import { controlRoutes } from './control-routes.js';
import type { ControlAnswer, ControlCall, ControlRuntime, MockControls } from './control-types.js';

export type { ClockState, ControlAnswer, ControlRuntime, HealthState, MockControls } from './control-types.js';

const dashboardPagePath = '/__mock/ui';

type AnyRoute = (typeof controlRoutes)[number];
const routeList = [...controlRoutes.map((route) => `${route.method} ${route.path}`), 'GET /__mock/ui'];

function validate(route: AnyRoute, input: unknown): unknown {
  if (!('input' in route) || route.input === undefined) return undefined;
  const result = route.input().safeParse(input);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
    throw new HttpError('invalid_control_request', `Invalid control request: ${detail}`);
  }
  return result.data;
}

/**
 * The controls of one session as functions. They throw `HttpError` (`invalid_control_request` for a
 * bad input, exactly as over HTTP), `StoreUnavailableError` or `TooManySessionsError`.
 *
 * @example await createControls(runtime, 'ci-job-7').advanceClock(60)
 */
export function createControls(runtime: ControlRuntime, session: string): MockControls {
  const controls: Record<string, unknown> = { session };
  for (const route of controlRoutes) {
    const call = (input?: unknown) =>
      (route.run as (r: ControlRuntime, s: string, i: unknown) => Promise<unknown>)(
        runtime,
        session,
        validate(route, input),
      );
    // Functions take the input itself; advanceClock keeps its one-number signature.
    controls[route.name] =
      route.name === 'advanceClock' ? (seconds: number) => call({ advanceSeconds: seconds }) : call;
  }
  return controls as unknown as MockControls;
}

/**
 * Serves `/__mock/*` for the caller's session: never counted against rate limits; refused to
 * non-loopback clients unless allowed, and guarded by a token when one is configured.
 */
export async function handleControlRequest(
  request: MockRequest,
  path: string,
  session: string,
  runtime: ControlRuntime,
): Promise<ControlAnswer> {
  if (path === dashboardPagePath) return dashboardPage(request, runtime);
  assertControlAccess(request, runtime.config);
  if (request.bodyTooLarge)
    throw new HttpError('payload_too_large', `Request body exceeds ${runtime.config.maxBodyBytes} bytes`);
  const route = controlRoutes.find((candidate) => candidate.path === path && candidate.method === request.method);
  if (!route) {
    const allowed = controlRoutes.filter((candidate) => candidate.path === path).map((candidate) => candidate.method);
    if (allowed.length > 0) {
      throw new HttpError(
        'method_not_allowed',
        `${request.method.slice(0, 20)} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
        { Allow: allowed.join(', ') },
      );
    }
    throw new HttpError('not_found', `No control at ${path.slice(0, 200)}; controls: ${routeList.join(', ')}`);
  }
  const query = new URLSearchParams(targetQuery(request.url));
  const input =
    'input' in route
      ? route.method === 'GET'
        ? inputFromQuery(route.path, query)
        : ('decodeBody' in route ? route.decodeBody : decodeControlBody)(request)
      : undefined;
  const result = await (route.run as (r: ControlRuntime, s: string, i: unknown) => Promise<unknown>)(
    runtime,
    session,
    validate(route, input),
  );
  return (route.http as (result: unknown, call: ControlCall) => Promise<ControlAnswer> | ControlAnswer)(result, {
    runtime,
    session,
    query,
    request,
  });
}

/** The input of a GET control, from its query (`GET /__mock/dashboard?limit=N`). */
function inputFromQuery(path: string, query: URLSearchParams): unknown {
  if (path !== '/__mock/dashboard' || !query.has('limit')) return {};
  const parsed = parseRecentLimit(query.get('limit'));
  if (!parsed.ok) throw new HttpError('validation_failed', parsed.message);
  return { limit: parsed.limit };
}

/**
 * `GET /__mock/ui`: the controls' loopback, Host and Origin checks, but no token (a navigation
 * cannot send one, and the page holds no data: it asks for the token before it reads anything).
 */
function dashboardPage(request: MockRequest, runtime: ControlRuntime): ControlAnswer {
  assertControlAccess(request, runtime.config, { token: false });
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new HttpError(
      'method_not_allowed',
      `${request.method.slice(0, 20)} is not allowed on ${dashboardPagePath}; allowed: GET`,
      { Allow: 'GET' },
    );
  if (!runtime.dashboardPage)
    throw new HttpError(
      'not_found',
      `The dashboard page is served by the mock server (petstore-mock, startMockServer), not by this transport; GET /__mock/dashboard gives its data`,
    );
  const page = runtime.dashboardPage();
  const { 'Content-Type': contentType, ...headers } = page.headers;
  return { status: page.status, body: page.body, contentType: contentType ?? 'text/html; charset=utf-8', headers };
}
