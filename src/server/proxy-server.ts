import { createServer, type Server } from 'node:http';
import {
  type CredentialPlaces,
  credentialPlacesOf,
  maskCredentialPatterns,
  redactDeep,
} from '../../spec/credential-masking.js';
import { specModelOf } from '../../spec/interface/spec-model.js';
import { readSpecFile } from '../../spec/load-spec.js';
import type { OpenApiDocument } from '../../spec/openapi-types.js';
import type { FaultSettings } from '../core/config/fault-config.js';
import { parseMockConfig } from '../core/config/mock-config.js';
import type { AllowedHosts } from '../core/controls/control-access.js';
import { compileSpec } from '../core/spec/compiled-spec.js';
import { createRouter } from '../core/spec/router.js';
import { type Logger, silentLogger } from '../core/types.js';
import { listen } from './listen.js';
import { createConnectionLedger } from './proxy-connections.js';
import { createProxyFaults } from './proxy-faults.js';
import { ProxyHandler, type ProxySetup } from './proxy-handler.js';
import { createProxyJudge, type ProxyJudge, type ProxyReport } from './proxy-judge.js';
import { openUpstream } from './proxy-upstream.js';

/**
 * The judging proxy: an HTTP intermediary in front of a real server (RFC 9110/9112) that judges
 * both sides on the way (src/server/proxy-judge.ts). It reads each client request whole, refuses
 * what is ambiguous (proxy-request-head.ts: 400 and close), and sends the upstream a NEW message
 * it framed itself (proxy-upstream-message.ts): headers as sent except `Host` (the upstream's),
 * the hop-by-hop ones of RFC 9110 section 7.6.1 and the framing; the normalised target; the body
 * with its own Content-Length. Answers stream back. Nothing is added, dropped or retried. An upstream that cannot be reached, refuses, or
 * sends no headers within the timeout is a 502 in the API's Error shape, judged as nothing.
 *
 * @example
 * const proxy = await startProxyServer({ upstream: 'https://staging.example.com/v1', port: 0 });
 * await fetch(`${proxy.baseUrl}/categories`, { headers: { authorization: 'Bearer KEY' } });
 * proxy.report().server.outcome; // 'pass' or 'fail'
 * await proxy.close();
 */
export interface ProxyServerOptions {
  /** The upstream's API base URL, version prefix included (`https://staging.example.com/v1`). */
  upstream: string;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The document both sides are judged against; default the kit's Petstore spec. */
  spec?: OpenApiDocument;
  specPath?: string;
  /** Bytes of each answer body kept for judging; a longer body is forwarded whole and not judged. Default 1 MiB. */
  maxJudgedBodyBytes?: number;
  /** Bytes of a request body the proxy reads before forwarding it; a longer one is refused 413. Default 1 MiB. */
  maxRequestBodyBytes?: number;
  /** Time the upstream has to send its answer's headers. Default 30 s. */
  upstreamTimeoutMs?: number;
  /** Extra CA certificates for a TLS upstream (PEM). */
  ca?: string | Buffer;
  logger?: Logger;
  now?: () => number;
  /**
   * Names besides loopback and the bound address that the controls answer to (`Host`), as the
   * mock's `allowedHosts`. Default none: a DNS-rebinding page gets 403.
   */
  allowedHosts?: AllowedHosts;
  /** Latency and faults towards the client (proxy-faults.ts, decision 042), drawn from `seed` (default 1). */
  faults?: FaultSettings;
  seed?: number;
}

export interface RunningProxyServer {
  origin: string;
  /** `http://127.0.0.1:PORT/v1`: point the client here. */
  baseUrl: string;
  port: number;
  server: Server;
  judge: ProxyJudge;
  report(): ProxyReport;
  /** Stops accepting, lets in-flight exchanges finish (up to `graceMs`), closes upstream connections. */
  close(graceMs?: number): Promise<void>;
}

export { parseUpstream } from './proxy-upstream.js';
export { forwardedHeaders } from './proxy-upstream-message.js';

export async function startProxyServer(options: ProxyServerOptions): Promise<RunningProxyServer> {
  const upstream = openUpstream(options.upstream, options.ca);
  const spec = compileSpec(options.spec ?? (await readSpecFile(options.specPath)));
  const credentialPlaces = credentialPlacesOf(spec.document);
  const judge = createProxyJudge({
    spec: specModelOf(spec.definition),
    credentialPlaces,
    banPolicy: banPolicyOfDefaults(),
    ...(options.now ? { now: options.now } : {}),
  });
  // Every output is built from this report (the controls, the page, the --report file): masked once more at the edge.
  const report = () => maskedOutput(judge.report(upstream.label), credentialPlaces);
  const setup: ProxySetup = {
    upstream,
    judge,
    basePath: spec.basePath,
    logger: options.logger ?? silentLogger,
    maxJudgedBodyBytes: options.maxJudgedBodyBytes ?? 1024 * 1024,
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? 30_000,
    route: createRouter(spec.operations),
    faults: createProxyFaults(options.faults, options.seed ?? 1),
    connections: createConnectionLedger(),
    maxRequestBodyBytes: options.maxRequestBodyBytes ?? 1024 * 1024,
    // The bind decides who reaches the proxy (docs/proxy.md); Host, Origin and Sec-Fetch-Site are checked as the mock's.
    controlPolicy: { allowRemoteControl: true, allowedHosts: options.allowedHosts ?? [], controlToken: undefined },
    outputs: { report, exportLines: () => maskedOutput(judge.exportLines(), credentialPlaces) },
  };
  const handler = new ProxyHandler(setup);
  const server = createServer({ requireHostHeader: false, keepAliveTimeout: 5_000 }, handler.onRequest);
  server.on('clientError', handler.onClientError);
  const { origin, port } = await listen(server, options.port ?? 4010, options.host ?? '127.0.0.1');
  return {
    origin,
    baseUrl: `${origin}${spec.basePath}`,
    port,
    server,
    judge,
    report,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        server.close(() => {
          clearTimeout(force);
          upstream.close();
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** The one masking step at the proxy's output edge: what looks like a credential, in every string. */
function maskedOutput<T>(value: T, places: CredentialPlaces): T {
  return redactDeep(value, (text) => maskCredentialPatterns(text, places));
}

/** The lab judges clients of the proxy against the mock's default ban policy (the interface leaves it open). */
function banPolicyOfDefaults() {
  const { ban } = parseMockConfig({});
  return { enabled: ban.enabled, threshold: ban.threshold, durationMs: ban.durationSeconds * 1000 };
}
