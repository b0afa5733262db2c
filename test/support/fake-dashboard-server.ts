import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dashboardPageResponse } from '../../src/ui/dashboard-csp.js';
import { dashboardResponse, parseRecentLimit } from '../../src/ui/dashboard-endpoint.js';
import type {
  CoverageReport,
  DashboardClient,
  DashboardSnapshot,
  RecentRequest,
  Situation,
  Verdict,
} from '../../src/ui/dashboard-types.js';

// Test support (Node only): a small stand-in for the mock that serves the dashboard page and a
// faithful DashboardSnapshot (lab-contract.md) until the lab's real endpoint is wired into the core.
// It is driven the way the real mock is, so a browser test written against it only needs a base URL
// and a way to send traffic: real HTTP requests to /v1/categories with `Authorization: Bearer KEY`
// (no header: an anonymous client) fill the windows, past the limit they get 429 rate_limited, and
// after `banThreshold` more refusals in a row 429 key_banned; POST /__mock/clock and /__mock/reset
// act on the caller's session (X-Mock-Session); a control token, when set, guards /__mock/* except
// the page itself. Every request it receives is recorded.

const minuteMs = 60_000;
const dayMs = 86_400_000;
/** A fixed start instant, so screenshots and assertions do not depend on the day the test runs. */
const startMs = Date.UTC(2026, 0, 15, 9, 0, 0);

export interface FakeKey {
  /** The secret sent as a bearer token. */
  key: string;
  /** How the dashboard names it: demo keys in full, others masked. */
  shown: string;
  plan: string;
  demo: boolean;
  limits: { perMinute: number; perDay: number };
}

const fakeDemoKeys: FakeKey[] = [
  { key: 'demo-free', shown: 'demo-free', plan: 'free', demo: true, limits: { perMinute: 60, perDay: 1000 } },
  { key: 'demo-pro', shown: 'demo-pro', plan: 'pro', demo: true, limits: { perMinute: 300, perDay: 10_000 } },
  {
    key: 'demo-business',
    shown: 'demo-business',
    plan: 'business',
    demo: true,
    limits: { perMinute: 1000, perDay: 100_000 },
  },
  {
    key: 'demo-enterprise',
    shown: 'demo-enterprise',
    plan: 'enterprise',
    demo: true,
    limits: { perMinute: 5000, perDay: 1_000_000 },
  },
  // A key from the config, never used in the scripts: shown masked, `used: false`.
  { key: 'sk-team-7f3a9c21', shown: 'sk-t…(16)', plan: 'pro', demo: false, limits: { perMinute: 300, perDay: 10_000 } },
];

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeDashboardOptions {
  /** Refusals in a row after which the next request bans the client (the mock's default: 10). */
  banThreshold?: number;
  banSeconds?: number;
  controlToken?: string;
}

interface ClientState {
  client: string;
  kind: 'key' | 'anonymous';
  plan: string;
  demo: boolean;
  limits: { perMinute: number; perDay: number };
  minuteStart: number | null;
  minuteCount: number;
  dayStart: number | null;
  dayCount: number;
  strikes: number;
  bannedUntil: number;
  total: number;
  byStatus: Record<string, number>;
  refused429: number;
  retryNotBefore: number;
  earlyRetries: number;
  everBanned: boolean;
  deprecatedCalls: number;
}

interface SessionState {
  name: string;
  offsetMs: number;
  /** Virtual time that passed while clients sent requests: each API request takes 250 ms. */
  trafficMs: number;
  lastSeen: number | null;
  clients: Map<string, ClientState>;
  recent: RecentRequest[];
  operations: Map<string, Map<number, { organic: number; forced: number }>>;
  situations: Record<Situation, { count: number; firstAt: number | null }>;
}

const operationIds: Record<string, { operationId: string; method: string; path: string }> = {
  'GET /v1/categories': { operationId: 'listCategories', method: 'GET', path: '/categories' },
  'POST /v1/categories': { operationId: 'createCategory', method: 'POST', path: '/categories' },
  'GET /v1/pets/{petId}': { operationId: 'getPetById', method: 'GET', path: '/pets/{petId}' },
};

function emptySituations(): SessionState['situations'] {
  return {
    '401': { count: 0, firstAt: null },
    '400': { count: 0, firstAt: null },
    '429': { count: 0, firstAt: null },
    ban: { count: 0, firstAt: null },
    'deprecated-call': { count: 0, firstAt: null },
    'window-reset': { count: 0, firstAt: null },
  };
}

function newSession(name: string): SessionState {
  return {
    name,
    offsetMs: 0,
    trafficMs: 0,
    lastSeen: null,
    clients: new Map(),
    recent: [],
    operations: new Map(),
    situations: emptySituations(),
  };
}

function errorBody(code: string, message: string, status: number): string {
  return JSON.stringify({ code, message, status });
}

export class FakeDashboardServer {
  readonly requests: RecordedRequest[] = [];
  private readonly sessions = new Map<string, SessionState>([['default', newSession('default')]]);
  private readonly server = createServer((request, response) => void this.handle(request, response));
  private readonly banThreshold: number;
  private readonly banMs: number;
  private controlToken: string | undefined;
  private failures: { kind: 'status-500' | 'bad-json'; left: number } | null = null;
  origin = '';

  private constructor(options: FakeDashboardOptions) {
    this.banThreshold = options.banThreshold ?? 10;
    this.banMs = (options.banSeconds ?? 900) * 1000;
    this.controlToken = options.controlToken;
  }

  /** Starts on 127.0.0.1 on a free port. */
  static async start(options: FakeDashboardOptions = {}): Promise<FakeDashboardServer> {
    const fake = new FakeDashboardServer(options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.origin = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sets (or with undefined, removes) the control token, as `--control-token` would. */
  setControlToken(token: string | undefined): void {
    this.controlToken = token;
  }

  /** Creates a session as if a client had sent `X-Mock-Session: name`. */
  addSession(name: string): void {
    this.session(name);
  }

  /** The next `count` dashboard polls fail with a 500 Error body, or with a body that is not JSON. */
  failDashboard(kind: 'status-500' | 'bad-json', count: number): void {
    this.failures = { kind, left: count };
  }

  /** Adds `count` log entries (spread over the last minutes of virtual time) without counting them as hits. */
  fillRecent(count: number, sessionName = 'default'): void {
    const session = this.session(sessionName);
    const now = this.now(session);
    const clients = ['anonymous 10.0.0.7', 'demo-pro', 'demo-business', 'anonymous 10.0.0.9'];
    const statuses = [200, 200, 200, 201, 200, 400, 200, 401, 429, 200];
    for (let index = 0; index < count; index++) {
      const status = statuses[index % statuses.length]!;
      const name = clients[index % clients.length]!;
      const state = this.clientState(
        session,
        name,
        fakeDemoKeys.find((key) => key.shown === name),
      );
      state.total++;
      state.byStatus[String(status)] = (state.byStatus[String(status)] ?? 0) + 1;
      if (status === 429) state.refused429++;
      session.recent.push({
        timeMs: now - (count - index) * 37,
        client: name,
        method: index % 5 === 3 ? 'POST' : 'GET',
        path: '/v1/categories',
        status,
        code:
          status === 429
            ? 'rate_limited'
            : status === 400
              ? 'validation_failed'
              : status === 401
                ? 'unauthorized'
                : null,
      });
    }
    session.recent.sort((a, b) => a.timeMs - b.timeMs);
    if (session.recent.length > 10_000) session.recent.splice(0, session.recent.length - 10_000);
  }

  private session(name: string): SessionState {
    let session = this.sessions.get(name);
    if (session === undefined) {
      session = newSession(name);
      this.sessions.set(name, session);
    }
    return session;
  }

  private now(session: SessionState): number {
    return startMs + session.offsetMs + session.trafficMs;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.requests.push({ method: request.method ?? '', url: request.url ?? '', headers: { ...request.headers } });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > 65_536)
        return this.send(response, 413, errorBody('payload_too_large', 'Request body exceeds 65536 bytes', 413));
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const sessionHeader = request.headers['x-mock-session'];
    const session = this.session(typeof sessionHeader === 'string' && sessionHeader !== '' ? sessionHeader : 'default');
    const route = `${request.method} ${url.pathname}`;

    if (route === 'GET /__mock/ui') {
      const page = dashboardPageResponse();
      response.writeHead(page.status, page.headers);
      response.end(page.body);
      return;
    }
    if (url.pathname.startsWith('/__mock/')) {
      // As the mock's control access does: a request naming an Origin must name a loopback page
      // (`null`, which a page with `Referrer-Policy: no-referrer` sends on POST, is foreign).
      const origin = request.headers.origin;
      if (origin !== undefined && !isLoopbackOrigin(origin)) {
        return this.send(
          response,
          403,
          errorBody(
            'control_forbidden',
            `The control API refuses this request: Origin ${origin.slice(0, 100)} is not a loopback page`,
            403,
          ),
        );
      }
      if (this.controlToken !== undefined && request.headers['x-mock-control-token'] !== this.controlToken) {
        return this.send(
          response,
          403,
          errorBody('control_forbidden', 'The control API needs X-Mock-Control-Token with the configured token', 403),
        );
      }
      if (route === 'GET /__mock/dashboard') return this.dashboard(session, url, request, response);
      if (route === 'POST /__mock/clock') {
        let advanceSeconds: unknown;
        try {
          advanceSeconds = (JSON.parse(body) as { advanceSeconds?: unknown }).advanceSeconds;
        } catch {
          return this.send(response, 400, errorBody('validation_failed', 'Invalid request body: not JSON', 400));
        }
        if (typeof advanceSeconds !== 'number' || !Number.isInteger(advanceSeconds) || advanceSeconds < 1) {
          return this.send(
            response,
            400,
            errorBody('validation_failed', 'Invalid request body: advanceSeconds must be a positive integer', 400),
          );
        }
        session.offsetMs += advanceSeconds * 1000;
        return this.send(response, 200, JSON.stringify(this.clock(session)));
      }
      if (route === 'POST /__mock/reset') {
        this.sessions.set(session.name, newSession(session.name));
        return this.send(response, 200, JSON.stringify({ reset: true, categories: 3 }));
      }
      if (route === 'GET /__mock/sessions') {
        return this.send(response, 200, JSON.stringify(this.sessionList()));
      }
      return this.send(response, 404, errorBody('not_found', `No control at ${url.pathname}`, 404));
    }
    if (!url.pathname.startsWith('/v1/'))
      return this.send(
        response,
        404,
        errorBody('not_found', `No resource at ${url.pathname}; the API is served under /v1`, 404),
      );
    return this.hit(session, request, url.pathname, response);
  }

  private send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    response.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      ...headers,
    });
    response.end(body);
  }

  private clock(session: SessionState): DashboardSnapshot['clock'] {
    const now = this.now(session);
    return {
      now: new Date(now).toISOString(),
      epochSeconds: Math.floor(now / 1000),
      offsetSeconds: session.offsetMs / 1000,
    };
  }

  private sessionList(): DashboardSnapshot['sessions'] {
    return [...this.sessions.values()].map((entry) => ({
      name: entry.name,
      lastSeen: entry.lastSeen === null ? null : new Date(entry.lastSeen).toISOString(),
    }));
  }

  private clientState(session: SessionState, name: string, key: FakeKey | undefined): ClientState {
    let state = session.clients.get(name);
    if (state === undefined) {
      state = {
        client: name,
        kind: key ? 'key' : 'anonymous',
        plan: key?.plan ?? 'anonymous',
        demo: key?.demo ?? false,
        limits: key?.limits ?? { perMinute: 30, perDay: 500 },
        minuteStart: null,
        minuteCount: 0,
        dayStart: null,
        dayCount: 0,
        strikes: 0,
        bannedUntil: 0,
        total: 0,
        byStatus: {},
        refused429: 0,
        retryNotBefore: 0,
        earlyRetries: 0,
        everBanned: false,
        deprecatedCalls: 0,
      };
      session.clients.set(name, state);
    }
    return state;
  }

  private meet(session: SessionState, situation: Situation, now: number): void {
    const entry = session.situations[situation];
    entry.count++;
    entry.firstAt ??= now;
  }

  /** One API request: the same counting as the mock's limiter (fixed windows from the first hit). */
  private hit(session: SessionState, request: IncomingMessage, pathname: string, response: ServerResponse): void {
    session.trafficMs += 250;
    const now = this.now(session);
    session.lastSeen = now;
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const key = fakeDemoKeys.find((entry) => entry.key === bearer);
    const anonymous = `anonymous ${request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? 'unknown'}`;
    const client = this.clientState(session, key?.shown ?? anonymous, key);
    const template = /^\/v1\/pets\/[^/]+$/.test(pathname) ? '/v1/pets/{petId}' : pathname;
    const operation = operationIds[`${request.method} ${template}`];
    const forced = request.headers.prefer !== undefined;
    let status: number;
    let code: string | null = null;
    const headers: Record<string, string> = {};

    for (const window of ['minute', 'day'] as const) {
      const start = window === 'minute' ? client.minuteStart : client.dayStart;
      if (start !== null && now >= start + (window === 'minute' ? minuteMs : dayMs)) {
        if (window === 'minute') {
          client.minuteStart = null;
          client.minuteCount = 0;
        } else {
          client.dayStart = null;
          client.dayCount = 0;
        }
        this.meet(session, 'window-reset', now);
      }
    }
    if (client.bannedUntil > now) {
      status = 429;
      code = 'key_banned';
    } else if (operation === undefined) {
      status = 404;
      code = 'not_found';
    } else if (bearer !== undefined && key === undefined) {
      status = 401;
      code = 'unauthorized';
    } else if (client.minuteCount >= client.limits.perMinute || client.dayCount >= client.limits.perDay) {
      client.strikes++;
      status = 429;
      if (client.strikes > this.banThreshold) {
        client.bannedUntil = now + this.banMs;
        client.everBanned = true;
        code = 'key_banned';
        this.meet(session, 'ban', now);
      } else {
        code = 'rate_limited';
      }
    } else {
      client.minuteStart ??= now;
      client.dayStart ??= now;
      client.minuteCount++;
      client.dayCount++;
      client.strikes = 0;
      status = bearer === undefined ? 401 : request.method === 'POST' ? 201 : 200;
      if (status === 401) code = 'unauthorized';
      if (template === '/v1/pets/{petId}') {
        client.deprecatedCalls++;
        this.meet(session, 'deprecated-call', now);
      }
    }
    if (status === 429) {
      if (now < client.retryNotBefore) client.earlyRetries++;
      const resetAt = code === 'key_banned' ? client.bannedUntil : (client.minuteStart ?? now) + minuteMs;
      const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
      client.retryNotBefore = now + retryAfter * 1000;
      client.refused429++;
      headers['Retry-After'] = String(retryAfter);
      this.meet(session, '429', now);
    }
    if (status === 401) this.meet(session, '401', now);
    client.total++;
    client.byStatus[String(status)] = (client.byStatus[String(status)] ?? 0) + 1;
    if (operation !== undefined) {
      const id = operation.operationId;
      const statuses = session.operations.get(id) ?? new Map<number, { organic: number; forced: number }>();
      session.operations.set(id, statuses);
      const counts = statuses.get(status) ?? { organic: 0, forced: 0 };
      statuses.set(status, counts);
      if (forced) counts.forced++;
      else counts.organic++;
    }
    session.recent.push({
      timeMs: now,
      client: client.client,
      method: request.method ?? 'GET',
      path: pathname,
      status,
      code,
    });
    if (session.recent.length > 10_000) session.recent.splice(0, session.recent.length - 10_000);
    this.send(
      response,
      status,
      status < 300
        ? JSON.stringify(status === 201 ? { id: 4, name: 'x' } : [])
        : errorBody(code ?? 'error', `fake ${code ?? status}`, status),
      headers,
    );
  }

  private dashboard(session: SessionState, url: URL, request: IncomingMessage, response: ServerResponse): void {
    if (this.failures !== null && this.failures.left > 0) {
      this.failures.left--;
      const kind = this.failures.kind;
      if (this.failures.left === 0) this.failures = null;
      if (kind === 'status-500')
        this.send(response, 500, errorBody('internal_error', 'Failed to build the dashboard: injected failure', 500));
      else this.send(response, 200, '{"session": "default", "clients": [');
      return;
    }
    const limit = parseRecentLimit(url.searchParams.get('limit'));
    if (!limit.ok) {
      this.send(response, 400, errorBody('validation_failed', limit.message, 400));
      return;
    }
    const answer = dashboardResponse(this.snapshot(session, limit.limit), request.headers['if-none-match']);
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  }

  /** The snapshot of one session, in the shape of lab-contract.md. */
  snapshot(session: SessionState, limit = 10_000): DashboardSnapshot {
    const now = this.now(session);
    for (const key of fakeDemoKeys) this.clientState(session, key.shown, key);
    const clients: DashboardClient[] = [...session.clients.values()].map((state) => {
      const window = (
        name: 'minute' | 'day',
        start: number | null,
        count: number,
        limitValue: number,
        length: number,
      ): DashboardClient['windows'][number] => {
        const live = start !== null && now < start + length;
        const resetsAtMs = live ? start + length : null;
        return {
          name,
          limit: limitValue,
          used: live ? count : 0,
          resetsAt: resetsAtMs === null ? null : new Date(resetsAtMs).toISOString(),
          resetsInSeconds: resetsAtMs === null ? null : Math.ceil((resetsAtMs - now) / 1000),
        };
      };
      return {
        client: state.client,
        kind: state.kind,
        plan: state.plan,
        demo: state.demo,
        used: state.total > 0,
        windows: [
          window('minute', state.minuteStart, state.minuteCount, state.limits.perMinute, minuteMs),
          window('day', state.dayStart, state.dayCount, state.limits.perDay, dayMs),
        ],
        ban:
          state.bannedUntil > now
            ? {
                until: new Date(state.bannedUntil).toISOString(),
                secondsLeft: Math.ceil((state.bannedUntil - now) / 1000),
              }
            : null,
        requests: { total: state.total, byStatus: { ...state.byStatus }, refused429: state.refused429 },
        verdicts: verdictsOf(state),
      };
    });
    const recent = limit === 0 ? [] : session.recent.slice(-limit);
    return {
      version: 1,
      session: session.name,
      sessions: this.sessionList(),
      clock: this.clock(session),
      clients,
      recent,
      coverage: this.coverage(session),
      tokenRequired: this.controlToken !== undefined,
      timelineSvg: timelineSvg(session.recent, clients, now),
    };
  }

  private coverage(session: SessionState): CoverageReport {
    const situations = {} as CoverageReport['situations'];
    for (const [name, entry] of Object.entries(session.situations) as [
      Situation,
      SessionState['situations'][Situation],
    ][]) {
      situations[name] = {
        met: entry.count > 0,
        count: entry.count,
        firstAt: entry.firstAt === null ? null : new Date(entry.firstAt).toISOString(),
      };
    }
    return {
      operations: Object.values(operationIds).map((operation) => ({
        ...operation,
        statuses: [
          ...(
            session.operations.get(operation.operationId) ?? new Map<number, { organic: number; forced: number }>()
          ).entries(),
        ]
          .sort(([a], [b]) => a - b)
          .map(([status, counts]) => ({ status, ...counts })),
      })),
      situations,
    };
  }
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const { protocol, hostname } = new URL(origin);
    return (
      (protocol === 'http:' || protocol === 'https:') &&
      (hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname))
    );
  } catch {
    return false;
  }
}

function verdictsOf(state: ClientState): Verdict[] {
  return [
    state.refused429 === 0
      ? { rule: 'retry-after-honoured', outcome: 'not-exercised', evidence: { summary: 'Never answered 429' } }
      : state.earlyRetries > 0
        ? {
            rule: 'retry-after-honoured',
            outcome: 'fail',
            evidence: { summary: `${state.earlyRetries} request(s) arrived before Retry-After had passed` },
          }
        : {
            rule: 'retry-after-honoured',
            outcome: 'pass',
            evidence: { summary: 'Every retry waited for Retry-After' },
          },
    { rule: 'backoff-growing', outcome: 'not-exercised', evidence: { summary: 'Never met a second 429 after a wait' } },
    state.everBanned
      ? {
          rule: 'no-hammering',
          outcome: 'fail',
          evidence: { summary: `Banned after more than the tolerated refusals in a row (${state.refused429} refused)` },
        }
      : { rule: 'no-hammering', outcome: 'pass', evidence: { summary: 'Never banned' } },
    state.deprecatedCalls > 0
      ? {
          rule: 'deprecated-operation',
          outcome: 'info',
          evidence: { summary: `Called GET /pets/{petId} ${state.deprecatedCalls} time(s); sunset 2026-12-31` },
        }
      : {
          rule: 'deprecated-operation',
          outcome: 'not-exercised',
          evidence: { summary: 'Never called a deprecated operation' },
        },
  ];
}

/** A stand-in for src/lab/timeline-svg.ts: one lane per client, requests binned, coloured by status. */
function timelineSvg(recent: RecentRequest[], clients: DashboardClient[], now: number): string {
  const active = clients.filter((client) => client.used);
  if (recent.length === 0 || active.length === 0) return '';
  const width = 760;
  const lane = 26;
  const left = 150;
  const from = Math.min(recent[0]!.timeMs, now - minuteMs);
  const span = Math.max(1, now - from);
  const bins = 60;
  const colour = (status: number): string => (status === 429 ? '#b3261e' : status >= 400 ? '#d99400' : '#1e7a3c');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${active.length * lane + 30}" viewBox="0 0 ${width} ${active.length * lane + 30}" font-family="sans-serif" font-size="12">`,
  ];
  active.forEach((client, row) => {
    const y = 10 + row * lane;
    parts.push(`<text x="4" y="${y + 15}">${client.client.replace(/[<&>]/g, '')}</text>`);
    const counts = new Map<string, number>();
    for (const entry of recent) {
      if (entry.client !== client.client) continue;
      const bin = Math.min(bins - 1, Math.floor(((entry.timeMs - from) / span) * bins));
      const worst = entry.status === 429 ? 429 : entry.status >= 400 ? 400 : 200;
      const binKey = `${bin}:${worst}`;
      counts.set(binKey, (counts.get(binKey) ?? 0) + 1);
    }
    for (const [binKey] of counts) {
      const [bin, status] = binKey.split(':').map(Number) as [number, number];
      parts.push(
        `<rect x="${left + (bin * (width - left - 10)) / bins}" y="${y + (status === 429 ? 0 : status === 400 ? 7 : 14)}" width="${(width - left - 10) / bins - 1}" height="6" fill="${colour(status)}"/>`,
      );
    }
  });
  parts.push(
    `<text x="${left}" y="${active.length * lane + 24}" fill="#5d6778">green 2xx · amber 4xx · red 429 · ${new Date(from).toISOString().slice(11, 19)} to ${new Date(now).toISOString().slice(11, 19)} UTC</text></svg>`,
  );
  return parts.join('');
}
